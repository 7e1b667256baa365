// pool: 2x2 max pooling, ceil(W/2) x ceil(H/2) (its blocks cut output rows, not input rows).
#include "cpu_op_steps.hpp"

namespace parfilter::cpu_ops {
namespace {

OpOutput run(const CpuOpContext& context, const ConstImageView& input, const OpParams& params) {
  Image out = Image::uninitialized(pool_extent(input.width()), pool_extent(input.height()),
                                   input.channels(), context.outputs);
  const kernels::Loops loops = streamed(loops_for(params.variant), output_writes(out));
  const ImageView dst = out.view();
  context.scheduler.for_each_block(out.height(), [&](RowRange rows, int) {
    kernels::pool2x2_rows(input.slice(pool_input_rows(rows, input.height())), dst.slice(rows), rows,
                          loops);
  });
  return image_output(std::move(out));
}

}  // namespace

extern const CpuOp pool_op{.name = "pool", .variants = kDefaultAndScalar, .run = run};

}  // namespace parfilter::cpu_ops
