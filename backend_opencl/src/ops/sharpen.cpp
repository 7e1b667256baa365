// sharpen: the 3x3 kernel (kernels/sharpen.cl).
#include "cl_op.hpp"

namespace parfilter::opencl::ops {
namespace {

std::vector<std::string> variants() {
  return variant_list(
      {kDefaultVariant, kSharpenTile, kSharpenVector, kSharpenNaive, kSharpenLocal});
}

DeviceResult run(Lane& lane, const DeviceImage& input, const OpParams& params,
                 std::string_view variant) {
  // RGBA on a GPU: the stream of pixel words; otherwise four samples per work item.
  constexpr int kRgba = 4;
  const std::string_view on_gpu = input.channels() == kRgba ? kSharpenTile : kSharpenVector;
  DeviceResult result;
  result.image =
      run_sharpen(lane, input, params, device_schedule(lane, variant, kSharpenVector, on_gpu));
  return result;
}

}  // namespace

extern const ClOp sharpen_op{"sharpen", variants, run};

}  // namespace parfilter::opencl::ops
