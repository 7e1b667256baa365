// sharpen: one pass of the 3x3 kernel.
#include "cpu_op_steps.hpp"

namespace parfilter::cpu_ops {

extern const CpuOp sharpen_op{
    .name = "sharpen", .variants = kFilterVariants, .single_pass = sharpen_pass};

}  // namespace parfilter::cpu_ops
