// otsu: gray and its histogram, Otsu's threshold, then the threshold applied.
#include "cpu_op_steps.hpp"

namespace parfilter::cpu_ops {
namespace {

OpOutput run(const CpuOpContext& context, const ConstImageView& input, const OpParams& params) {
  return run_thresholding(context, Op::otsu, input, params);
}

}  // namespace

extern const CpuOp otsu_op{.name = "otsu", .variants = kDefaultAndScalar, .run = run};

}  // namespace parfilter::cpu_ops
