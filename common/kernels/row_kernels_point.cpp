// Point ops, histograms, colour equalization, thresholding and pooling: kernels that read
// only the rows they write (pool: the two input rows under each output row), so any slice
// of rows is safe with no halo.
#include <algorithm>
#include <cstring>
#include <vector>

#include "row_kernels.hpp"
#include "row_kernels_internal.hpp"
#include "row_kernels_luma.hpp"
#include "simd_kernels.hpp"

namespace parfilter::kernels {
namespace {

using detail::kGrayWeights;
using detail::kYcrcbWeights;
using detail::rgb_luma_row;

constexpr std::uint8_t kForeground = 255;
constexpr std::uint8_t kBackground = 0;
constexpr int kRgbChannels = 3;
constexpr int kMaxSample = 255;
constexpr int kAlphaChannel = 3;  ///< index of alpha in an RGBA pixel

/// Counts added to a histogram through kSubHistograms 32-bit sub-histograms: consecutive
/// samples go to different sub-histograms, so a run of equal values does not serialize on
/// one counter (each increment would wait for the previous store). Merged into the caller's
/// histogram on destruction, and before a sub-histogram could overflow.
class SubHistograms {
 public:
  explicit SubHistograms(HistogramBins& target) : target_(target) {}
  SubHistograms(const SubHistograms&) = delete;
  SubHistograms& operator=(const SubHistograms&) = delete;
  ~SubHistograms() { flush(); }

  /// Counts value(x) for x in [0, n).
  template <typename Value>
  void add(int n, Value&& value) {
    if (pending_ > kFlushAt - static_cast<std::uint64_t>(n)) flush();
    int x = 0;
    for (; x + kSubHistograms <= n; x += kSubHistograms) {
      for (int k = 0; k < kSubHistograms; ++k) ++counts_[k][value(x + k)];
    }
    for (; x < n; ++x) ++counts_[0][value(x)];
    pending_ += static_cast<std::uint64_t>(n);
  }

  /// Counts the bytes in[0, n): eight from each 64-bit load, one per sub-histogram (a load per
  /// sample less; the order of the bytes in the word does not matter to a count).
  void add_bytes(const std::uint8_t* in, int n) {
    if (pending_ > kFlushAt - static_cast<std::uint64_t>(n)) flush();
    int x = 0;
    for (; x + kSubHistograms <= n; x += kSubHistograms) {
      std::uint64_t word = 0;
      std::memcpy(&word, in + x, sizeof word);
      for (int k = 0; k < kSubHistograms; ++k) {
        ++counts_[k][(word >> (kByteBits * k)) & kMaxSample];
      }
    }
    for (; x < n; ++x) ++counts_[0][in[x]];
    pending_ += static_cast<std::uint64_t>(n);
  }

 private:
  /// Eight, not four: an increment waits about six cycles for the store before it, so eight
  /// in flight keep a run of equal values near one count per cycle (8 KB, within L1).
  static constexpr int kSubHistograms = 8;
  /// A flush before any counter could pass 2^32 - 1.
  static constexpr std::uint64_t kFlushAt = std::uint64_t{1} << 31;
  static constexpr int kByteBits = 8;
  static_assert(kSubHistograms == sizeof(std::uint64_t), "one sub-histogram per byte of a word");

  void flush() {
    for (auto& sub : counts_) {
      for (std::size_t v = 0; v < sub.size(); ++v) target_[v] += sub[v];
      sub.fill(0);
    }
    pending_ = 0;
  }

  HistogramBins& target_;
  std::array<std::array<std::uint32_t, kHistogramBins>, kSubHistograms> counts_{};
  std::uint64_t pending_ = 0;
};

/// Colour equalization's round trip (rgb_to_ycrcb, new Y, ycrcb_to_rgb) factored into tables:
/// Cr depends only on d = R - Y and Cb only on B - Y, and converting back adds to the new Y
/// an offset that depends only on Cr (red), only on Cb (blue), or on the sum of one product
/// of each (green). Indexed by d + 255, d in [-255, 255]; every entry is the spec's own
/// expression, so the factoring is exact.
struct ChromaTables {
  static constexpr int kDifferences = 2 * kMaxSample + 1;
  std::array<int, kDifferences> red{};              ///< descale(Cr' * kRFromCr), d = R - Y
  std::array<int, kDifferences> green_from_red{};   ///< Cr' * kGFromCr
  std::array<int, kDifferences> blue{};             ///< descale(Cb' * kBFromCb), d = B - Y
  std::array<int, kDifferences> green_from_blue{};  ///< Cb' * kGFromCb  (X' = X - 128)

