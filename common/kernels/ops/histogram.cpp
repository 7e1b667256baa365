// histogram: the gray values' counts, or each channel's (--per-channel); no image.
#include "cpu_op_steps.hpp"

namespace parfilter::cpu_ops {
namespace {

OpOutput run(const CpuOpContext& context, const ConstImageView& input, const OpParams& params) {
  OpOutput output;
  if (!params.per_channel || input.channels() == 1) {
    // No gray image: each block converts a row at a time into a buffer and counts it.
    const kernels::Loops loops = loops_for(params.variant);
    output.histogram = {
        count_rows(context.scheduler, all_rows(input), [&](RowRange rows, HistogramBins& h) {
          kernels::gray_histogram_rows(input.slice(rows), rows, h, loops);
        })};
    return output;
  }
  for (int c = 0; c < input.channels(); ++c) {
    output.histogram.push_back(
        count_rows(context.scheduler, all_rows(input), [&](RowRange rows, HistogramBins& h) {
          kernels::histogram_rows(input.slice(rows), rows, c, h);
        }));
  }
  return output;
}

}  // namespace

extern const CpuOp histogram_op{.name = "histogram", .variants = kDefaultAndScalar, .run = run};

}  // namespace parfilter::cpu_ops
