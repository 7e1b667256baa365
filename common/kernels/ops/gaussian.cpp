// gaussian: one pass of the separable kernel, or its direct and table variants.
#include "cpu_op_steps.hpp"

namespace parfilter::cpu_ops {
namespace {

constexpr std::array kVariants{kGaussianSeparable, kScalarVariant, kGaussianDirect, kGaussianLut};

}  // namespace

extern const CpuOp gaussian_op{
    .name = "gaussian", .variants = kVariants, .single_pass = gaussian_pass};

}  // namespace parfilter::cpu_ops
