// What several ops share: the gray plane, device histograms, the variants.
#include <algorithm>
#include <cstring>
#include <limits>

#include "cl_op.hpp"
#include "ops.hpp"

namespace parfilter::opencl {
namespace {

constexpr std::string_view kHistogramProgram = "histogram";
/// Samples per histogram launch: the kernels count in 32 bits and index with uint.
constexpr std::uint64_t kHistogramChunk = std::uint64_t{1} << 31;
/// local-atomics: work-groups per compute unit, enough to hide memory latency.
constexpr std::size_t kHistogramGroupsPerUnit = 8;
/// local-atomics on a plane: samples per load (histogram_plane_atomics); its work-groups hold
/// at most 8 sub-histograms of 32 items, so kGroup1d must stay within 256.
constexpr std::uint64_t kSamplesPerPlaneLoad = 16;
constexpr std::size_t kMaxPlaneAtomicsGroup = 256;
static_assert(kGroup1d <= kMaxPlaneAtomicsGroup, "histogram_plane_atomics has 8 sub-histograms");
/// two-kernel: work items per sub-histogram group; on a GPU one sub-histogram (1 KiB) per
/// kSamplesPerSubHistogram samples, at most kMaxSubHistograms; on a CPU a few per core.
constexpr std::size_t kSubHistogramGroup = 64;
constexpr std::size_t kMaxSubHistograms = 16384;
constexpr std::size_t kSamplesPerSubHistogram = 256;
constexpr std::size_t kCpuSubHistogramsPerUnit = 4;
constexpr std::uint64_t kQuadPixels = 4;
/// The quads stencils' work-group: 32 quads by 4 strips, so that the rows two strips share are
/// read close together (from the L1 cache). On an H200 (7680x4320 RGBA) it took gaussian from
/// 0.120 to 0.115 ms and sobel from 0.066 to 0.063 against 64 x 1; 16 x 4, 32 x 2 and 8 x 8 were
/// within 3%, 128 x 1 slower.
constexpr Range kQuadStripGroup{32, 4};

std::size_t ceil_div(std::uint64_t n, std::uint64_t d) {
  return static_cast<std::size_t>((n + d - 1) / d);
}

/// One launch's histogram of at most kHistogramChunk samples, added to `total`.
void add_chunk_histogram(Lane& rt, const Buffer& buffer, cl_uint count, cl_int stride,
                         cl_ulong offset, std::string_view method, HistogramBins& total) {
  const Defines none;
  const std::size_t bins_bytes = sizeof(cl_uint) * kHistogramBins;
  Buffer hist = rt.buffer(bins_bytes, "histogram");
  if (method == kHistogramTwoKernel) {
    const bool cpu = rt.cpu_schedules();
    const std::size_t group = cpu ? 1 : kSubHistogramGroup;
    const std::size_t subs =
        cpu ? rt.compute_units() * kCpuSubHistogramsPerUnit
            : std::clamp<std::size_t>(
                  ceil_div(ceil_div(count, kSamplesPerSubHistogram), group) * group, group,
                  kMaxSubHistograms);
    Buffer sub = rt.buffer(subs * bins_bytes, "sub-histograms");
    rt.run(kHistogramProgram, "histogram_private", none, {subs, 1}, {group, 1}, buffer, count,
           stride, offset, sub, static_cast<cl_int>(cpu ? 1 : 0));
    rt.run(kHistogramProgram, "histogram_reduce", none, {kHistogramBins, 1}, {kHistogramBins, 1},
           sub, static_cast<cl_uint>(subs), hist);
  } else if (stride == 1 && offset % kSamplesPerPlaneLoad == 0) {
    rt.zero(hist, bins_bytes, "histogram");
    const std::size_t groups = std::min(ceil_div(ceil_div(count, kSamplesPerPlaneLoad), kGroup1d),
                                        rt.compute_units() * kHistogramGroupsPerUnit);
    rt.run(kHistogramProgram, "histogram_plane_atomics", none, {groups * kGroup1d, 1},
           {kGroup1d, 1}, buffer, count, offset, hist);
  } else {
    rt.zero(hist, bins_bytes, "histogram");
    const std::size_t groups =
        std::min(ceil_div(count, kGroup1d), rt.compute_units() * kHistogramGroupsPerUnit);
    rt.run(kHistogramProgram, "histogram_local_atomics", none, {groups * kGroup1d, 1},
           {kGroup1d, 1}, buffer, count, stride, offset, hist);
  }
  std::array<cl_uint, kHistogramBins> counts{};
  rt.download(hist, counts.data(), bins_bytes, "histogram");
  for (std::size_t v = 0; v < counts.size(); ++v) total[v] += counts[v];
}

}  // namespace

std::vector<std::string> variant_list(std::initializer_list<std::string_view> names) {
  return {names.begin(), names.end()};
}

std::string_view device_schedule(const Lane& rt, std::string_view variant, std::string_view on_cpu,
                                 std::string_view on_gpu) {
  if (variant != kDefaultVariant) return variant;
  return rt.cpu_schedules() ? on_cpu : on_gpu;
}

std::vector<std::string> default_variant_only() { return variant_list({kDefaultVariant}); }

std::vector<std::string> morphology_variants() {
  return variant_list({kMorphDefault, kMorphQuads, kMorphSpans, kMorphLevels, kMorphTile,
                       kMorphColumns, kMorphRows, kMorphVector, kMorphNaive, kMorphImage2d,
                       kMorphVhgw});
}

std::size_t image_bytes(int width, int height, int channels) {
  return static_cast<std::size_t>(width) * static_cast<std::size_t>(height) *
         static_cast<std::size_t>(channels);
}

Defines image_defines(int channels) {
  Defines d;
  d.add("CN", channels).add("TILE_W", static_cast<long long>(kTile.x));
  d.add("TILE_H", static_cast<long long>(kTile.y)).add("STRIP", kStripRows);
  return d;
}

Range quad_range(std::uint64_t pixels) { return {ceil_div(pixels, kQuadPixels), 1}; }

Defines quad_strip_defines(Defines defines, std::size_t rows) {
  defines.add("QUAD_STRIP", static_cast<long long>(rows));
  return defines;
}

Range quad_strip_items(Range pixels, std::size_t rows) {
  const Range g = quad_strip_group();
  return {ceil_div(ceil_div(pixels.x, kQuadPixels), g.x) * g.x,
          ceil_div(ceil_div(pixels.y, rows), g.y) * g.y};
}

Range quad_strip_group() { return kQuadStripGroup; }

Buffer gray_plane(Lane& rt, const Buffer& image, int width, int height, int channels) {
  if (channels == 1) return image;
  Buffer gray = rt.buffer(image_bytes(width, height, 1), "gray plane");
  run_quads(rt, "gray_plane", image_defines(channels), image, gray,
            static_cast<std::uint64_t>(width) * static_cast<std::uint64_t>(height));
  return gray;
}

HistogramBins device_histogram(Lane& rt, const Buffer& buffer, std::uint64_t count, int stride,
                               int offset, std::string_view method) {
  HistogramBins total{};
  for (std::uint64_t first = 0; first < count; first += kHistogramChunk) {
    const auto chunk = static_cast<cl_uint>(std::min(kHistogramChunk, count - first));
    add_chunk_histogram(rt, buffer, chunk, stride,
                        static_cast<cl_ulong>(first * static_cast<std::uint64_t>(stride) +
                                              static_cast<std::uint64_t>(offset)),
                        method, total);
  }
  return total;
}

}  // namespace parfilter::opencl
