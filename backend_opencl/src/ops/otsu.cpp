// otsu: gray and its histogram, Otsu's threshold on the host, then the threshold applied.
#include "cl_op.hpp"

namespace parfilter::opencl::ops {
namespace {

DeviceResult run(Lane& lane, const DeviceImage& input, const OpParams& params,
                 std::string_view variant) {
  return run_thresholding(lane, Op::otsu, input, params, variant);
}

}  // namespace

extern const ClOp otsu_op{"otsu", default_variant_only, run};

}  // namespace parfilter::opencl::ops
