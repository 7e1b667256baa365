// equalize: the histogram of the gray values (or the YCrCb luma), then its LUT applied.
#include "cpu_op_steps.hpp"

namespace parfilter::cpu_ops {
namespace {

OpOutput run(const CpuOpContext& context, const ConstImageView& input, const OpParams& params) {
  const HistogramBins hist =
      count_rows(context.scheduler, all_rows(input), equalize_count(input, params.variant));
  const RowPass apply = equalize_pass(input.channels(), equalize_lut(hist), params.variant);
  return image_output(run_pass(context, apply, input, input.channels()));
}

}  // namespace

extern const CpuOp equalize_op{.name = "equalize", .variants = kDefaultAndScalar, .run = run};

}  // namespace parfilter::cpu_ops
