// gray: one pass, Q15 luma (docs/FILTERS.md).
#include "cpu_op_steps.hpp"

namespace parfilter::cpu_ops {
namespace {

RowPass pass(const OpParams& params) { return gray_pass(params.variant); }

}  // namespace

extern const CpuOp gray_op{.name = "gray", .variants = kDefaultAndScalar, .single_pass = pass};

}  // namespace parfilter::cpu_ops
