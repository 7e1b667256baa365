// Each op of docs/FILTERS.md as a sequence of kernel launches on one stream. Weights, tables and
// thresholds come from the shared host math (filter_math.hpp); where an op needs one (equalize's
// table, otsu's and isodata's thresholds), its histogram is computed on the GPU, downloaded,
// and the host function runs on it.
#include "cuda_ops.hpp"

#include <algorithm>
#include <cstring>
#include <stdexcept>
#include <utility>

#include "filter_math.hpp"
#include "parfilter/error.hpp"

namespace parfilter::cuda {
namespace {

constexpr std::string_view kDefault = "default";

// Variant names, as --variant takes them, and what they select; the default (the fastest)
// first, then the classic techniques in the order of issue 4.
template <typename Enum>
using VariantNames = std::vector<std::pair<std::string_view, Enum>>;
const VariantNames<GaussianVariant> kGaussianVariants = {{"registers", GaussianVariant::registers},
                                                         {"separable", GaussianVariant::separable},
                                                         {"direct", GaussianVariant::direct},
                                                         {"unrolled", GaussianVariant::unrolled},
                                                         {"lut", GaussianVariant::lut},
                                                         {"texture", GaussianVariant::texture}};
const VariantNames<SharpenVariant> kSharpenVariants = {{"vector", SharpenVariant::vector},
                                                       {"naive", SharpenVariant::naive},
                                                       {"tile", SharpenVariant::tile}};
const VariantNames<HistogramVariant> kHistogramVariants = {
    {"shared-atomics", HistogramVariant::shared_atomics},
    {"no-atomics", HistogramVariant::no_atomics}};
const VariantNames<MorphVariant> kMorphVariants = {{"vhgw", MorphVariant::vhgw},
                                                   {"naive", MorphVariant::naive},
                                                   {"separable", MorphVariant::separable}};
constexpr std::string_view kSobelMulti = "multi";
constexpr std::string_view kSobelPixel = "pixel";

template <typename Enum>
Enum lookup(const VariantNames<Enum>& names, const std::string& name) {
  for (const auto& [variant, value] : names) {
    if (variant == name) return value;
  }
  throw UsageError("unknown CUDA variant '" + name + "'");
}

/// Copies `bytes` from host memory to the device through pinned memory, on the stream.
void upload_small(Workspace& ws, void* device, const void* host, std::size_t bytes) {
  ws.reserve(ws.host_small, bytes);
  std::memcpy(ws.host_small.get(), host, bytes);
  CUDA_CHECK(
      cudaMemcpyAsync(device, ws.host_small.get(), bytes, cudaMemcpyHostToDevice, ws.stream.get()));
}

/// Runs the histogram kernels and brings the counts to the host (waits for the stream).
std::vector<HistogramBins> histograms(Workspace& ws, HistogramVariant variant,
                                      HistogramSource source, const DeviceImage& in,
                                      const DeviceImage& gray_out = {}) {
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

DeviceImage run_gaussian(Workspace& ws, const OpParams& params, const DeviceImage& in,
                         const DeviceImage& out) {
  const GaussianVariant variant = lookup(kGaussianVariants, params.variant);
  const GaussianWeights weights = gaussian_weights(params.sigma);
  GaussianTables tables;
  if (variant == GaussianVariant::direct || variant == GaussianVariant::lut) {
    // The direct kernel reads the 25 weights, the lut kernel the 6 x 256 products, from
    // global memory.
    std::vector<std::uint32_t> host(static_cast<std::size_t>(kGaussianTaps * kGaussianTaps));
    if (variant == GaussianVariant::direct) {
      for (int i = 0; i < kGaussianTaps; ++i) {
        for (int j = 0; j < kGaussianTaps; ++j) {
          host[static_cast<std::size_t>(i * kGaussianTaps + j)] =
              static_cast<std::uint32_t>(weights.weight(i, j));
        }
      }
    } else {
      const GaussianLut lut = gaussian_lut(weights);
      host.clear();
      for (const auto& row : lut) host.insert(host.end(), row.begin(), row.end());
    }
    const std::size_t bytes = host.size() * sizeof(std::uint32_t);
    ws.reserve(ws.tables, bytes);
    upload_small(ws, ws.tables.get(), host.data(), bytes);
    tables.weights = ws.tables.as<const int>();
    tables.lut = ws.tables.as<const std::uint32_t>();
  }
  // The texture launcher waits for its kernel (the texture object must outlive it): the
  // stream has to run, so its launch gap counts as kernel time.
  if (variant == GaussianVariant::texture) ws.gate.open();
  launch_gaussian(variant, in, out, weights.q, tables, params.border, ws.stream.get());
  return out;
}

DeviceImage run_sobel(Workspace& ws, const OpParams& params, const DeviceImage& in,
                      const DeviceImage& out) {
  if (params.variant == kSobelMulti) {
    launch_sobel_multi(in, out, params.border, params.sobel_output, ws.stream.get());
  } else if (params.variant == kSobelPixel) {
    DeviceImage gray = in;
    if (in.channels != 1) {
      gray = ws.image(ws.gray, in.width, in.height, 1);
      launch_gray(in, gray, ws.stream.get());
    }
    launch_sobel_pixel(gray, out, params.border, params.sobel_output, ws.stream.get());
  } else {
    throw UsageError("unknown CUDA variant '" + params.variant + "'");
  }
  return out;
}

DeviceImage run_equalize(Workspace& ws, const DeviceImage& in, const DeviceImage& out) {
  const HistogramSource source = in.channels == 1 ? HistogramSource::gray : HistogramSource::luma;
  const auto hist = histograms(ws, HistogramVariant::shared_atomics, source, in);
  const auto lut = equalize_lut(hist.front());
  if (in.channels == 1) {
    launch_apply_lut(in, out, lut.data(), ws.stream.get());
  } else {
    launch_equalize_color(in, out, lut.data(), ws.stream.get());
  }
  return out;
}

DeviceResult run_thresholding(Workspace& ws, Op op, const OpParams& params, const DeviceImage& in,
                              const DeviceImage& out) {
  // The gray plane comes out of the histogram pass (the input itself when it is gray).
  const DeviceImage gray = in.channels == 1 ? in : ws.image(ws.gray, in.width, in.height, 1);
  const auto hist = histograms(ws, HistogramVariant::shared_atomics, HistogramSource::gray, in,
                               in.channels == 1 ? DeviceImage{} : gray);
  const int t = op == Op::otsu ? otsu_threshold(hist.front()) : isodata_threshold(hist.front());
  if (op == Op::segment && params.adaptive) {
    launch_adaptive_segment(gray, out, params.window, params.min_contrast, t, ws.stream.get());
  } else {
    launch_threshold(gray, out, t, ws.stream.get());
  }
  return DeviceResult{out, {}, t};
}

DeviceImage run_morphology(Workspace& ws, Op op, const OpParams& params, const DeviceImage& in) {
  const MorphVariant variant = lookup(kMorphVariants, params.variant);
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
  return src;
}

}  // namespace

std::vector<std::string> cuda_variants(Op op) {
  const auto names = [](const auto& variants) {
    std::vector<std::string> result;
    for (const auto& entry : variants) result.emplace_back(entry.first);
    return result;
  };
  switch (op) {
    case Op::gaussian:
      return names(kGaussianVariants);
    case Op::sobel:
      return {std::string(kSobelMulti), std::string(kSobelPixel)};
    case Op::sharpen:
      return names(kSharpenVariants);
    case Op::histogram:
      return names(kHistogramVariants);
    case Op::erode:
    case Op::dilate:
    case Op::open:
    case Op::close:
      return names(kMorphVariants);
    case Op::gray:
    case Op::equalize:
    case Op::otsu:
    case Op::segment:
    case Op::pool:
      return {std::string(kDefault)};
  }
  throw std::logic_error("cuda_variants: unknown op");
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

DeviceResult enqueue_op(Workspace& ws, Op op, const OpParams& params, const DeviceImage& in) {
  const cudaStream_t stream = ws.stream.get();
  const auto output = [&](int channels) {
    return ws.image(ws.output, in.width, in.height, channels);
  };
  switch (op) {
    case Op::gray:
      if (in.channels == 1) return DeviceResult{in, {}, {}};  // a gray input is its own gray
      launch_gray(in, output(1), stream);
      return DeviceResult{output(1), {}, {}};
    case Op::gaussian:
      return DeviceResult{run_gaussian(ws, params, in, output(in.channels)), {}, {}};
    case Op::sobel:
      return DeviceResult{run_sobel(ws, params, in, output(1)), {}, {}};
    case Op::sharpen:
      launch_sharpen(lookup(kSharpenVariants, params.variant), in, output(in.channels),
                     params.border, stream);
      return DeviceResult{output(in.channels), {}, {}};
    case Op::histogram: {
      const HistogramSource source =
          params.per_channel ? HistogramSource::channels : HistogramSource::gray;
      return DeviceResult{
          {}, histograms(ws, lookup(kHistogramVariants, params.variant), source, in), {}};
    }
    case Op::equalize:
      return DeviceResult{run_equalize(ws, in, output(in.channels)), {}, {}};
    case Op::otsu:
    case Op::segment:
      return run_thresholding(ws, op, params, in, output(1));
    case Op::pool: {
      const DeviceImage out =
          ws.image(ws.output, (in.width + 1) / 2, (in.height + 1) / 2, in.channels);
      launch_pool(in, out, stream);
      return DeviceResult{out, {}, {}};
    }
    case Op::erode:
    case Op::dilate:
    case Op::open:
    case Op::close:
      return DeviceResult{run_morphology(ws, op, params, in), {}, {}};
  }
  throw std::logic_error("enqueue_op: unknown op");
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
  const StructuringElement se = make_structuring_element(spec);
  std::vector<MorphRect> rects;
  for (int j = 0; j < se.height; ++j) {
    const auto span = se.row_spans[static_cast<std::size_t>(j)];
    if (span.x0 >= span.x1) continue;
    // Rows whose run contains this span, split into contiguous runs: each run with this span
    // is a rectangle inside the element, and row j's own run is covered by it.
    int run_begin = -1;
    for (int r = 0; r <= se.height; ++r) {
      const bool covers = r < se.height &&
                          se.row_spans[static_cast<std::size_t>(r)].x0 <= span.x0 &&
                          se.row_spans[static_cast<std::size_t>(r)].x1 >= span.x1;
      if (covers && run_begin < 0) run_begin = r;
      if (!covers && run_begin >= 0) {
        if (j >= run_begin && j < r) {
          rects.push_back({span.x0 - se.anchor_x, span.x1 - se.anchor_x, run_begin - se.anchor_y,
                           r - se.anchor_y});
        }
        run_begin = -1;
      }
    }
  }
  // Drop rectangles inside others (rows sharing one span give the same rectangle).
  std::vector<MorphRect> kept;
  for (std::size_t i = 0; i < rects.size(); ++i) {
    bool inside_another = false;
    for (std::size_t k = 0; k < rects.size() && !inside_another; ++k) {
      const MorphRect& a = rects[i];
      const MorphRect& b = rects[k];
      const bool contains = b.x0 <= a.x0 && b.x1 >= a.x1 && b.y0 <= a.y0 && b.y1 >= a.y1;
      const bool same = a.x0 == b.x0 && a.x1 == b.x1 && a.y0 == b.y0 && a.y1 == b.y1;
      inside_another = k != i && contains && (!same || k < i);
    }
    if (!inside_another) kept.push_back(rects[i]);
  }
  return kept;
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

}  // namespace parfilter::cuda
