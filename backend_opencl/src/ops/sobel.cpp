// sobel: the gray plane, then its gradients (kernels/sobel.cl).
#include "cl_op.hpp"

namespace parfilter::opencl::ops {
namespace {

std::vector<std::string> variants() {
  return variant_list({kDefaultVariant, kSobelQuads, kSobelTile, kSobelVload16, kSobelScalar});
}

DeviceResult run(Lane& lane, const DeviceImage& input, const OpParams& params,
                 std::string_view variant) {
  // On a GPU the gray comes on the fly, in one kernel, four columns per work item; on a CPU the
  // gray plane and 16 pixels per work item.
  DeviceResult result;
  result.image =
      run_sobel(lane, input, params, device_schedule(lane, variant, kSobelVload16, kSobelQuads));
  return result;
}

}  // namespace

extern const ClOp sobel_op{"sobel", variants, run};

}  // namespace parfilter::opencl::ops
