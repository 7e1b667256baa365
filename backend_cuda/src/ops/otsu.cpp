// otsu: the gray histogram, Otsu's threshold on the host, the threshold pass (cuda_ops.cpp,
// kernels/histogram.cu and point.cu).
#include "cuda_op.hpp"

namespace parfilter::cuda::ops {
namespace {

DeviceResult run(Workspace& ws, const OpParams& params, const DeviceImage& in) {
  return run_thresholding(ws, Op::otsu, params, in);
}

}  // namespace

extern const CudaOp otsu_op{"otsu", default_variant_only, run};

}  // namespace parfilter::cuda::ops
