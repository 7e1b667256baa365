// pool: 2x2 max pooling (kernels/point.cl).
#include "cl_op.hpp"

namespace parfilter::opencl::ops {
namespace {

DeviceResult run(Lane& lane, const DeviceImage& input, const OpParams& /*params*/,
                 std::string_view /*variant*/) {
  DeviceResult result;
  result.image = run_pool(lane, input);
  return result;
}

}  // namespace

extern const ClOp pool_op{"pool", default_variant_only, run};

}  // namespace parfilter::opencl::ops
