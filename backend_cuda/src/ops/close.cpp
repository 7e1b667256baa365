// close: its steps with --se (morphology_steps), through run_morphology in cuda_ops.cpp
// (kernels/morphology*.cu).
#include "cuda_op.hpp"

namespace parfilter::cuda::ops {
namespace {

DeviceResult run(Workspace& ws, const OpParams& params, const DeviceImage& in) {
  return run_morphology(ws, Op::close, params, in);
}

}  // namespace

extern const CudaOp close_op{"close", morphology_variants, run};

}  // namespace parfilter::cuda::ops
