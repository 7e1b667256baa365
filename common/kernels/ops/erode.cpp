// erode: one or more erosions (--iterations) with --se (morphology_steps).
#include "cpu_op_steps.hpp"

namespace parfilter::cpu_ops {

extern const CpuOp erode_op = morphology_cpu_op<Op::erode>("erode");

}  // namespace parfilter::cpu_ops
