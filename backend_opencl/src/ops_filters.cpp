// gray, gaussian, sobel, sharpen and pool: one or two kernels from a device image to another.
#include <algorithm>
#include <cstdint>
#include <stdexcept>

#include "filter_math.hpp"
#include "ops.hpp"
#include "parfilter/error.hpp"

namespace parfilter::opencl {
namespace {

/// gaussian_quads' strip: in one run on an H200 (7680x4320 RGBA, with dp2a) 8 rows took 0.101
/// ms against 0.103 for 6 and 0.111 for 4: 158 registers, but each row's sums serve more outputs.
constexpr std::size_t kGaussianQuadStripRows = 8;

constexpr std::string_view kGaussianProgram = "gaussian";
constexpr std::string_view kSobelProgram = "sobel";
constexpr std::string_view kSharpenProgram = "sharpen";
constexpr std::string_view kGaussianQuadsProgram = "gaussian_quads";
constexpr std::size_t kSharpenLanes = 4;  ///< samples per work item of sharpen_vector
constexpr std::size_t kSobelLanes = 16;   ///< pixels per work item of sobel_vload16
/// The stream kernels (gaussian_tile, sharpen_tile, sobel_tile): a work item per output column,
/// the input rows per pass through local memory (rounded down to whole runs of the rows an
/// output reads) and the output rows per work-group. On an H200 (7680x4320 RGBA) strips of 32
/// rows beat 64 and 128 by 5-20%, and one pixel per work item beat two and four.
constexpr std::size_t kStreamItems = 128;
constexpr int kStreamChunkRows = 16;
constexpr std::size_t kStreamStripRows = 32;

std::size_t ceil_div(std::size_t n, std::size_t d) { return (n + d - 1) / d; }

/// Runs a stream kernel over `in`'s strips; `rows` is how many input rows an output reads.
template <typename... Args>
void run_stream(Lane& rt, std::string_view program, std::string_view kernel, Defines defines,
                int rows, const DeviceImage& in, const Args&... args) {
  defines.add("TILE_ITEMS", static_cast<long long>(kStreamItems));
  defines.add("TILE_STRIP", static_cast<long long>(kStreamStripRows));
  defines.add("TILE_CHUNK", std::max(1, kStreamChunkRows / rows) * rows);
  rt.run(program, kernel, defines,
         {ceil_div(in.pixels().x, kStreamItems) * kStreamItems,
          ceil_div(in.pixels().y, kStreamStripRows)},
         {kStreamItems, 1}, args...);
}

}  // namespace

DeviceImage run_gray(Lane& rt, const DeviceImage& in) {
  return {gray_plane(rt, in.buffer(), in.width(), in.height(), in.channels()), in.width(),
          in.height(), 1};
}

DeviceImage run_gaussian(Lane& rt, const DeviceImage& in, const OpParams& params,
                         std::string_view variant) {
  Buffer out = rt.buffer(in.bytes(), "gaussian output");
  const GaussianWeights weights = gaussian_weights(params.sigma);
  cl_int8 q{};
  for (int k = 0; k < kGaussianTaps; ++k) q.s[k] = weights.q[static_cast<std::size_t>(k)];
  const int border_kind = static_cast<int>(params.border.kind);
  const int border_value = params.border.value;
  const Defines defines = image_defines(in.channels());
  const bool words = variant == kGaussianTile || variant == kGaussianQuads;
  if (words && in.channels() != kRgbaChannels) variant = kGaussianStrip;
  if (variant == kGaussianQuads) {
    Defines quads = quad_strip_defines(defines, kGaussianQuadStripRows);
    const bool byte_weights =
        std::all_of(weights.q.begin(), weights.q.end(), [](int v) { return v <= UINT8_MAX; });
    quads.add("BYTE_WEIGHTS", byte_weights ? 1 : 0);
    rt.run(kGaussianQuadsProgram, "gaussian_quads", quads,
           quad_strip_items(in.pixels(), kGaussianQuadStripRows), quad_strip_group(), in.buffer(),
           out, in.width(), in.height(), border_kind, border_value, q);
  } else if (variant == kGaussianTile) {
    run_stream(rt, kGaussianProgram, "gaussian_tile", defines, kGaussianTaps, in, in.buffer(), out,
               in.width(), in.height(), border_kind, border_value, q);
  } else if (variant == kGaussianLut) {
    const GaussianLut lut = gaussian_lut(weights);
    std::array<cl_int, kGaussianTaps * kGaussianTaps> classes{};
    for (int j = 0; j < kGaussianTaps; ++j) {
      for (int i = 0; i < kGaussianTaps; ++i) {
        classes[static_cast<std::size_t>(j * kGaussianTaps + i)] = gaussian_weight_class(i, j);
      }
    }
    const Buffer lut_buffer = rt.upload(lut.data(), sizeof(lut), "gaussian lut");
    const Buffer class_buffer = rt.upload(classes.data(), sizeof(classes), "gaussian classes");
    rt.run(kGaussianProgram, "gaussian_lut", defines, in.pixels(), kTile, in.buffer(), out,
           in.width(), in.height(), border_kind, border_value, lut_buffer, class_buffer);
  } else if (variant == kGaussianStrip || variant == kGaussianVector) {
    const bool vector = variant == kGaussianVector;
    const std::size_t row_samples = in.pixels().x * static_cast<std::size_t>(in.channels());
    const Range strips{vector ? ceil_div(row_samples, kVectorLanes) : in.pixels().x,
                       ceil_div(in.pixels().y, static_cast<std::size_t>(kStripRows))};
    rt.run(kGaussianProgram, vector ? "gaussian_vector" : "gaussian_strip", defines, strips, kTile,
           in.buffer(), out, in.width(), in.height(), border_kind, border_value, q);
  } else if (variant == kGaussianSeparable || variant == kGaussianDirect) {
    const char* kernel = variant == kGaussianSeparable ? "gaussian_separable" : "gaussian_direct";
    rt.run(kGaussianProgram, kernel, defines, in.pixels(), kTile, in.buffer(), out, in.width(),
           in.height(), border_kind, border_value, q);
  } else {
    throw std::logic_error("run_gaussian: unknown variant");
  }
  return {out, in.width(), in.height(), in.channels()};
}

DeviceImage run_sobel(Lane& rt, const DeviceImage& in, const OpParams& params,
                      std::string_view variant) {
  constexpr int kSobelRows = 3;
  const auto border_kind = static_cast<int>(params.border.kind);
  const auto border_value = static_cast<int>(params.border.value);
  // The output mode is compiled in: a program per mode.
  const auto with_mode = [&](Defines defines) {
    defines.add("SOBEL_MODE", static_cast<int>(params.sobel_output));
    return defines;
  };
  Buffer out = rt.buffer(image_bytes(in.width(), in.height(), 1), "sobel output");
  if (variant == kSobelTile) {
    run_stream(rt, kSobelProgram, "sobel_tile", with_mode(image_defines(in.channels())), kSobelRows,
               in, in.buffer(), out, in.width(), in.height(), border_kind, border_value);
  } else if (variant == kSobelQuads) {
    rt.run(kSobelProgram, "sobel_quads",
           quad_strip_defines(with_mode(image_defines(in.channels()))),
           quad_strip_items(in.pixels()), quad_strip_group(), in.buffer(), out, in.width(),
           in.height(), border_kind, border_value);
  } else {
    const Buffer gray = gray_plane(rt, in.buffer(), in.width(), in.height(), in.channels());
    const bool vector = variant == kSobelVload16;
    const Range items =
        vector ? Range{ceil_div(in.pixels().x, kSobelLanes), in.pixels().y} : in.pixels();
    rt.run(kSobelProgram, vector ? "sobel_vload16" : "sobel_scalar", with_mode(image_defines(1)),
           items, kTile, gray, out, in.width(), in.height(), border_kind, border_value);
  }
  return {out, in.width(), in.height(), 1};
}

DeviceImage run_sharpen(Lane& rt, const DeviceImage& in, const OpParams& params,
                        std::string_view variant) {
  Buffer out = rt.buffer(in.bytes(), "sharpen output");
  const bool words = variant == kSharpenTile || variant == kSharpenQuads;
  if (words && in.channels() != kRgbaChannels) variant = kSharpenVector;
  if (variant == kSharpenQuads) {
    rt.run(kSharpenProgram, "sharpen_quads", quad_strip_defines(image_defines(in.channels())),
           quad_strip_items(in.pixels()), quad_strip_group(), in.buffer(), out, in.width(),
           in.height(), static_cast<int>(params.border.kind),
           static_cast<int>(params.border.value));
    return {out, in.width(), in.height(), in.channels()};
  }
  if (variant == kSharpenTile) {
    constexpr int kSharpenRows = 3;
    run_stream(rt, kSharpenProgram, "sharpen_tile", image_defines(in.channels()), kSharpenRows, in,
               in.buffer(), out, in.width(), in.height(), static_cast<int>(params.border.kind),
               static_cast<int>(params.border.value));
    return {out, in.width(), in.height(), in.channels()};
  }
  const std::size_t row_samples = in.pixels().x * static_cast<std::size_t>(in.channels());
  Range items = in.pixels();
  const char* kernel = "sharpen_local";
  if (variant == kSharpenNaive) {
    kernel = "sharpen_naive";
    items.x = row_samples;
  } else if (variant == kSharpenVector) {
    kernel = "sharpen_vector";
    items.x = ceil_div(row_samples, kSharpenLanes);
  }
  rt.run(kSharpenProgram, kernel, image_defines(in.channels()), items, kTile, in.buffer(), out,
         in.width(), in.height(), static_cast<int>(params.border.kind),
         static_cast<int>(params.border.value));
  return {out, in.width(), in.height(), in.channels()};
}

DeviceImage run_pool(Lane& rt, const DeviceImage& in) {
  const int out_width = pool_extent(in.width());
  const int out_height = pool_extent(in.height());
  Buffer out = rt.buffer(image_bytes(out_width, out_height, in.channels()), "pool output");
  // pool2x2_pairs reads a quad of input pixels per row, aligned when the width is a multiple.
  constexpr int kPairInputPixels = 4;
  const bool pairs = in.width() % kPairInputPixels == 0;
  const std::size_t items =
      pairs ? static_cast<std::size_t>(out_width / 2) : static_cast<std::size_t>(out_width);
  rt.run(kPointProgram, pairs ? "pool2x2_pairs" : "pool2x2", image_defines(in.channels()),
         {items, static_cast<std::size_t>(out_height)}, kTile, in.buffer(), out, in.width(),
         in.height());
  return {out, out_width, out_height, in.channels()};
}

}  // namespace parfilter::opencl
