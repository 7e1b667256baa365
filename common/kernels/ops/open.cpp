// open: erosions, then as many dilations with --se (morphology_steps).
#include "cpu_op_steps.hpp"

namespace parfilter::cpu_ops {

extern const CpuOp open_op = morphology_cpu_op<Op::open>("open");

}  // namespace parfilter::cpu_ops
