// open: its steps with --se (morphology_steps), through run_morphology in cuda_ops.cpp
// (kernels/morphology*.cu).
#include "cuda_op.hpp"

namespace parfilter::cuda::ops {

extern const CudaOp open_op{"open", morphology_variants, run_in_group<run_morphology, Op::open>,
                            Chain16::step_of<&Chain16::morphology>};

}  // namespace parfilter::cuda::ops
