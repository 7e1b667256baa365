// open: its steps with --se (morphology_steps), through ops_morphology.cpp (kernels/morphology.cl).
#include "cl_op.hpp"

namespace parfilter::opencl::ops {
namespace {

DeviceResult run(Lane& lane, const DeviceImage& input, const OpParams& params,
                 std::string_view variant) {
  return run_morphology_op(lane, Op::open, input, params, variant);
}

}  // namespace

extern const ClOp open_op{"open", morphology_variants, run};

}  // namespace parfilter::opencl::ops
