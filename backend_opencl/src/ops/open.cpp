// open: its steps with --se (morphology_steps), through ops_morphology.cpp (kernels/morphology.cl).
#include "cl_op.hpp"

namespace parfilter::opencl::ops {

extern const ClOp open_op{"open", morphology_variants, run_in_group<run_morphology_op, Op::open>,
                          Chain16::step_of<&Chain16::morphology>};

}  // namespace parfilter::opencl::ops
