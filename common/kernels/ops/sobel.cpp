// sobel: the gray plane, then the gradients of it (two phases: MPI plans it itself).
#include "cpu_op_steps.hpp"

namespace parfilter::cpu_ops {
namespace {

OpOutput run(const CpuOpContext& context, const ConstImageView& input, const OpParams& params) {
  const GrayPlane gray = gray_plane(context, input, params.variant);
  return image_output(run_pass(context, sobel_pass(params), gray.view, 1));
}

RowHalo halo(const OpParams& params) { return sobel_pass(params).halo; }

}  // namespace

extern const CpuOp sobel_op{.name = "sobel", .variants = kFilterVariants, .run = run, .halo = halo};

}  // namespace parfilter::cpu_ops
