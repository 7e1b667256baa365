// segment: gray and its histogram, the isodata threshold, then global or --adaptive.
#include "cpu_op_steps.hpp"

namespace parfilter::cpu_ops {

extern const CpuOp segment_op = thresholding_cpu_op<Op::segment>("segment");

}  // namespace parfilter::cpu_ops
