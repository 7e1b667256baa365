// segment: the isodata threshold on the host from the gray histogram, then the global threshold
// pass or, with --adaptive, the windowed one (cuda_ops.cpp, kernels/point.cu and segment.cu).
#include "cuda_op.hpp"

namespace parfilter::cuda::ops {

extern const CudaOp segment_op{"segment", default_variant_only,
                               run_in_group<run_thresholding, Op::segment>,
                               Chain16::step_of<&Chain16::threshold>};

}  // namespace parfilter::cuda::ops
