// erode: one or more erosions (--iterations) with --se (morphology_steps).
#include "cpu_op_steps.hpp"

namespace parfilter::cpu_ops {
namespace {

OpOutput run(const CpuOpContext& context, const ConstImageView& input, const OpParams& params) {
  return image_output(run_morphology(context, Op::erode, input, params));
}

RowHalo halo(const OpParams& params) { return morphology_halo(Op::erode, params); }

}  // namespace

extern const CpuOp erode_op{
    .name = "erode", .variants = kMorphologyVariants, .run = run, .halo = halo};

}  // namespace parfilter::cpu_ops
