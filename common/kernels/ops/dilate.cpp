// dilate: one or more dilations (--iterations) with --se (morphology_steps).
#include "cpu_op_steps.hpp"

namespace parfilter::cpu_ops {
namespace {

OpOutput run(const CpuOpContext& context, const ConstImageView& input, const OpParams& params) {
  return image_output(run_morphology(context, Op::dilate, input, params));
}

RowHalo halo(const OpParams& params) { return morphology_halo(Op::dilate, params); }

}  // namespace

extern const CpuOp dilate_op{
    .name = "dilate", .variants = kMorphologyVariants, .run = run, .halo = halo};

}  // namespace parfilter::cpu_ops
