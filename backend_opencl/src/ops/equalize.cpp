// equalize: the luma's histogram, its LUT on the host, then the LUT applied.
#include "cl_op.hpp"

namespace parfilter::opencl::ops {
namespace {

DeviceResult run(Lane& lane, const DeviceImage& input, const OpParams& /*params*/,
                 std::string_view /*variant*/) {
  DeviceResult result;
  result.image = run_equalize(lane, input);
  return result;
}

}  // namespace

extern const ClOp equalize_op{"equalize", default_variant_only, run};

}  // namespace parfilter::opencl::ops
