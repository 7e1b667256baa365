// sharpen: the 3x3 kernel (kernels/sharpen.cl).
#include "cl_op.hpp"

namespace parfilter::opencl::ops {
namespace {

std::vector<std::string> variants() {
  return variant_list(
      {kDefaultVariant, kSharpenQuads, kSharpenTile, kSharpenVector, kSharpenNaive, kSharpenLocal});
}

DeviceResult run(Lane& lane, const DeviceImage& input, const OpParams& params,
                 std::string_view variant) {
  // On a GPU quads of pixel words in registers (0.077 ms on an H200, 7680x4320 RGBA, against
  // 0.114 for the tile stream and 0.24 for vector), which take RGBA only: other channel counts
  // go by four samples per work item.
  DeviceResult result;
  result.image = run_sharpen(lane, input, params,
                             device_schedule(lane, variant, kSharpenVector, kSharpenQuads));
  return result;
}

}  // namespace

extern const ClOp sharpen_op{"sharpen", variants, run};

}  // namespace parfilter::opencl::ops