  ChromaTables() {
    using namespace ycrcb;
    for (int d = -kMaxSample; d <= kMaxSample; ++d) {
      const int chroma_delta = kChromaOffset << kShift;
      const int cr = saturate(descale(d * kCrFromRMinusY + chroma_delta)) - kChromaOffset;
      const int cb = saturate(descale(d * kCbFromBMinusY + chroma_delta)) - kChromaOffset;
      red[index(d)] = descale(cr * kRFromCr);
      green_from_red[index(d)] = cr * kGFromCr;
      blue[index(d)] = descale(cb * kBFromCb);
      green_from_blue[index(d)] = cb * kGFromCb;
    }
  }
  [[nodiscard]] static std::size_t index(int d) { return static_cast<std::size_t>(d + kMaxSample); }
};

/// One output row of the 2x2 pool from input rows row0 and row1, from output pixel `first`:
/// the full windows, then a last partial one (one column) for an odd width.
template <int C>
PARFILTER_VECTOR_CLONES void pool_row(const std::uint8_t* row0, const std::uint8_t* row1,
                                      std::uint8_t* out, int first, int in_width) {
  const int full = in_width / kPoolStride;
  for (int ox = first; ox < full; ++ox) {
    for (int c = 0; c < C; ++c) {
      const std::ptrdiff_t l = static_cast<std::ptrdiff_t>(kPoolStride * ox) * C + c;
      out[static_cast<std::ptrdiff_t>(ox) * C + c] =
          std::max(std::max(row0[l], row0[l + C]), std::max(row1[l], row1[l + C]));
    }
  }
  if (in_width % kPoolStride != 0) {
    for (int c = 0; c < C; ++c) {
      const std::ptrdiff_t l = static_cast<std::ptrdiff_t>(in_width - 1) * C + c;
      out[static_cast<std::ptrdiff_t>(full) * C + c] = std::max(row0[l], row1[l]);
    }
  }
}

}  // namespace

void gray_rows(const ConstImageView& src, const ImageView& dst, RowRange rows, Loops loops) {
  const int width = src.width();
  const int channels = src.channels();
  for (int y = rows.begin; y < rows.end; ++y) {
    const std::uint8_t* in = src.row(y);
    std::uint8_t* out = dst.row(y);
    if (channels == 1) {
      std::memcpy(out, in, static_cast<std::size_t>(width));
    } else {
      rgb_luma_row(in, out, width, channels, kGrayWeights, loops);
    }
  }
}

void gray_rows_counted(const ConstImageView& src, const ImageView& dst, RowRange rows,
                       HistogramBins& hist, Loops loops) {
  const int width = src.width();
  SubHistograms counts(hist);
  for (int y = rows.begin; y < rows.end; ++y) {
    // Counted right after it is written, while the row is in cache.
    gray_rows(src, dst, {y, y + 1}, cached(loops));
    counts.add_bytes(dst.row(y), width);
  }
}

void gray_histogram_rows(const ConstImageView& src, RowRange rows, HistogramBins& hist,
                         Loops loops) {
  if (src.channels() == 1) {
    histogram_rows(src, rows, 0, hist);
    return;
  }
  SubHistograms counts(hist);
  std::vector<std::uint8_t> gray(static_cast<std::size_t>(src.width()));
  for (int y = rows.begin; y < rows.end; ++y) {
    rgb_luma_row(src.row(y), gray.data(), src.width(), src.channels(), kGrayWeights, cached(loops));
    counts.add_bytes(gray.data(), src.width());
  }
}

void threshold_rows(const ConstImageView& src, const ImageView& dst, RowRange rows, int threshold,
                    Loops loops) {
  const int width = src.width();
  for (int y = rows.begin; y < rows.end; ++y) {
    const std::uint8_t* in = src.row(y);
    std::uint8_t* out = dst.row(y);
    const auto first = uses_simd(loops)
                           ? static_cast<int>(simd::threshold_row(in, out, width, threshold,
                                                                  detail::output_store(loops)))
                           : 0;
    for (int x = first; x < width; ++x) out[x] = in[x] > threshold ? kForeground : kBackground;
  }
}

void apply_lut_rows(const ConstImageView& src, const ImageView& dst, RowRange rows,
                    const std::array<std::uint8_t, 256>& lut, Loops loops) {
  const int width = src.width();
  for (int y = rows.begin; y < rows.end; ++y) {
    const std::uint8_t* in = src.row(y);
    std::uint8_t* out = dst.row(y);
    const auto first = uses_simd(loops)
                           ? static_cast<int>(simd::lut_row(in, out, width, lut.data(),
                                                            detail::output_store(loops)))
                           : 0;
    for (int x = first; x < width; ++x) out[x] = lut[in[x]];
  }
}

void histogram_rows(const ConstImageView& src, RowRange rows, int channel, HistogramBins& hist) {
  const int channels = src.channels();
  SubHistograms counts(hist);
  for (int y = rows.begin; y < rows.end; ++y) {
    const std::uint8_t* in = src.row(y) + channel;
    if (channels == 1) {
      counts.add_bytes(in, src.width());
      continue;
    }
    counts.add(src.width(),
               [in, channels](int x) { return in[static_cast<std::ptrdiff_t>(x) * channels]; });
  }
}

void luma_histogram_rows(const ConstImageView& src, RowRange rows, HistogramBins& hist,
                         Loops loops) {
  SubHistograms counts(hist);
  std::vector<std::uint8_t> luma(static_cast<std::size_t>(src.width()));
  for (int y = rows.begin; y < rows.end; ++y) {
    rgb_luma_row(src.row(y), luma.data(), src.width(), src.channels(), kYcrcbWeights,
                 cached(loops));
    counts.add_bytes(luma.data(), src.width());
  }
}

void equalize_color_rows(const ConstImageView& src, const ImageView& dst, RowRange rows,
                         const std::array<std::uint8_t, 256>& lut, Loops loops) {
  const int width = src.width();
  const int channels = src.channels();
  const bool has_alpha = channels > kRgbChannels;
  const ChromaTables tables;
  std::vector<std::uint8_t> luma(static_cast<std::size_t>(width));
  std::vector<std::uint8_t> new_luma(static_cast<std::size_t>(width));
  for (int y = rows.begin; y < rows.end; ++y) {
    const std::uint8_t* in = src.row(y);
    std::uint8_t* out = dst.row(y);
    rgb_luma_row(in, luma.data(), width, channels, kYcrcbWeights, cached(loops));
    int x = 0;
    if (uses_simd(loops)) {
      // The SIMD round trip takes the new luma as a row: the table pass first.
      const auto done =
          static_cast<int>(simd::lut_row(luma.data(), new_luma.data(), width, lut.data()));
      for (int i = done; i < width; ++i) {
        new_luma[static_cast<std::size_t>(i)] = lut[luma[static_cast<std::size_t>(i)]];
      }
      x = simd::equalize_row(in, luma.data(), new_luma.data(), out, width, channels);
    }
    for (; x < width; ++x) {
      const std::ptrdiff_t at = static_cast<std::ptrdiff_t>(x) * channels;
      const int old_luma = luma[static_cast<std::size_t>(x)];
      const int new_luma = lut[static_cast<std::size_t>(old_luma)];
      const std::size_t red = tables.index(in[at] - old_luma);
      const std::size_t blue = tables.index(in[at + 2] - old_luma);
      out[at] = ycrcb::saturate(new_luma + tables.red[red]);
      out[at + 1] = ycrcb::saturate(
          new_luma + ycrcb::descale(tables.green_from_red[red] + tables.green_from_blue[blue]));
      out[at + 2] = ycrcb::saturate(new_luma + tables.blue[blue]);
      if (has_alpha) out[at + kAlphaChannel] = in[at + kAlphaChannel];
    }
  }
}

void pool2x2_rows(const ConstImageView& src, const ImageView& dst, RowRange rows, Loops loops) {
  const int in_width = src.width();
  const int in_height = src.height();
  const int channels = src.channels();
  for (int oy = rows.begin; oy < rows.end; ++oy) {
    const int top = kPoolStride * oy;
    // A partial window at the bottom edge reads its one row twice: max is unaffected.
    const std::uint8_t* row0 = src.row(top);
    const std::uint8_t* row1 = src.row(std::min(top + 1, in_height - 1));
    std::uint8_t* out = dst.row(oy);
    const int first = uses_simd(loops) ? simd::pool_row(row0, row1, out, in_width / kPoolStride,
                                                        channels, detail::output_store(loops))
                                       : 0;
    switch (channels) {
      case 1:
        pool_row<1>(row0, row1, out, first, in_width);
        break;
      case kRgbChannels:
        pool_row<kRgbChannels>(row0, row1, out, first, in_width);
        break;
      default:
        pool_row<kRgbChannels + 1>(row0, row1, out, first, in_width);
        break;
    }
  }
}

}  // namespace parfilter::kernels
