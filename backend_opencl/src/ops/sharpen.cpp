// sharpen: the 3x3 kernel (kernels/sharpen.cl).
#include "cl_op.hpp"

namespace parfilter::opencl::ops {
namespace {

std::vector<std::string> variants() {
  return variant_list({kSharpenVector, kSharpenNaive, kSharpenLocal});
}

DeviceResult run(Lane& lane, const DeviceImage& input, const OpParams& params,
                 std::string_view variant) {
  DeviceResult result;
  result.image = run_sharpen(lane, input, params, variant);
  return result;
}

}  // namespace

extern const ClOp sharpen_op{"sharpen", variants, run};

}  // namespace parfilter::opencl::ops
