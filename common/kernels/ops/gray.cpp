// gray: one pass, Q15 luma (docs/FILTERS.md).
#include "cpu_op_steps.hpp"

namespace parfilter::cpu_ops {
namespace {

RowPass pass(const OpParams& params) { return gray_pass(params.variant); }

OpOutput run(const CpuOpContext& context, const ConstImageView& input, const OpParams& params) {
  return image_output(run_pass(context, pass(params), input, 1));
}

RowHalo halo(const OpParams& params) { return pass(params).halo; }

}  // namespace

extern const CpuOp gray_op{"gray", kDefaultAndScalar, run, halo, pass};

}  // namespace parfilter::cpu_ops
