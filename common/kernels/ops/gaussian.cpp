// gaussian: one pass of the separable kernel, or its direct and table variants.
#include "cpu_op_steps.hpp"

namespace parfilter::cpu_ops {
namespace {

constexpr std::array kVariants{kGaussianSeparable, kScalarVariant, kGaussianDirect, kGaussianLut};

RowPass pass(const OpParams& params) { return gaussian_pass(params); }

OpOutput run(const CpuOpContext& context, const ConstImageView& input, const OpParams& params) {
  return image_output(run_pass(context, pass(params), input, input.channels()));
}

RowHalo halo(const OpParams& params) { return pass(params).halo; }

}  // namespace

extern const CpuOp gaussian_op{"gaussian", kVariants, run, halo, pass};

}  // namespace parfilter::cpu_ops
