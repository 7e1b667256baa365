// pool: 2x2 max pooling into ceil(W/2) x ceil(H/2) (kernels/point.cu).
#include "cuda_op.hpp"

namespace parfilter::cuda::ops {
namespace {

DeviceResult run(Workspace& ws, const OpParams& /*params*/, const DeviceImage& in) {
  const DeviceImage out =
      ws.image(ws.output, pool_extent(in.width), pool_extent(in.height), in.channels);
  launch_pool(in, out, ws.stream.get());
  return DeviceResult{out, {}, {}};
}

}  // namespace

extern const CudaOp pool_op{"pool", default_variant_only, run, Chain16::step_of<&Chain16::pool>};

}  // namespace parfilter::cuda::ops
