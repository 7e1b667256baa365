// close: dilations, then as many erosions with --se (morphology_steps).
#include "cpu_op_steps.hpp"

namespace parfilter::cpu_ops {
namespace {

OpOutput run(const CpuOpContext& context, const ConstImageView& input, const OpParams& params) {
  return image_output(run_morphology(context, Op::close, input, params));
}

RowHalo halo(const OpParams& params) { return morphology_halo(Op::close, params); }

}  // namespace

extern const CpuOp close_op{
    .name = "close", .variants = kMorphologyVariants, .run = run, .halo = halo};

}  // namespace parfilter::cpu_ops
