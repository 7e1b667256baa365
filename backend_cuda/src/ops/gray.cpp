// gray: Q15 luma (kernels/point.cu); a gray input is its own gray.
#include "cuda_op.hpp"

namespace parfilter::cuda::ops {
namespace {

DeviceResult run(Workspace& ws, const OpParams& /*params*/, const DeviceImage& in) {
  if (in.channels == 1) return DeviceResult{in, {}, {}};
  const DeviceImage out = ws.image(ws.output, in.width, in.height, 1);
  launch_gray(in, out, ws.stream.get());
  return DeviceResult{out, {}, {}};
}

}  // namespace

extern const CudaOp gray_op{"gray", default_variant_only, run, Chain16::step_of<&Chain16::gray>};

}  // namespace parfilter::cuda::ops
