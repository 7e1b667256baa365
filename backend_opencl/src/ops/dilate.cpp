// dilate: its steps with --se (morphology_steps), through ops_morphology.cpp
// (kernels/morphology.cl).
#include "cl_op.hpp"

namespace parfilter::opencl::ops {

extern const ClOp dilate_op{"dilate", morphology_variants,
                            run_in_group<run_morphology_op, Op::dilate>,
                            Chain16::step_of<&Chain16::morphology>};

}  // namespace parfilter::opencl::ops
