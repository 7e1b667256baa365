// The steps several of the CUDA backend's ops share (each op is one file in ops/), and the
// workspace's images. Weights, tables and thresholds come from the shared host math
// (filter_math.hpp); where an op needs one (equalize's table, otsu's and isodata's thresholds),
// its histogram is computed on the GPU, downloaded, and the host function runs on it.
#include "cuda_ops.hpp"

#include <algorithm>
#include <stdexcept>
#include <utility>

#include "cuda_op.hpp"
#include "filter_math.hpp"

namespace parfilter::cuda {
namespace {

constexpr std::array<VariantName<MorphVariant>, 3> kMorphVariants = {
    {{"vhgw", MorphVariant::vhgw},
     {"naive", MorphVariant::naive},
     {"separable", MorphVariant::separable}}};

}  // namespace

std::vector<std::string> default_variant_only() { return {"default"}; }

std::vector<HistogramBins> histograms(Workspace& ws, HistogramVariant variant,
                                      HistogramSource source, const DeviceImage& in,
                                      const DeviceImage& gray_out) {
  const int count = source == HistogramSource::channels ? in.channels : 1;
  const std::size_t bytes = sizeof(unsigned long long) * kHistogramBins * count;
  ws.reserve(ws.counts, bytes);
  ws.reserve(ws.histogram_scratch, std::max<std::size_t>(1, histogram_scratch_bytes(variant, in)));
  launch_histogram(variant, source, in, ws.counts.as<unsigned long long>(),
                   ws.histogram_scratch.get(), gray_out, ws.stream.get());
  ws.reserve(ws.host_small, bytes);
  CUDA_CHECK(cudaMemcpyAsync(ws.host_small.get(), ws.counts.get(), bytes, cudaMemcpyDeviceToHost,
                             ws.stream.get()));
  ws.synchronize();
  std::vector<HistogramBins> result(static_cast<std::size_t>(count));
  const auto* counts = ws.host_small.as<unsigned long long>();
  for (int h = 0; h < count; ++h) {
    for (int v = 0; v < kHistogramBins; ++v) {
      result[static_cast<std::size_t>(h)][static_cast<std::size_t>(v)] =
          counts[h * kHistogramBins + v];
    }
  }
  return result;
}

DeviceResult run_thresholding(Workspace& ws, Op op, const OpParams& params, const DeviceImage& in) {
  const DeviceImage out = ws.image(ws.output, in.width, in.height, 1);
  // The gray plane comes out of the histogram pass (the input itself when it is gray).
  const DeviceImage gray = in.channels == 1 ? in : ws.image(ws.gray, in.width, in.height, 1);
  const auto hist = histograms(ws, HistogramVariant::shared_atomics, HistogramSource::gray, in,
                               in.channels == 1 ? DeviceImage{} : gray);
  const int t = global_threshold(op, hist.front());
  if (op == Op::segment && params.adaptive) {
    launch_adaptive_segment(gray, out, params.window, params.min_contrast, t, ws.stream.get());
  } else {
    launch_threshold(gray, out, t, ws.stream.get());
  }
  return DeviceResult{out, {}, t};
}

std::vector<std::string> morphology_variants() { return variant_names(kMorphVariants); }

DeviceResult run_morphology(Workspace& ws, Op op, const OpParams& params, const DeviceImage& in) {
  const MorphVariant variant = variant_value(kMorphVariants, params.variant);
  const auto rects = morphology_rects(params.se);
  const auto spans = morphology_spans(params.se);
  const std::vector<MorphOp> steps = morphology_steps(op, params.iterations);
  // Ping-pong between two buffers; each step reads the previous step's result.
  const DeviceImage buffers[2] = {ws.image(ws.output, in.width, in.height, in.channels),
                                  ws.image(ws.spare, in.width, in.height, in.channels)};
  const DeviceImage scratch = ws.image(ws.scratch, in.width, in.height, in.channels);
  DeviceImage src = in;
  int target = 0;
  for (const MorphOp step : steps) {
    launch_morphology(variant, step, src, buffers[target], scratch, rects, spans, ws.stream.get());
    src = buffers[target];
    target = 1 - target;
  }
  return DeviceResult{src, {}, {}};
}

DeviceImage device_image(DeviceBuffer& buffer, int width, int height, int channels) {
  const std::size_t pitch = aligned_pitch(width, channels);
  buffer.reserve(pitch * static_cast<std::size_t>(height));
  return DeviceImage{buffer.as<std::uint8_t>(), width, height, channels, pitch};
}

DeviceImage Workspace::image(DeviceBuffer& buffer, int width, int height, int channels) {
  reserve(buffer, aligned_pitch(width, channels) * static_cast<std::size_t>(height));
  return device_image(buffer, width, height, channels);
}

DeviceImage adopt_as_input(Workspace& ws, const DeviceImage& image) {
  if (image.data == ws.input.get()) return image;
  for (DeviceBuffer* buffer : {&ws.output, &ws.scratch, &ws.spare, &ws.gray}) {
    if (image.data == buffer->get()) {
      std::swap(ws.input, *buffer);
      return image;
    }
  }
  throw std::logic_error("adopt_as_input: a step's result outside the workspace's images");
}

std::vector<MorphRect> morphology_rects(const SeSpec& spec) {
  return structuring_element_rects(make_structuring_element(spec));
}

MorphSpans morphology_spans(const SeSpec& spec) {
  const StructuringElement se = make_structuring_element(spec);
  MorphSpans spans;
  for (int j = 0; j < se.height; ++j) {
    const auto span = se.row_spans[static_cast<std::size_t>(j)];
    spans.rows.push_back(
        {span.x0 - se.anchor_x, span.x1 - se.anchor_x, j - se.anchor_y, j - se.anchor_y + 1});
  }
  return spans;
}

DeviceResult run_chain_steps(Workspace& ws, const OpChain& resolved, DeviceImage in) {
  DeviceResult result;
  for (std::size_t i = 0; i < resolved.size(); ++i) {
    result = cuda_op(resolved[i].op).run(ws, resolved[i].params, in);
    if (i + 1 < resolved.size()) in = adopt_as_input(ws, result.image);
  }
  return result;
}

}  // namespace parfilter::cuda
