// segment: gray and its histogram, the isodata threshold, then global or --adaptive.
#include "cpu_op_steps.hpp"

namespace parfilter::cpu_ops {
namespace {

OpOutput run(const CpuOpContext& context, const ConstImageView& input, const OpParams& params) {
  return run_thresholding(context, Op::segment, input, params);
}

}  // namespace

extern const CpuOp segment_op{.name = "segment", .variants = kDefaultAndScalar, .run = run};

}  // namespace parfilter::cpu_ops
