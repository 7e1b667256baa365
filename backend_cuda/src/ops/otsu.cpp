// otsu: the gray histogram, Otsu's threshold on the host, the threshold pass (cuda_ops.cpp,
// kernels/histogram.cu and point.cu).
#include "cuda_op.hpp"

namespace parfilter::cuda::ops {

extern const CudaOp otsu_op{"otsu", default_variant_only, run_in_group<run_thresholding, Op::otsu>,
                            Chain16::step_of<&Chain16::threshold>};

}  // namespace parfilter::cuda::ops
