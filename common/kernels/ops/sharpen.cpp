// sharpen: one pass of the 3x3 kernel.
#include "cpu_op_steps.hpp"

namespace parfilter::cpu_ops {
namespace {

RowPass pass(const OpParams& params) { return sharpen_pass(params); }

OpOutput run(const CpuOpContext& context, const ConstImageView& input, const OpParams& params) {
  return image_output(run_pass(context, pass(params), input, input.channels()));
}

RowHalo halo(const OpParams& params) { return pass(params).halo; }

}  // namespace

extern const CpuOp sharpen_op{"sharpen", kFilterVariants, run, halo, pass};

}  // namespace parfilter::cpu_ops
