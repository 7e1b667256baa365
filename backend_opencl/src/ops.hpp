// The host side of the ops: a device image in, kernels, host math (filter_math) between them, a
// device image out. Each run_*_op enqueues on a lane whose image has begun (cl_lane.hpp); the
// transfers between the host and the device are the chain's (cl_chain.cpp).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "cl_lane.hpp"
#include "parfilter/image.hpp"
#include "parfilter/op_set.hpp"

namespace parfilter::opencl {

// Variant names; each op's list, its default first, is in its file (ops/<op>.cpp).
inline constexpr std::string_view kDefaultVariant = "default";
inline constexpr std::string_view kGaussianDirect = "direct";
inline constexpr std::string_view kGaussianLut = "lut";
inline constexpr std::string_view kGaussianSeparable = "separable";
inline constexpr std::string_view kGaussianStrip = "strip";
inline constexpr std::string_view kGaussianVector = "vector";
inline constexpr std::string_view kGaussianTile = "tile";
inline constexpr std::string_view kGaussianQuads = "quads";
inline constexpr std::string_view kSobelScalar = "scalar";
inline constexpr std::string_view kSobelVload16 = "vload16";
inline constexpr std::string_view kSobelTile = "tile";
inline constexpr std::string_view kSobelQuads = "quads";
inline constexpr std::string_view kSharpenNaive = "naive";
inline constexpr std::string_view kSharpenVector = "vector";
inline constexpr std::string_view kSharpenLocal = "local";
inline constexpr std::string_view kSharpenTile = "tile";
inline constexpr std::string_view kSharpenQuads = "quads";
inline constexpr std::string_view kHistogramLocalAtomics = "local-atomics";
inline constexpr std::string_view kHistogramTwoKernel = "two-kernel";
inline constexpr std::string_view kSegmentColumns = "columns";
inline constexpr std::string_view kSegmentWorkgroup = "workgroup";
inline constexpr std::string_view kSegmentPrivate = "private";
/// Morphology's default: on a GPU quads, the tile for rects, levels, spans, the tile, rows or
/// columns; on a CPU vhgw for large rects, else vector or columns (ops_morphology.cpp,
/// chosen_variant).
inline constexpr std::string_view kMorphDefault = "default";
inline constexpr std::string_view kMorphNaive = "naive";
inline constexpr std::string_view kMorphVector = "vector";
inline constexpr std::string_view kMorphImage2d = "image2d";
inline constexpr std::string_view kMorphColumns = "columns";
inline constexpr std::string_view kMorphVhgw = "vhgw";
inline constexpr std::string_view kMorphRows = "rows";
inline constexpr std::string_view kMorphTile = "tile";
inline constexpr std::string_view kMorphSpans = "spans";
inline constexpr std::string_view kMorphQuads = "quads";
inline constexpr std::string_view kMorphLevels = "levels";

/// `variant`, or for "default" the schedule that suits the lane's device: `on_cpu` on a CPU
/// device (PoCL), `on_gpu` on any other.
[[nodiscard]] std::string_view device_schedule(const Lane& rt, std::string_view variant,
                                               std::string_view on_cpu, std::string_view on_gpu);
/// The histogram op's schedule for `variant` ("default": by device).
[[nodiscard]] std::string_view histogram_schedule(const Lane& rt, std::string_view variant);
/// The variants of an op with one kernel schedule, on any device.
[[nodiscard]] std::vector<std::string> default_variant_only();
/// The morphology ops' variants (erode, dilate, open, close), on any device.
[[nodiscard]] std::vector<std::string> morphology_variants();

/// The channel count of the pixel-word kernels (an RGBA pixel is one 32-bit word).
inline constexpr int kRgbaChannels = 4;
/// The work-group shape of the 2-D kernels, and of the tiled ones (TILE_W x TILE_H).
inline constexpr Range kTile{16, 16};
/// Output rows per work item of the strip kernels, and samples per work item of the 16-lane
/// vector kernels.
inline constexpr int kStripRows = 16;
inline constexpr std::size_t kVectorLanes = 16;
/// Work-group size of the 1-D kernels.
inline constexpr std::size_t kGroup1d = 256;
/// The program of the per-pixel kernels (kernels/point.cl).
inline constexpr std::string_view kPointProgram = "point";
/// The flat point kernels' work items: one per quad of four pixels.
[[nodiscard]] Range quad_range(std::uint64_t pixels);
/// The quads stencils (gaussian_, sobel_, sharpen_ and morph_quads): a quad of columns and a strip
/// of rows per work item, all the strip's input rows loaded before any arithmetic. Their
/// QUAD_STRIP define, work items over a width x height image and work-group.
/// Their strip: on an H200 (7680x4320 RGBA) 4 rows beat 2, 6, 8 and 16 for sobel in groups of
/// 64 x 1 (0.065 ms against 0.067-0.080), and in groups of 32 x 4 tied 5 and beat 3 (0.063
/// against 0.067); they came within 3% of the best (8) for sharpen and erode 3x3. Gaussian
/// takes its own (ops_filters.cpp).
inline constexpr std::size_t kQuadStripRows = 4;
[[nodiscard]] Defines quad_strip_defines(Defines defines, std::size_t rows = kQuadStripRows);
[[nodiscard]] Range quad_strip_items(Range pixels, std::size_t rows = kQuadStripRows);
[[nodiscard]] Range quad_strip_group();
/// Runs point.cl's flat kernel `kernel`(src, dst, pixels, extra...) over the quads of `pixels`.
template <typename... Extra>
void run_quads(Lane& rt, std::string_view kernel, const Defines& defines, const Buffer& src,
               const Buffer& dst, std::uint64_t pixels, const Extra&... extra) {
  rt.run(kPointProgram, kernel, defines, quad_range(pixels), {kGroup1d, 1}, src, dst,
         cl_ulong{pixels}, extra...);
}

[[nodiscard]] std::size_t image_bytes(int width, int height, int channels);
/// An image on the device: width x height pixels of `channels` samples, rows packed.
class DeviceImage {
 public:
  DeviceImage() = default;
  DeviceImage(Buffer buffer, int width, int height, int channels)
      : buffer_(std::move(buffer)), width_(width), height_(height), channels_(channels) {}

