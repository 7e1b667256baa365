// sobel: the gray plane, then its gradients (kernels/sobel.cl).
#include "cl_op.hpp"

namespace parfilter::opencl::ops {
namespace {

std::vector<std::string> variants() { return variant_list({kSobelVload16, kSobelScalar}); }

DeviceResult run(Lane& lane, const DeviceImage& input, const OpParams& params,
                 std::string_view variant) {
  DeviceResult result;
  result.image = run_sobel(lane, input, params, variant);
  return result;
}

}  // namespace

extern const ClOp sobel_op{"sobel", variants, run};

}  // namespace parfilter::opencl::ops
