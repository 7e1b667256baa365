// histogram, equalize, otsu and segment: histograms on the device, tables and thresholds on
// the host (filter_math), then a per-pixel kernel.
#include <algorithm>
#include <stdexcept>

#include "filter_math.hpp"
#include "ops.hpp"

namespace parfilter::opencl {
namespace {

constexpr std::string_view kSegmentProgram = "segment";
/// The histogram schedule the ops built on histograms use: the histogram op's default.
std::string_view internal_histogram(const Lane& rt) {
  return histogram_schedule(rt, kDefaultVariant);
}
/// segment_adaptive_workgroup: work-group size (it must divide the 256 bins) and the shortest run
/// of pixels a group walks; a run is at least as long as the window, so that filling the first
/// window costs about as much as sliding it along the run.
constexpr std::size_t kSegmentGroup = 64;
constexpr int kMinSegmentSpan = 64;
/// segment_adaptive_private: one run per work item, work-groups down a column of runs.
constexpr Range kPrivateSegmentGroup{1, 64};
/// segment_adaptive_columns: rows a work item slides its window down, values per coarse bin,
/// and the most items (columns) per work-group. 16-bit counts hold windows of up to 65535
/// pixels; 64 columns of them take 38 KB, within the 48 KB that GPUs give a work-group.
constexpr int kColumnStripRows = 64;
constexpr int kColumnFineValues = 16;
constexpr std::size_t kMaxColumnItems = 64;
constexpr std::size_t kMinColumnItems = 8;
constexpr long long kMaxShortCount = 0xFFFF;

struct Shape {
  int width;
  int height;
  int channels;
  [[nodiscard]] std::uint64_t pixels() const {
    return static_cast<std::uint64_t>(width) * static_cast<std::uint64_t>(height);
  }
};

Shape shape_of(const DeviceImage& input) {
  return {input.width(), input.height(), input.channels()};
}

/// The columns schedule's count type and work-group size for a window over `s`: the most
/// columns (a power of two) whose histograms fit the device's local memory, or 0 where fewer
/// than kMinColumnItems fit.
struct ColumnLayout {
  std::string_view count_type;
  std::size_t items;
};

ColumnLayout column_layout(const Lane& rt, const Shape& s, int window) {
  const long long window_pixels =
      static_cast<long long>(std::min(window, s.width)) * std::min(window, s.height);
  const bool short_counts = window_pixels <= kMaxShortCount;
  const std::size_t count_bytes = short_counts ? sizeof(std::uint16_t) : sizeof(std::uint32_t);
  constexpr auto kBins = static_cast<std::size_t>(kHistogramBins);
  constexpr std::size_t coarse_bins = kBins / kColumnFineValues;
  const std::size_t bytes_per_item =
      (kBins + coarse_bins) * count_bytes + coarse_bins * sizeof(std::uint32_t);
  std::size_t items = kMaxColumnItems;
  while (items >= kMinColumnItems && items * bytes_per_item > rt.local_memory_bytes()) items /= 2;
  return {short_counts ? "ushort" : "uint", items >= kMinColumnItems ? items : 0};
}

void run_adaptive_segment(Lane& rt, const Shape& s, const Buffer& gray, const Buffer& out,
                          const OpParams& params, int threshold, std::string_view variant) {
  const int radius = params.window / 2;
  const auto height = static_cast<std::size_t>(s.height);
  Defines defines = image_defines(1);
  defines.add("SEG_GROUP", static_cast<long long>(kSegmentGroup));
  if (variant == kSegmentColumns) {
    const ColumnLayout layout = column_layout(rt, s, params.window);
    if (layout.items != 0) {
      defines.add("SEG_COUNT", layout.count_type)
          .add("SEG_ITEMS", static_cast<long long>(layout.items))
          .add("SEG_FINE", kColumnFineValues)
          .add("SEG_STRIP", kColumnStripRows);
      const auto strips =
          static_cast<std::size_t>((s.height + kColumnStripRows - 1) / kColumnStripRows);
      rt.run(kSegmentProgram, "segment_adaptive_columns", defines,
             {static_cast<std::size_t>(s.width), strips}, {layout.items, 1}, gray, out, s.width,
             s.height, radius, params.min_contrast, threshold);
      return;
    }
    variant = kSegmentWorkgroup;  // a device with too little local memory for the histograms
  }
  const int span = std::max(kMinSegmentSpan, params.window);
  const auto runs = static_cast<std::size_t>((s.width + span - 1) / span);
  if (variant == kSegmentPrivate) {
    rt.run(kSegmentProgram, "segment_adaptive_private", defines, {runs, height},
           kPrivateSegmentGroup, gray, out, s.width, s.height, radius, span, params.min_contrast,
           threshold);
  } else {
    rt.run(kSegmentProgram, "segment_adaptive_workgroup", defines, {runs * kSegmentGroup, height},
           {kSegmentGroup, 1}, gray, out, s.width, s.height, radius, span, params.min_contrast,
           threshold);
  }
}

}  // namespace

std::string_view histogram_schedule(const Lane& rt, std::string_view variant) {
  // Atomics are cheap in GPU local memory, a locked bus cycle on CPUs.
  return device_schedule(rt, variant, kHistogramTwoKernel, kHistogramLocalAtomics);
}

std::vector<HistogramBins> run_histogram(Lane& rt, const DeviceImage& input, const OpParams& params,
                                         std::string_view variant) {
  const Shape s = shape_of(input);
  const Buffer& image = input.buffer();
  if (!params.per_channel || s.channels == 1) {
    const Buffer gray = gray_plane(rt, image, s.width, s.height, s.channels);
    return {device_histogram(rt, gray, s.pixels(), 1, 0, variant)};
  }
  std::vector<HistogramBins> result;
  for (int c = 0; c < s.channels; ++c) {
    result.push_back(device_histogram(rt, image, s.pixels(), s.channels, c, variant));
  }
  return result;
}

DeviceImage run_equalize(Lane& rt, const DeviceImage& input) {
  const Shape s = shape_of(input);
  const Buffer& image = input.buffer();
  const Defines defines = image_defines(s.channels);
  Buffer out = rt.buffer(image_bytes(s.width, s.height, s.channels), "equalize output");
  if (s.channels == 1) {
    const auto lut =
        equalize_lut(device_histogram(rt, image, s.pixels(), 1, 0, internal_histogram(rt)));
    const Buffer lut_buffer = rt.upload(lut.data(), sizeof(lut), "equalize lut");
    run_quads(rt, "apply_lut", defines, image, out, s.pixels(), lut_buffer);
  } else {
    Buffer luma = rt.buffer(image_bytes(s.width, s.height, 1), "luma plane");
    run_quads(rt, "luma_plane", defines, image, luma, s.pixels());
    const auto lut =
        equalize_lut(device_histogram(rt, luma, s.pixels(), 1, 0, internal_histogram(rt)));
    const Buffer lut_buffer = rt.upload(lut.data(), sizeof(lut), "equalize lut");
    run_quads(rt, "equalize_color", defines, image, out, s.pixels(), lut_buffer);
  }
  return {out, s.width, s.height, s.channels};
}

DeviceResult run_thresholding(Lane& rt, Op op, const DeviceImage& input, const OpParams& params,
                              std::string_view variant) {
  const Shape s = shape_of(input);
  const Buffer& image = input.buffer();
  const Buffer gray = gray_plane(rt, image, s.width, s.height, s.channels);
  const HistogramBins hist = device_histogram(rt, gray, s.pixels(), 1, 0, internal_histogram(rt));
  const int threshold = global_threshold(op, hist);
  Buffer out = rt.buffer(image_bytes(s.width, s.height, 1), "segment output");
  if (op == Op::segment && params.adaptive) {
    run_adaptive_segment(rt, s, gray, out, params, threshold, variant);
  } else {
    run_quads(rt, "threshold", image_defines(1), gray, out, s.pixels(), threshold);
  }
  DeviceResult output;
  output.threshold = threshold;
  output.image = {out, s.width, s.height, 1};
  return output;
}

}  // namespace parfilter::opencl
