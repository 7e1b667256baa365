// open: erosions, then as many dilations with --se (morphology_steps).
#include "cpu_op_steps.hpp"

namespace parfilter::cpu_ops {
namespace {

OpOutput run(const CpuOpContext& context, const ConstImageView& input, const OpParams& params) {
  return image_output(run_morphology(context, Op::open, input, params));
}

RowHalo halo(const OpParams& params) { return morphology_halo(Op::open, params); }

}  // namespace

extern const CpuOp open_op{
    .name = "open", .variants = kMorphologyVariants, .run = run, .halo = halo};

}  // namespace parfilter::cpu_ops
