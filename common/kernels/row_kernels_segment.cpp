// segment --adaptive: each pixel's isodata threshold over its window (clipped to the image),
// with the sliding histograms of Perreault and Hebert's constant-time median filter.
//
// - Column histograms: for each image column, the histogram of its pixels in the window's
//   rows. Moving down one row drops the leaving row and adds the entering one: two updates
//   per column, whatever the window.
// - The window's histogram slides along the row: add the entering column's histogram, drop
//   the leaving one. It has two levels, 16 coarse bins of 16 values (counts and sums), kept
//   current at every step (16-lane vector adds), and the 256 fine counts, brought up to date
//   lazily, one coarse bin at a time, only for the bins a query looks at.
// - Queries (the isodata rounds' prefix counts and sums, the window's min and max) add whole
//   coarse bins below the value and the fine counts inside its bin: fixed 16-step loops.
//
// So a pixel costs O(1) updates plus O(16) per query, instead of a W x W recount or even the
// 2W updates of sliding the window over single pixels.
#include <algorithm>
#include <array>
#include <bit>
#include <limits>
#include <utility>
#include <vector>

#include "row_kernels.hpp"

namespace parfilter::kernels {
namespace {

constexpr std::uint8_t kForeground = 255;
constexpr std::uint8_t kBackground = 0;
constexpr int kCoarseShift = 4;
constexpr int kFinePerCoarse = 1 << kCoarseShift;
constexpr int kCoarseBins = kHistogramBins / kFinePerCoarse;
static_assert(kCoarseBins == kFinePerCoarse, "the 16-bit masks hold one bit per bin");
static_assert(kMaxWindow <= std::numeric_limits<std::uint16_t>::max(),
              "a column's counts (at most kMaxWindow pixels) fit 16 bits");
static_assert(std::uint64_t{kMaxWindow} * kMaxWindow * std::numeric_limits<std::uint8_t>::max() <=
                  std::numeric_limits<std::uint32_t>::max(),
              "a window's counts and sums fit 32 bits");

/// The histograms of every image column over the window's rows. A column holds at most
/// kMaxWindow pixels: 16-bit counts, and 32-bit sums per coarse bin.
class ColumnHistograms {
 public:
  explicit ColumnHistograms(int width)
      : fine_(static_cast<std::size_t>(width) * kHistogramBins),
        coarse_(static_cast<std::size_t>(width) * kCoarseBins),
        sums_(static_cast<std::size_t>(width) * kCoarseBins) {}

  /// Adds (sign 1) or removes (sign -1) an image row.
  void update(const std::uint8_t* row, int width, int sign) {
    const auto delta = static_cast<std::uint16_t>(sign);
    for (int x = 0; x < width; ++x) {
      const int v = row[x];
      const std::size_t bin = static_cast<std::size_t>(x) * kCoarseBins + (v >> kCoarseShift);
      fine_[static_cast<std::size_t>(x) * kHistogramBins + v] += delta;
      coarse_[bin] += delta;
      sums_[bin] += static_cast<std::uint32_t>(sign * v);
    }
  }

  [[nodiscard]] const std::uint16_t* fine(int x, int bin) const {
    return fine_.data() + static_cast<std::size_t>(x) * kHistogramBins + bin * kFinePerCoarse;
  }
  [[nodiscard]] const std::uint16_t* coarse(int x) const {
    return coarse_.data() + static_cast<std::size_t>(x) * kCoarseBins;
  }
  [[nodiscard]] const std::uint32_t* sums(int x) const {
    return sums_.data() + static_cast<std::size_t>(x) * kCoarseBins;
  }

 private:
  std::vector<std::uint16_t> fine_;
  std::vector<std::uint16_t> coarse_;
  std::vector<std::uint32_t> sums_;
};

/// Bit k set where bins[k] != 0, for 16 bins.
template <typename T>
unsigned nonzero_mask(const T* bins) {
  unsigned mask = 0;
  for (int k = 0; k < kFinePerCoarse; ++k) mask |= (bins[k] != 0 ? 1U : 0U) << k;
  return mask;
}

/// The window's histogram at column x of the current row. It holds at most kMaxWindow^2 values
/// summing below 2^32: 32-bit counts and sums are exact, and isodata's products (s * n) fit
/// 64 bits.
class SlidingWindow {
 public:
  SlidingWindow(const ColumnHistograms& columns, int width, int radius)
      : columns_(columns), width_(width), radius_(radius) {}

