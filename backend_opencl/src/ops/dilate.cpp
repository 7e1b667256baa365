// dilate: its steps with --se (morphology_steps), through ops_morphology.cpp
// (kernels/morphology.cl).
#include "cl_op.hpp"

namespace parfilter::opencl::ops {
namespace {

std::vector<std::string> variants(bool /*cpu_device*/) { return morphology_variants(); }

DeviceResult run(Lane& lane, const DeviceImage& input, const OpParams& params,
                 std::string_view variant) {
  return run_morphology_op(lane, Op::dilate, input, params, variant);
}

}  // namespace

extern const ClOp dilate_op{"dilate", variants, run};

}  // namespace parfilter::opencl::ops
