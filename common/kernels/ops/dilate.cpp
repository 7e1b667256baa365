// dilate: one or more dilations (--iterations) with --se (morphology_steps).
#include "cpu_op_steps.hpp"

namespace parfilter::cpu_ops {

extern const CpuOp dilate_op = morphology_cpu_op<Op::dilate>("dilate");

}  // namespace parfilter::cpu_ops
