// Point ops, histograms, colour equalization, thresholding and pooling: kernels that read
// only the rows they write (pool: the two input rows under each output row), so any slice
// of rows is safe with no halo.
#include <algorithm>
#include <cstring>

#include "parfilter/row_kernels.hpp"

namespace parfilter::kernels {
namespace {

constexpr std::uint8_t kForeground = 255;
constexpr std::uint8_t kBackground = 0;
constexpr int kRgbChannels = 3;
constexpr int kAlphaChannel = 3;  ///< index of alpha in an RGBA pixel
constexpr int kPoolStride = 2;

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

 private:
  static constexpr int kSubHistograms = 4;
  /// A flush before any counter could pass 2^32 - 1.
  static constexpr std::uint64_t kFlushAt = std::uint64_t{1} << 31;

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

}  // namespace

void gray_rows(const ConstImageView& src, const ImageView& dst, RowRange rows) {
  const int width = src.width();
  const int channels = src.channels();
  for (int y = rows.begin; y < rows.end; ++y) {
    const std::uint8_t* in = src.row(y);
    std::uint8_t* out = dst.row(y);
    if (channels == 1) {
      std::memcpy(out, in, static_cast<std::size_t>(width));
      continue;
    }
    for (int x = 0; x < width; ++x) {
      const std::uint8_t* px = in + static_cast<std::ptrdiff_t>(x) * channels;
      out[x] = gray_of(px[0], px[1], px[2]);
    }
  }
}

void threshold_rows(const ConstImageView& src, const ImageView& dst, RowRange rows, int threshold) {
  const int width = src.width();
  for (int y = rows.begin; y < rows.end; ++y) {
    const std::uint8_t* in = src.row(y);
    std::uint8_t* out = dst.row(y);
    for (int x = 0; x < width; ++x) out[x] = in[x] > threshold ? kForeground : kBackground;
  }
}

void apply_lut_rows(const ConstImageView& src, const ImageView& dst, RowRange rows,
                    const std::array<std::uint8_t, 256>& lut) {
  const int width = src.width();
  for (int y = rows.begin; y < rows.end; ++y) {
    const std::uint8_t* in = src.row(y);
    std::uint8_t* out = dst.row(y);
    for (int x = 0; x < width; ++x) out[x] = lut[in[x]];
  }
}

void histogram_rows(const ConstImageView& src, RowRange rows, int channel, HistogramBins& hist) {
  const int channels = src.channels();
  SubHistograms counts(hist);
  for (int y = rows.begin; y < rows.end; ++y) {
    const std::uint8_t* in = src.row(y) + channel;
    counts.add(src.width(),
               [in, channels](int x) { return in[static_cast<std::ptrdiff_t>(x) * channels]; });
  }
}

void luma_histogram_rows(const ConstImageView& src, RowRange rows, HistogramBins& hist) {
  const int channels = src.channels();
  SubHistograms counts(hist);
  for (int y = rows.begin; y < rows.end; ++y) {
    const std::uint8_t* in = src.row(y);
    counts.add(src.width(), [in, channels](int x) {
      const std::uint8_t* px = in + static_cast<std::ptrdiff_t>(x) * channels;
      return ycrcb_luma(px[0], px[1], px[2]);
    });
  }
}

void equalize_color_rows(const ConstImageView& src, const ImageView& dst, RowRange rows,
                         const std::array<std::uint8_t, 256>& lut) {
  const int width = src.width();
  const int channels = src.channels();
  const bool has_alpha = channels > kRgbChannels;
  for (int y = rows.begin; y < rows.end; ++y) {
    const std::uint8_t* in = src.row(y);
    std::uint8_t* out = dst.row(y);
    for (int x = 0; x < width; ++x) {
      const std::ptrdiff_t at = static_cast<std::ptrdiff_t>(x) * channels;
      YCrCb ycc = rgb_to_ycrcb(in[at], in[at + 1], in[at + 2]);
      ycc.y = lut[ycc.y];
      ycrcb_to_rgb(ycc, out + at);
      if (has_alpha) out[at + kAlphaChannel] = in[at + kAlphaChannel];
    }
  }
}

void pool2x2_rows(const ConstImageView& src, const ImageView& dst, RowRange rows) {
  const int in_width = src.width();
  const int in_height = src.height();
  const int out_width = dst.width();
  const int channels = src.channels();
  for (int oy = rows.begin; oy < rows.end; ++oy) {
    const int top = kPoolStride * oy;
    // A partial window at the bottom edge reads its one row twice: max is unaffected.
    const std::uint8_t* row0 = src.row(top);
    const std::uint8_t* row1 = src.row(std::min(top + 1, in_height - 1));
    std::uint8_t* out = dst.row(oy);
    for (int ox = 0; ox < out_width; ++ox) {
      const int left = kPoolStride * ox;
      const int right = std::min(left + 1, in_width - 1);
      for (int c = 0; c < channels; ++c) {
        const std::ptrdiff_t l = static_cast<std::ptrdiff_t>(left) * channels + c;
        const std::ptrdiff_t r = static_cast<std::ptrdiff_t>(right) * channels + c;
        out[static_cast<std::ptrdiff_t>(ox) * channels + c] =
            std::max(std::max(row0[l], row0[r]), std::max(row1[l], row1[r]));
      }
    }
  }
}

}  // namespace parfilter::kernels
