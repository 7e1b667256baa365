// equalize: the luma (or gray) histogram, the table on the host, then the table applied
// (kernels/histogram.cu, point.cu).
#include "cuda_op.hpp"
#include "filter_math.hpp"

namespace parfilter::cuda::ops {
namespace {

DeviceResult run(Workspace& ws, const OpParams& /*params*/, const DeviceImage& in) {
  const DeviceImage out = ws.image(ws.output, in.width, in.height, in.channels);
  const HistogramSource source = in.channels == 1 ? HistogramSource::gray : HistogramSource::luma;
  const auto hist = histograms(ws, HistogramVariant::shared_atomics, source, in);
  const auto lut = equalize_lut(hist.front());
  if (in.channels == 1) {
    launch_apply_lut(in, out, lut.data(), ws.stream.get());
  } else {
    launch_equalize_color(in, out, lut.data(), ws.stream.get());
  }
  return DeviceResult{out, {}, {}};
}

}  // namespace

extern const CudaOp equalize_op{"equalize", default_variant_only, run,
                                Chain16::step_of<&Chain16::equalize>};

}  // namespace parfilter::cuda::ops
