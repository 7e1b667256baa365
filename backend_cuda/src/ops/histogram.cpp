// histogram: gray or, with --per-channel, one per channel, counted on the GPU
// (kernels/histogram.cu).
#include "cuda_op.hpp"

namespace parfilter::cuda::ops {
namespace {

constexpr std::array<VariantName<HistogramVariant>, 2> kVariants = {
    {{"shared-atomics", HistogramVariant::shared_atomics},
     {"no-atomics", HistogramVariant::no_atomics}}};

std::vector<std::string> variants() { return variant_names(kVariants); }

DeviceResult run(Workspace& ws, const OpParams& params, const DeviceImage& in) {
  const HistogramSource source =
      params.per_channel ? HistogramSource::channels : HistogramSource::gray;
  return DeviceResult{{}, histograms(ws, variant_value(kVariants, params.variant), source, in), {}};
}

}  // namespace

extern const CudaOp histogram_op{"histogram", variants, run, Chain16::step_of<&Chain16::histogram>};

}  // namespace parfilter::cuda::ops