  /// The window of pixel 0: columns [0, radius].
  void start_row() {
    coarse_.fill(0);
    sums_.fill(0);
    stamps_.fill(kStale);
    x_ = 0;
    for (int x = 0; x < std::min(width_, radius_ + 1); ++x) add_column(x, 1);
  }

  /// The window of the next pixel: the entering column in, the leaving one out.
  void advance() {
    ++x_;
    if (x_ + radius_ < width_) add_column(x_ + radius_, 1);
    if (x_ - radius_ - 1 >= 0) add_column(x_ - radius_ - 1, -1);
  }

  /// {count, sum} of the values <= t.
  [[nodiscard]] std::pair<std::uint64_t, std::uint64_t> below(int t) {
    const int bin = t >> kCoarseShift;
    const int base = bin << kCoarseShift;
    const std::uint32_t* fine = current_fine(bin);
    std::uint32_t count = 0;
    std::uint32_t sum = 0;
    for (int b = 0; b < kCoarseBins; ++b) {
      const std::uint32_t mask = b < bin ? ~0U : 0U;
      count += coarse_[static_cast<std::size_t>(b)] & mask;
      sum += sums_[static_cast<std::size_t>(b)] & mask;
    }
    for (int k = 0; k < kFinePerCoarse; ++k) {
      const std::uint32_t c = fine[k] & (base + k <= t ? ~0U : 0U);
      count += c;
      sum += c * static_cast<std::uint32_t>(base + k);
    }
    return {count, sum};
  }

  /// max - min of the values present; a window is never empty.
  [[nodiscard]] int spread() {
    const unsigned coarse = nonzero_mask(coarse_.data());
    const int lo_bin = std::countr_zero(coarse);
    const int hi_bin = kCoarseBins - 1 - std::countl_zero(static_cast<std::uint16_t>(coarse));
    const int lo = (lo_bin << kCoarseShift) + std::countr_zero(nonzero_mask(current_fine(lo_bin)));
    const auto hi_mask = static_cast<std::uint16_t>(nonzero_mask(current_fine(hi_bin)));
    const int hi = (hi_bin << kCoarseShift) + kFinePerCoarse - 1 - std::countl_zero(hi_mask);
    return hi - lo;
  }

  /// isodata_threshold of the window's histogram. Each round's query costs about 32 steps;
  /// after kQueriesBeforePrefix rounds (rare: most windows converge in under 8) the full
  /// prefix counts and sums are built once (256 steps) and the remaining rounds cost O(1),
  /// so a pixel never costs more than O(256) whatever the number of rounds.
  [[nodiscard]] int isodata() {
    std::uint32_t n = 0;
    std::uint32_t s = 0;
    for (int b = 0; b < kCoarseBins; ++b) {
      n += coarse_[static_cast<std::size_t>(b)];
      s += sums_[static_cast<std::size_t>(b)];
    }
    int queries = 0;
    return isodata_rounds<std::uint64_t>(
        n, s, [&](int t) -> std::pair<std::uint64_t, std::uint64_t> {
          if (++queries <= kQueriesBeforePrefix) return below(t);
          if (queries == kQueriesBeforePrefix + 1) build_prefix();
          return {count_upto_[static_cast<std::size_t>(t)], sum_upto_[static_cast<std::size_t>(t)]};
        });
  }

 private:
  static constexpr int kStale = -1;  ///< a fine bin not computed in this row yet
  static constexpr int kQueriesBeforePrefix = 8;

