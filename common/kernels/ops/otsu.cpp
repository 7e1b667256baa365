// otsu: gray and its histogram, Otsu's threshold, then the threshold applied.
#include "cpu_op_steps.hpp"

namespace parfilter::cpu_ops {

extern const CpuOp otsu_op = thresholding_cpu_op<Op::otsu>("otsu");

}  // namespace parfilter::cpu_ops
