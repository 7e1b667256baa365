// sobel: the gray plane, then its gradients (kernels/sobel.cl).
#include "cl_op.hpp"

namespace parfilter::opencl::ops {
namespace {

std::vector<std::string> variants() {
  return variant_list({kDefaultVariant, kSobelQuads, kSobelTile, kSobelVload16, kSobelScalar});
}

}  // namespace

// On a GPU the gray comes on the fly, in one kernel, four columns per work item; on a CPU the
// gray plane and 16 pixels per work item.
extern const ClOp sobel_op{"sobel", variants, run_by_device<run_sobel, kSobelVload16, kSobelQuads>,
                           Chain16::step_of<&Chain16::sobel>};

}  // namespace parfilter::opencl::ops