  /// count_upto_[t], sum_upto_[t]: count and sum of the values <= t, for every t.
  void build_prefix() {
    std::uint32_t count = 0;
    std::uint32_t sum = 0;
    for (int bin = 0; bin < kCoarseBins; ++bin) {
      const std::uint32_t* fine = current_fine(bin);
      for (int k = 0; k < kFinePerCoarse; ++k) {
        const int v = (bin << kCoarseShift) + k;
        count += fine[k];
        sum += fine[k] * static_cast<std::uint32_t>(v);
        count_upto_[static_cast<std::size_t>(v)] = count;
        sum_upto_[static_cast<std::size_t>(v)] = sum;
      }
    }
  }

  void add_column(int x, int sign) {
    const std::uint16_t* coarse = columns_.coarse(x);
    const std::uint32_t* sums = columns_.sums(x);
    const auto s = static_cast<std::uint32_t>(sign);
    for (int b = 0; b < kCoarseBins; ++b) {
      coarse_[static_cast<std::size_t>(b)] += s * coarse[b];
      sums_[static_cast<std::size_t>(b)] += s * sums[b];
    }
  }

  /// The fine counts of coarse bin `bin` at column x_: stepped forward from the column they
  /// were last computed at, or recounted from the window's columns when that is cheaper.
  const std::uint32_t* current_fine(int bin) {
    std::uint32_t* fine = fine_.data() + bin * kFinePerCoarse;
    int& stamp = stamps_[static_cast<std::size_t>(bin)];
    if (stamp == x_) return fine;
    const auto add = [&](int x, std::uint32_t sign) {
      const std::uint16_t* column = columns_.fine(x, bin);
      for (int k = 0; k < kFinePerCoarse; ++k) fine[k] += sign * column[k];
    };
    const int first = std::max(0, x_ - radius_);
    const int end = std::min(width_, x_ + radius_ + 1);
    if (stamp != kStale && 2 * (x_ - stamp) < end - first) {
      for (int x = stamp + 1; x <= x_; ++x) {
        if (x + radius_ < width_) add(x + radius_, 1U);
        if (x - radius_ - 1 >= 0) add(x - radius_ - 1, ~0U);  // ~0U: subtract, modulo 2^32
      }
    } else {
      std::fill_n(fine, kFinePerCoarse, 0U);
      for (int x = first; x < end; ++x) add(x, 1U);
    }
    stamp = x_;
    return fine;
  }

  const ColumnHistograms& columns_;
  int width_;
  int radius_;
  int x_ = 0;
  std::array<std::uint32_t, kCoarseBins> coarse_{};
  std::array<std::uint32_t, kCoarseBins> sums_{};
  std::array<std::uint32_t, kHistogramBins> fine_{};
  std::array<int, kCoarseBins> stamps_{};
  std::array<std::uint32_t, kHistogramBins> count_upto_{};
  std::array<std::uint32_t, kHistogramBins> sum_upto_{};
};

}  // namespace

void adaptive_segment_rows(const ConstImageView& gray, const ImageView& dst, RowRange rows,
                           int window, int min_contrast, int global_threshold) {
  if (rows.empty()) return;
  const int width = gray.width();
  const int height = gray.height();
  const int radius = window / 2;
  ColumnHistograms columns(width);
  for (int y = std::max(0, rows.begin - radius); y < std::min(height, rows.begin + radius + 1);
       ++y) {
    columns.update(gray.row(y), width, 1);
  }
  SlidingWindow hist(columns, width, radius);
  for (int y = rows.begin; y < rows.end; ++y) {
    if (y > rows.begin) {
      if (y - radius - 1 >= 0) columns.update(gray.row(y - radius - 1), width, -1);
      if (y + radius < height) columns.update(gray.row(y + radius), width, 1);
    }
    hist.start_row();
    const std::uint8_t* in = gray.row(y);
    std::uint8_t* out = dst.row(y);
    for (int x = 0; x < width; ++x) {
      if (x > 0) hist.advance();
      const int threshold = hist.spread() < min_contrast ? global_threshold : hist.isodata();
      out[x] = in[x] > threshold ? kForeground : kBackground;
    }
  }
}

}  // namespace parfilter::kernels