  [[nodiscard]] const Buffer& buffer() const { return buffer_; }
  [[nodiscard]] int width() const { return width_; }
  [[nodiscard]] int height() const { return height_; }
  [[nodiscard]] int channels() const { return channels_; }
  [[nodiscard]] Range pixels() const {
    return {static_cast<std::size_t>(width_), static_cast<std::size_t>(height_)};
  }
  [[nodiscard]] std::size_t bytes() const { return image_bytes(width_, height_, channels_); }

 private:
  Buffer buffer_;
  int width_ = 0;
  int height_ = 0;
  int channels_ = 0;
};

/// What an op leaves: an image on the device (none for histogram), the histograms (counts on
/// the host), the threshold (otsu, segment).
struct DeviceResult {
  DeviceImage image;
  std::vector<HistogramBins> histogram;
  std::optional<int> threshold;
};

/// The result of an op that leaves an image alone.
[[nodiscard]] inline DeviceResult image_result(DeviceImage image) {
  return DeviceResult{std::move(image), {}, {}};
}

/// "-D CN=<channels>" plus the tile shape.
[[nodiscard]] Defines image_defines(int channels);

/// The gray plane of a device image: the image itself when it has one channel.
[[nodiscard]] Buffer gray_plane(Lane& rt, const Buffer& image, int width, int height, int channels);

/// The histogram of `count` samples buffer[i * stride + offset], with the histogram variant
/// `method` (kHistogramLocalAtomics or kHistogramTwoKernel).
[[nodiscard]] HistogramBins device_histogram(Lane& rt, const Buffer& buffer, std::uint64_t count,
                                             int stride, int offset, std::string_view method);

// The ops' host steps, each enqueued on `rt`'s queue; a host step between kernels (the
// histogram ops' counts) waits for the queue there. `variant` is params.variant resolved.
// ops_filters.cpp
[[nodiscard]] DeviceImage run_gray(Lane& rt, const DeviceImage& in);
[[nodiscard]] DeviceImage run_gaussian(Lane& rt, const DeviceImage& in, const OpParams& params,
                                       std::string_view variant);
[[nodiscard]] DeviceImage run_sobel(Lane& rt, const DeviceImage& in, const OpParams& params,
                                    std::string_view variant);
[[nodiscard]] DeviceImage run_sharpen(Lane& rt, const DeviceImage& in, const OpParams& params,
                                      std::string_view variant);
[[nodiscard]] DeviceImage run_pool(Lane& rt, const DeviceImage& in);
// ops_histogram.cpp
[[nodiscard]] std::vector<HistogramBins> run_histogram(Lane& rt, const DeviceImage& input,
                                                       const OpParams& params,
                                                       std::string_view variant);
[[nodiscard]] DeviceImage run_equalize(Lane& rt, const DeviceImage& input);
/// otsu and segment.
[[nodiscard]] DeviceResult run_thresholding(Lane& rt, Op op, const DeviceImage& input,
                                            const OpParams& params, std::string_view variant);
// ops_morphology.cpp: erode, dilate, open and close.
[[nodiscard]] DeviceResult run_morphology_op(Lane& rt, Op op, const DeviceImage& input,
                                             const OpParams& params, std::string_view variant);

}  // namespace parfilter::opencl
