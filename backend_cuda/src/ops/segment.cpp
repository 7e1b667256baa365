// segment: the isodata threshold on the host from the gray histogram, then the global threshold
// pass or, with --adaptive, the windowed one (cuda_ops.cpp, kernels/point.cu and segment.cu).
#include "cuda_op.hpp"

namespace parfilter::cuda::ops {
namespace {

DeviceResult run(Workspace& ws, const OpParams& params, const DeviceImage& in) {
  return run_thresholding(ws, Op::segment, params, in);
}

}  // namespace

extern const CudaOp segment_op{"segment", default_variant_only, run};

}  // namespace parfilter::cuda::ops
