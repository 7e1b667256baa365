// Host math shared by every backend: border mapping, Gaussian weights and tables, the exact
// integer square root, histogram tables and thresholds, the YCrCb conversion and the
// structuring elements. docs/FILTERS.md is the spec each function implements.
#include "filter_math.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <stdexcept>
#include <string>
#include <type_traits>

namespace parfilter {
namespace {

// GCC and Clang provide 128-bit integers as an extension; __extension__ keeps -Wpedantic quiet.
__extension__ using Int128 = __int128;
__extension__ using UInt128 = unsigned __int128;

constexpr int kMaxSample = 255;

// ---- a small exact unsigned 256-bit integer, for Otsu's cross-multiplied comparison -------
// 384 bits: at 16 bits, (N S0 - S W0)^2 W0 W1 reaches 2^272 for N < 2^40.
constexpr int kWideLimbs = 6;
constexpr int kLimbBits = 64;
using Wide = std::array<std::uint64_t, kWideLimbs>;  // little-endian 64-bit limbs

Wide to_wide(UInt128 v) {
  Wide wide{};
  wide[0] = static_cast<std::uint64_t>(v);
  wide[1] = static_cast<std::uint64_t>(v >> kLimbBits);
  return wide;
}

/// a * b truncated to 384 bits; callers keep the true product below 2^384.
Wide multiply(const Wide& a, const Wide& b) {
  Wide result{};
  for (int i = 0; i < kWideLimbs; ++i) {
    std::uint64_t carry = 0;
    for (int j = 0; i + j < kWideLimbs; ++j) {
      const UInt128 cell = static_cast<UInt128>(a[i]) * b[j] + result[i + j] + carry;
      result[i + j] = static_cast<std::uint64_t>(cell);
      carry = static_cast<std::uint64_t>(cell >> kLimbBits);
    }
  }
  return result;
}

bool greater(const Wide& a, const Wide& b) {
  for (int i = kWideLimbs - 1; i >= 0; --i) {
    if (a[i] != b[i]) return a[i] > b[i];
  }
  return false;
}

// The same on 128 bits, where Otsu's products fit (fits_in_128).
UInt128 multiply(UInt128 a, UInt128 b) { return a * b; }
bool greater(UInt128 a, UInt128 b) { return a > b; }

/// Otsu's exact comparison needs N < 2^40 so that its products stay below 2^384.
constexpr std::uint64_t kMaxOtsuPixels = std::uint64_t{1} << 40;

}  // namespace

// ---- borders -------------------------------------------------------------------------------
int border_index(int i, int n, BorderKind kind) {
  if (i >= 0 && i < n) return i;
  switch (kind) {
    case BorderKind::replicate:
      return i < 0 ? 0 : n - 1;
    case BorderKind::reflect101:
      if (n == 1) return 0;
      // OpenCV's borderInterpolate: reflect about the edge pixels until inside.
      while (i < 0 || i >= n) {
        i = i < 0 ? -i : 2 * n - 2 - i;
      }
      return i;
    case BorderKind::constant:
      return -1;
  }
  return -1;
}

// ---- gaussian ------------------------------------------------------------------------------
GaussianWeights gaussian_weights(double sigma) {
  if (!(sigma > 0.0) || !std::isfinite(sigma)) {
    throw std::invalid_argument("gaussian_weights: sigma must be positive and finite");
  }
  constexpr int kWeightSum = 1 << kGaussianWeightBits;
  std::array<double, kGaussianTaps> g{};
  double g_sum = 0.0;
  for (int k = 0; k < kGaussianTaps; ++k) {
    const double i = k - kGaussianRadius;
    g[k] = std::exp(-(i * i) / (2.0 * sigma * sigma));
    g_sum += g[k];
  }
  GaussianWeights weights;
  int q_sum = 0;
  for (int k = 0; k < kGaussianTaps; ++k) {
    weights.q[k] = static_cast<int>(std::floor(kWeightSum * g[k] / g_sum + 0.5));
    q_sum += weights.q[k];
  }
  weights.q[kGaussianRadius] += kWeightSum - q_sum;
  return weights;
}

int gaussian_weight_class(int i, int j) {
  // Distances from the centre, smaller first: (0,0) (0,1) (0,2) (1,1) (1,2) (2,2).
  const int a = std::min(std::abs(i - kGaussianRadius), std::abs(j - kGaussianRadius));
  const int b = std::max(std::abs(i - kGaussianRadius), std::abs(j - kGaussianRadius));
  constexpr std::array<std::array<int, kGaussianRadius + 1>, kGaussianRadius + 1> kClass = {{
      {0, 1, 2},
      {1, 3, 4},
      {2, 4, 5},
  }};
  return kClass[a][b];
}

GaussianLut gaussian_lut(const GaussianWeights& weights) {
  std::array<std::uint32_t, kGaussianDistinctWeights> class_weight{};
  for (int i = 0; i < kGaussianTaps; ++i) {
    for (int j = 0; j < kGaussianTaps; ++j) {
      class_weight[gaussian_weight_class(i, j)] = static_cast<std::uint32_t>(weights.weight(i, j));
    }
  }
  GaussianLut lut{};
  for (int k = 0; k < kGaussianDistinctWeights; ++k) {
    for (std::uint32_t v = 0; v <= kMaxSample; ++v) lut[k][v] = class_weight[k] * v;
  }
  return lut;
}

// ---- sobel ---------------------------------------------------------------------------------
std::uint32_t isqrt_round(std::uint64_t n) {
  constexpr std::uint64_t kMaxRoot = std::numeric_limits<std::uint32_t>::max();
  // floor(sqrt(n)) from the double estimate, corrected to be exact.
  auto r = static_cast<std::uint64_t>(std::sqrt(static_cast<double>(n)));
  r = std::min(r, kMaxRoot);
  while (r * r > n) --r;
  while (r < kMaxRoot && (r + 1) * (r + 1) <= n) ++r;
  // sqrt(n) >= r + 1/2  <=>  n >= r^2 + r + 1/4  <=>  n > r^2 + r (n is an integer), so the
  // exact half never occurs and "half up" only matters in the spec's wording.
  if (r < kMaxRoot && n > r * r + r) ++r;
  return static_cast<std::uint32_t>(r);
}

int sobel_level(int gx, int gy, SobelOutput output, int top) {
  const int ax = std::abs(gx);
  const int ay = std::abs(gy);
  switch (output) {
    case SobelOutput::magnitude: {
      const auto sq = static_cast<std::uint64_t>(ax) * static_cast<std::uint64_t>(ax) +
                      static_cast<std::uint64_t>(ay) * static_cast<std::uint64_t>(ay);
      return static_cast<int>(
          std::min<std::uint32_t>(isqrt_round(sq), static_cast<std::uint32_t>(top)));
    }
    case SobelOutput::l1:
      return std::min(ax + ay, top);
    case SobelOutput::dx:
      return std::min(ax, top);
    case SobelOutput::dy:
      return std::min(ay, top);
  }
  return 0;
}

std::uint8_t sobel_value(int gx, int gy, SobelOutput output) {
  return static_cast<std::uint8_t>(sobel_level(gx, gy, output, kMaxSample));
}

// ---- histograms and thresholds -------------------------------------------------------------
std::vector<std::uint16_t> equalize_levels(std::span<const std::uint64_t> hist) {
  const int levels = static_cast<int>(hist.size());
  const auto top = static_cast<UInt128>(levels - 1);
  std::vector<std::uint16_t> lut(hist.size());
  for (int v = 0; v < levels; ++v) lut[v] = static_cast<std::uint16_t>(v);

  std::uint64_t total = 0;
  for (const auto count : hist) total += count;
  int vmin = 0;
  while (vmin < levels && hist[vmin] == 0) ++vmin;
  if (vmin == levels) return lut;  // empty: identity
  const std::uint64_t d = total - hist[vmin];
  if (d == 0) return lut;  // one value only: the image is unchanged

  // lut(v) = floor((2 * T * c(v) + D) / (2 D)): T c(v) / D rounded half up.
  UInt128 c = 0;
  for (int v = 0; v < levels; ++v) {
    if (v > vmin) c += hist[v];
    lut[v] = v < vmin
                 ? 0
                 : static_cast<std::uint16_t>((2 * top * c + d) / (static_cast<UInt128>(2) * d));
  }
  return lut;
}

std::array<std::uint8_t, 256> equalize_lut(const HistogramBins& hist) {
  const std::vector<std::uint16_t> levels = equalize_levels(hist);
  std::array<std::uint8_t, 256> lut{};
  std::copy(levels.begin(), levels.end(), lut.begin());
  return lut;
}

namespace {

/// Whether Otsu's products fit 128 bits: |N S0 - S W0| <= N S and W0 W1 < N^2, so each side
/// of the comparison is below (N S N)^2, which is below 2^128 when N S N is below 2^64.
bool fits_in_128(std::uint64_t n, std::uint64_t s) {
  constexpr int kHalfBits = 64;
  const UInt128 ns = static_cast<UInt128>(n) * s;  // n < 2^40, s < 2^56: no overflow
  const auto high = static_cast<std::uint64_t>(ns >> kHalfBits);
  const int ns_bits =
      high != 0 ? kHalfBits + std::bit_width(high) : std::bit_width(static_cast<std::uint64_t>(ns));
  return ns_bits + std::bit_width(n) <= kHalfBits;
}

template <typename Number>
Number to_number(UInt128 v) {
  if constexpr (std::is_same_v<Number, Wide>) {
    return to_wide(v);
  } else {
    return v;
  }
}

/// The threshold of maximal between-class variance: N^2 times it is (N S0 - S W0)^2 / (W0 W1),
/// compared by cross-multiplying, exactly, in `Number`. Class 0 holds the values <= t.
template <typename Number>
int otsu_search(std::span<const std::uint64_t> hist, std::uint64_t n, std::uint64_t s) {
  const int levels = static_cast<int>(hist.size());
  Number best_num{};
  Number best_den{};
  int best_t = -1;
  std::uint64_t w0 = 0;
  std::uint64_t s0 = 0;
  for (int t = 0; t < levels - 1; ++t) {
    w0 += hist[t];
    s0 += hist[t] * static_cast<std::uint64_t>(t);
    const std::uint64_t w1 = n - w0;
    if (w0 == 0 || w1 == 0) continue;
    const Int128 diff = static_cast<Int128>(n) * s0 - static_cast<Int128>(s) * w0;
    const UInt128 abs_diff = diff < 0 ? static_cast<UInt128>(-diff) : static_cast<UInt128>(diff);
    const Number root = to_number<Number>(abs_diff);
    const Number num = multiply(root, root);
    const Number den = to_number<Number>(static_cast<UInt128>(w0) * w1);
    if (best_t < 0 || greater(multiply(num, best_den), multiply(best_num, den))) {
      best_num = num;
      best_den = den;
      best_t = t;
    }
  }
  return best_t;
}

}  // namespace

int otsu_threshold(std::span<const std::uint64_t> hist) {
  const int levels = static_cast<int>(hist.size());
  std::uint64_t n = 0;
  std::uint64_t s = 0;
  int distinct = 0;
  int last_value = 0;
  for (int v = 0; v < levels; ++v) {
    n += hist[v];
    s += hist[v] * static_cast<std::uint64_t>(v);
    if (hist[v] != 0) {
      ++distinct;
      last_value = v;
    }
  }
  if (distinct == 0) return 0;
  if (distinct == 1) return last_value;
  if (n >= kMaxOtsuPixels) {
    throw std::invalid_argument("otsu_threshold: more than 2^40 pixels");
  }

  // Exact either way; 128 bits where the products fit (small images), 384 otherwise.
  return fits_in_128(n, s) ? otsu_search<UInt128>(hist, n, s) : otsu_search<Wide>(hist, n, s);
}

int isodata_threshold(std::span<const std::uint64_t> hist) {
  const int levels = static_cast<int>(hist.size());
  // Prefix counts and sums make each round O(1).
  std::vector<std::uint64_t> count_upto(hist.size());
  std::vector<std::uint64_t> sum_upto(hist.size());
  std::uint64_t n = 0;
  std::uint64_t s = 0;
  for (int v = 0; v < levels; ++v) {
    n += hist[v];
    s += hist[v] * static_cast<std::uint64_t>(v);
    count_upto[v] = n;
    sum_upto[v] = s;
  }
  if (n == 0) return 0;
  return isodata_rounds<UInt128>(
      n, s,
      [&](int t) {
        return std::pair<UInt128, UInt128>{count_upto[t], sum_upto[t]};
      },
      levels);
}

// ---- morphology ----------------------------------------------------------------------------
StructuringElement make_structuring_element(const SeSpec& spec) {
  if (spec.width < 1 || spec.height < 1 || spec.width > kMaxSeSize || spec.height > kMaxSeSize) {
    throw std::invalid_argument("make_structuring_element: bad size " + to_string(spec));
  }
  StructuringElement se;
  se.width = spec.width;
  se.height = spec.height;
  se.anchor_x = spec.width / 2;
  se.anchor_y = spec.height / 2;
  se.mask.assign(static_cast<std::size_t>(se.width) * se.height, 0);
  se.row_spans.resize(se.height);
  // OpenCV's getStructuringElement: a 1x1 element is a rect whatever its shape.
  const SeShape shape = (se.width == 1 && se.height == 1) ? SeShape::rect : spec.shape;
  const int r = se.height / 2;
  const int c = se.width / 2;
  const double inv_r2 = r != 0 ? 1.0 / (static_cast<double>(r) * r) : 0.0;
  for (int y = 0; y < se.height; ++y) {
    int x0 = 0;
    int x1 = 0;
    if (shape == SeShape::rect || (shape == SeShape::cross && y == se.anchor_y)) {
      x1 = se.width;
    } else if (shape == SeShape::cross) {
      x0 = se.anchor_x;
      x1 = x0 + 1;
    } else {
      const int dy = y - r;
      if (std::abs(dy) <= r) {
        // cvRound: round half to even, as std::lrint in the default rounding mode.
        const int dx = static_cast<int>(std::lrint(c * std::sqrt((r * r - dy * dy) * inv_r2)));
        x0 = std::max(c - dx, 0);
        x1 = std::min(c + dx + 1, se.width);
      }
    }
    se.row_spans[y] = {x0, x1};
    for (int x = x0; x < x1; ++x) se.mask[static_cast<std::size_t>(y) * se.width + x] = 1;
  }
  return se;
}

std::vector<SeRect> structuring_element_rects(const StructuringElement& se) {
  using Span = StructuringElement::Span;
  std::vector<Span> spans;
  for (const Span& s : se.row_spans) {
    const bool seen = std::any_of(spans.begin(), spans.end(),
                                  [&](const Span& t) { return t.x0 == s.x0 && t.x1 == s.x1; });
    if (s.x1 > s.x0 && !seen) spans.push_back(s);
  }
  const auto covers = [&](int j, const Span& s) {
    const Span& row = se.row_spans[static_cast<std::size_t>(j)];
    return row.x0 <= s.x0 && row.x1 >= s.x1;
  };
  std::vector<SeRect> rects;
  for (const Span& s : spans) {
    for (int j = 0; j < se.height;) {
      if (!covers(j, s)) {
        ++j;
        continue;
      }
      int end = j;
      while (end < se.height && covers(end, s)) ++end;
      rects.push_back({s.x0 - se.anchor_x, s.x1 - se.anchor_x, j - se.anchor_y, end - se.anchor_y});
      j = end;
    }
  }
  // A rectangle inside another one adds nothing; of two equal ones, the first stays.
  std::vector<SeRect> kept;
  for (std::size_t i = 0; i < rects.size(); ++i) {
    bool inside = false;
    for (std::size_t k = 0; k < rects.size() && !inside; ++k) {
      inside = k != i && rects[k].contains(rects[i]) && (!rects[i].contains(rects[k]) || k < i);
    }
    if (!inside) kept.push_back(rects[i]);
  }
  return kept;
}

std::vector<MorphOp> morphology_steps(Op op, int iterations) {
  const auto repeat = [iterations](std::vector<MorphOp>& steps, MorphOp step) {
    steps.insert(steps.end(), static_cast<std::size_t>(iterations), step);
  };
  std::vector<MorphOp> steps;
  switch (op_info(op).traits.morphology) {
    case MorphologyOrder::erode:
      repeat(steps, MorphOp::erode);
      break;
    case MorphologyOrder::dilate:
      repeat(steps, MorphOp::dilate);
      break;
    case MorphologyOrder::erode_then_dilate:
      repeat(steps, MorphOp::erode);
      repeat(steps, MorphOp::dilate);
      break;
    case MorphologyOrder::dilate_then_erode:
      repeat(steps, MorphOp::dilate);
      repeat(steps, MorphOp::erode);
      break;
    case MorphologyOrder::none:
      throw std::logic_error("morphology_steps: not a morphology op");
  }
  return steps;
}

int row_halo_of(Op op, const OpParams& params) {
  const OpTraits& traits = op_info(op).traits;
  switch (traits.reach) {
    case RowReach::none:
    case RowReach::stride:
      return 0;
    case RowReach::radius:
      return traits.radius;
    case RowReach::element: {
      const bool two_kinds = traits.morphology == MorphologyOrder::erode_then_dilate ||
                             traits.morphology == MorphologyOrder::dilate_then_erode;
      // The anchor is height / 2: the rows below it, height - 1 - height / 2, are never more.
      return (two_kinds ? 2 : 1) * params.iterations * (params.se.height / 2);
    }
    case RowReach::window:
      return params.adaptive ? params.window / 2 : 0;
  }
  return 0;
}

int global_threshold(Op op, std::span<const std::uint64_t> hist) {
  switch (op_info(op).traits.threshold) {
    case ThresholdRule::otsu:
      return otsu_threshold(hist);
    case ThresholdRule::isodata:
      return isodata_threshold(hist);
    case ThresholdRule::none:
      break;
  }
  throw std::logic_error("global_threshold: " + std::string(op_info(op).name) +
                         " has no threshold rule");
}

}  // namespace parfilter
