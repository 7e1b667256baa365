// close: dilations, then as many erosions with --se (morphology_steps).
#include "cpu_op_steps.hpp"

namespace parfilter::cpu_ops {

extern const CpuOp close_op = morphology_cpu_op<Op::close>("close");

}  // namespace parfilter::cpu_ops
