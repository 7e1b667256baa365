// gray: the luma of every pixel, one work item per pixel (kernels/point.cl).
#include "cl_op.hpp"

namespace parfilter::opencl::ops {
namespace {

DeviceResult run(Lane& lane, const DeviceImage& input, const OpParams& /*params*/,
                 std::string_view /*variant*/) {
  DeviceResult result;
  result.image = run_gray(lane, input);
  return result;
}

}  // namespace

extern const ClOp gray_op{"gray", default_variant_only, run};

}  // namespace parfilter::opencl::ops
