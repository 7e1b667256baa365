// Host-side math that every backend shares, so that all of them derive the same weights,
// tables and thresholds bit for bit. docs/FILTERS.md gives the formulas.
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <vector>

#include "parfilter/op_set.hpp"

namespace parfilter {

// ---- gray --------------------------------------------------------------------------------
inline constexpr int kGrayShift = 15;  ///< Q15 BT.601 luma, equal to OpenCV's RGB2GRAY
inline constexpr int kGrayR = 9798;
inline constexpr int kGrayG = 19235;
inline constexpr int kGrayB = 3735;

/// The gray value at either depth (at 16 bits the sum reaches 2^31 - 2^16: unsigned).
[[nodiscard]] constexpr int gray_value(int r, int g, int b) {
  return static_cast<int>((static_cast<std::uint32_t>(kGrayR * r) +
                           static_cast<std::uint32_t>(kGrayG * g) +
                           static_cast<std::uint32_t>(kGrayB * b) + (1U << (kGrayShift - 1))) >>
                          kGrayShift);
}

[[nodiscard]] constexpr std::uint8_t gray_of(int r, int g, int b) {
  return static_cast<std::uint8_t>(
      (kGrayR * r + kGrayG * g + kGrayB * b + (1 << (kGrayShift - 1))) >> kGrayShift);
}

// ---- borders -----------------------------------------------------------------------------
/// Maps a coordinate that may lie outside [0, n) to one inside it, for replicate and
/// reflect101 (OpenCV's borderInterpolate). Returns -1 for BorderKind::constant when i is
/// outside, meaning "use the constant". n >= 1.
[[nodiscard]] int border_index(int i, int n, BorderKind kind);

// ---- gaussian ----------------------------------------------------------------------------
inline constexpr int kGaussianTaps = 5;
inline constexpr int kGaussianRadius = 2;
inline constexpr int kGaussianWeightBits = 8;                   ///< 1-D weights sum to 256
inline constexpr int kGaussianShift = 2 * kGaussianWeightBits;  ///< 2-D weights sum to 65536
/// Distinct 2-D weights: q0q0, q0q1, q0q2, q1q1, q1q2, q2q2 (q symmetric about the centre).
inline constexpr int kGaussianDistinctWeights = 6;

/// The quantized 1-D weights q[-2..2], stored as q[0..4]; they sum to 256.
struct GaussianWeights {
  std::array<int, kGaussianTaps> q{};
  /// 2-D weight w(i, j) = q[i] * q[j], i, j in 0..4.
  [[nodiscard]] int weight(int i, int j) const { return q[i] * q[j]; }
};

/// q_i = floor(256 g_i / sum g + 1/2), g_i = exp(-i^2 / (2 sigma^2)), centre adjusted so the
/// sum is 256. sigma > 0. For sigma 1.5: 31, 60, 74, 60, 31.
[[nodiscard]] GaussianWeights gaussian_weights(double sigma);

/// Index 0..5 of the distinct 2-D weight used at tap (i, j), i, j in 0..4.
[[nodiscard]] int gaussian_weight_class(int i, int j);

/// The lookup table lut[k][v] = weight_k * v for the 6 distinct weights and 256 values.
using GaussianLut = std::array<std::array<std::uint32_t, 256>, kGaussianDistinctWeights>;
[[nodiscard]] GaussianLut gaussian_lut(const GaussianWeights& weights);

// ---- sobel -------------------------------------------------------------------------------
/// round(sqrt(n)) for n >= 0, exactly, with halves rounded up.
[[nodiscard]] std::uint32_t isqrt_round(std::uint64_t n);

/// The output sample for gradients gx, gy under `output`, saturated to `top` (255 or 65535).
[[nodiscard]] int sobel_level(int gx, int gy, SobelOutput output, int top);

/// sobel_level at 8 bits.
[[nodiscard]] std::uint8_t sobel_value(int gx, int gy, SobelOutput output);

// ---- histograms and thresholds -----------------------------------------------------------
// Each takes a histogram of L bins (L = 256 or 65536, the levels of the image's depth); the
// HistogramBins overloads are the 8-bit ones.

/// The equalization table of docs/FILTERS.md over L levels; identity when D = 0.
[[nodiscard]] std::vector<std::uint16_t> equalize_levels(std::span<const std::uint64_t> hist);
[[nodiscard]] std::array<std::uint8_t, 256> equalize_lut(const HistogramBins& hist);

/// Otsu's threshold: maximizes the between-class variance, exactly, smallest t on ties.
/// A histogram with fewer than two distinct values gives that value (everything is
/// background); an empty histogram gives 0.
[[nodiscard]] int otsu_threshold(std::span<const std::uint64_t> hist);
[[nodiscard]] inline int otsu_threshold(const HistogramBins& hist) {
  return otsu_threshold(std::span<const std::uint64_t>(hist));
}

/// The integer isodata threshold of docs/FILTERS.md. An empty histogram gives 0.
[[nodiscard]] int isodata_threshold(std::span<const std::uint64_t> hist);
[[nodiscard]] inline int isodata_threshold(const HistogramBins& hist) {
  return isodata_threshold(std::span<const std::uint64_t>(hist));
}

/// `op`'s global threshold of the gray histogram `hist`, by its rule (OpTraits::threshold);
/// std::logic_error for an op without one.
[[nodiscard]] int global_threshold(Op op, std::span<const std::uint64_t> hist);
[[nodiscard]] inline int global_threshold(Op op, const HistogramBins& hist) {
  return global_threshold(op, std::span<const std::uint64_t>(hist));
}

/// The isodata rounds of docs/FILTERS.md for n > 0 values summing to s, where below(t)
/// returns {count, sum} of the values <= t. Wide is an unsigned type that holds s * n
/// exactly (isodata_threshold uses 128 bits; a window of segment --adaptive fits 64). The one
/// definition of the iteration, for callers that keep their own prefix counts. At most L
/// rounds (`levels`).
template <typename Wide, typename Below>
[[nodiscard]] int isodata_rounds(Wide n, Wide s, Below&& below, int levels = kHistogramBins) {
  int t = static_cast<int>(s / n);
  for (int round = 0; round < levels; ++round) {
    const auto [w1, s1] = below(t);
    const Wide w2 = n - static_cast<Wide>(w1);
    const Wide s2 = s - static_cast<Wide>(s1);
    if (w1 == 0 || w2 == 0) break;
    const auto next = static_cast<int>((static_cast<Wide>(s1) * w2 + s2 * static_cast<Wide>(w1)) /
                                       (2 * static_cast<Wide>(w1) * w2));
    if (next == t) break;
    t = next;
  }
  return t;
}

// ---- colour equalization (YCrCb, OpenCV's 8- and 16-bit integer conversions) -------------
template <typename Sample>
struct BasicYCrCb {
  Sample y, cr, cb;
};
using YCrCb = BasicYCrCb<std::uint8_t>;

// Inline, so that per-pixel kernels (colour equalize) compile them into their loops.
namespace ycrcb {
inline constexpr int kShift = 14;  // OpenCV 4.6's RGB2YCrCb_i / YCrCb2RGB_i constants
inline constexpr int kR2Y = 4899;
inline constexpr int kG2Y = 9617;
inline constexpr int kB2Y = 1868;
inline constexpr int kCrFromRMinusY = 11682;
inline constexpr int kCbFromBMinusY = 9241;
inline constexpr int kChromaOffset = 128;
inline constexpr int kRFromCr = 22987;
inline constexpr int kGFromCr = -11698;
inline constexpr int kGFromCb = -5636;
inline constexpr int kBFromCb = 29049;
inline constexpr int kMaxSample = 255;

/// Arithmetic right shift with rounding to nearest (half up): OpenCV's CV_DESCALE.
[[nodiscard]] constexpr int descale(int v) { return (v + (1 << (kShift - 1))) >> kShift; }
[[nodiscard]] constexpr std::uint8_t saturate(int v) {
  return static_cast<std::uint8_t>(v < 0 ? 0 : (v > kMaxSample ? kMaxSample : v));
}
}  // namespace ycrcb

/// Y alone (at most T, no saturation needed). Every term fits 31 bits at 16 bits too.
template <typename Sample = std::uint8_t>
[[nodiscard]] constexpr Sample ycrcb_luma(int r, int g, int b) {
  return static_cast<Sample>(ycrcb::descale(ycrcb::kR2Y * r + ycrcb::kG2Y * g + ycrcb::kB2Y * b));
}

namespace ycrcb {
/// The chroma offset: 128 at 8 bits, 32768 at 16 (OpenCV's ColorChannel<T>::half()).
template <typename Sample>
inline constexpr int kHalf = (1 << (8 * sizeof(Sample))) / 2;
template <typename Sample>
[[nodiscard]] constexpr Sample saturate_to(int v) {
  constexpr int kTop = (1 << (8 * sizeof(Sample))) - 1;
  return static_cast<Sample>(v < 0 ? 0 : (v > kTop ? kTop : v));
}
}  // namespace ycrcb

template <typename Sample = std::uint8_t>
[[nodiscard]] constexpr BasicYCrCb<Sample> rgb_to_ycrcb(int r, int g, int b) {
  using namespace ycrcb;
  const int y = ycrcb_luma<Sample>(r, g, b);
  const int chroma_delta = kHalf<Sample> << kShift;
  const int cr = descale((r - y) * kCrFromRMinusY + chroma_delta);
  const int cb = descale((b - y) * kCbFromBMinusY + chroma_delta);
  return {static_cast<Sample>(y), saturate_to<Sample>(cr), saturate_to<Sample>(cb)};
}

/// Writes r, g, b.
template <typename Sample>
constexpr void ycrcb_to_rgb(BasicYCrCb<Sample> ycc, Sample* rgb) {
  using namespace ycrcb;
  const int y = ycc.y;
  const int cr = ycc.cr - kHalf<Sample>;
  const int cb = ycc.cb - kHalf<Sample>;
  rgb[0] = saturate_to<Sample>(y + descale(cr * kRFromCr));
  rgb[1] = saturate_to<Sample>(y + descale(cb * kGFromCb + cr * kGFromCr));
  rgb[2] = saturate_to<Sample>(y + descale(cb * kBFromCb));
}

// ---- morphology --------------------------------------------------------------------------
/// A structuring element as a mask, built like OpenCV's getStructuringElement. The anchor is
/// (width / 2, height / 2). row_spans[y] = [x0, x1) of the mask's set pixels in row y (every
/// shape's rows are one contiguous run, possibly empty).
struct StructuringElement {
  int width = 0;
  int height = 0;
  int anchor_x = 0;
  int anchor_y = 0;
  std::vector<std::uint8_t> mask;  ///< width * height, 1 where the element is set
  struct Span {
    int x0 = 0;
    int x1 = 0;
  };
  std::vector<Span> row_spans;
  [[nodiscard]] bool at(int x, int y) const { return mask[y * width + x] != 0; }
};

[[nodiscard]] StructuringElement make_structuring_element(const SeSpec& spec);

/// A rectangle of a structuring element, relative to its anchor: output (x, y) reads columns
/// [x + x0, x + x1) and rows [y + y0, y + y1).
struct SeRect {
  int x0 = 0;
  int x1 = 0;
  int y0 = 0;
  int y1 = 0;
  [[nodiscard]] bool contains(const SeRect& o) const {
    return x0 <= o.x0 && x1 >= o.x1 && y0 <= o.y0 && y1 >= o.y1;
  }
};

/// Rectangles whose union is the element, none inside another: for each distinct row span s,
/// the rows whose span covers s form runs, and each run is the rectangle s x run. Every one
/// lies in the element and every set pixel lies in the rectangle of its own row's span. A rect
/// element is one rectangle, a cross two, an ellipse one per distinct span (its spans nest).
/// The CPU and CUDA kernels take the element this way (an erosion is the minimum over the
/// rectangles' minima, each separable).
[[nodiscard]] std::vector<SeRect> structuring_element_rects(const StructuringElement& se);

/// The input rows on either side of an output row that `op` reads with `params`, by its
/// RowReach (the larger side on both, whichever way a backend anchors an even element); 0 for
/// RowReach::stride (pool reads kPoolStride rows per output row, from an even one).
[[nodiscard]] int row_halo_of(Op op, const OpParams& params);

/// One pass of morphology over the structuring element: a minimum or a maximum.
enum class MorphOp : std::uint8_t { erode, dilate };

/// The passes of a morphology op, as OpenCV's morphologyEx runs them: erode or dilate
/// `iterations` times; open erodes `iterations` times then dilates as often, close the reverse.
/// Throws std::logic_error for an op that is not morphology.
[[nodiscard]] std::vector<MorphOp> morphology_steps(Op op, int iterations);

}  // namespace parfilter
