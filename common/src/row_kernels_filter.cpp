// Neighbourhood filters with borders: gaussian (direct, lut, separable), sobel, sharpen.
//
// Each source row a kernel reads is first copied into a padded row: `halo` border pixels on
// each side, filled by the border's index mapping (or the constant), so the inner loops run
// without branches. A ring of 2 * halo + 1 padded rows slides down the output rows; a row
// outside the image is the mapped image row, or all constant for BorderKind::constant.
#include <algorithm>
#include <cassert>
#include <cstring>
#include <vector>

#include "parfilter/row_kernels.hpp"

namespace parfilter::kernels {
namespace {

constexpr int kRgbChannels = 3;
constexpr int kMaxSample = 255;
constexpr std::uint32_t kGaussianRounding = 1U << (kGaussianShift - 1);

/// Channels a filter computes: alpha of a 4-channel image is copied instead.
int filtered_channels(int channels) { return channels > kRgbChannels ? kRgbChannels : channels; }

/// Copies alpha (channel 3) of row y from src to dst for 4-channel images.
void copy_alpha(const ConstImageView& src, const ImageView& dst, int y) {
  if (src.channels() <= kRgbChannels) return;
  const std::uint8_t* in = src.row(y);
  std::uint8_t* out = dst.row(y);
  const int channels = src.channels();
  for (std::ptrdiff_t i = kRgbChannels; i < src.row_samples(); i += channels) out[i] = in[i];
}

/// Builds padded copies of source rows: row y of the image (or its border stand-in) with
/// `halo` border pixels on either side.
class RowPadder {
 public:
  RowPadder(const ConstImageView& src, BorderMode border, int halo)
      : src_(src), border_(border), halo_(halo), channels_(src.channels()) {
    for (int k = 0; k < halo; ++k) {
      left_cols_.push_back(border_index(k - halo, src.width(), border.kind));
      right_cols_.push_back(border_index(src.width() + k, src.width(), border.kind));
    }
  }

  /// Samples in one padded row.
  [[nodiscard]] std::size_t padded_samples() const {
    return static_cast<std::size_t>(src_.width() + 2 * halo_) * channels_;
  }

  /// Writes padded row y (y may lie outside the image) to out[0, padded_samples()).
  void pad(int y, std::uint8_t* out) const {
    const std::uint8_t* row = source_row(y);
    if (row == nullptr) {
      std::memset(out, border_.value, padded_samples());
      return;
    }
    std::memcpy(out + static_cast<std::ptrdiff_t>(halo_) * channels_, row,
                static_cast<std::size_t>(src_.row_samples()));
    for (int k = 0; k < halo_; ++k) {
      put_pixel(row, left_cols_[k], out + static_cast<std::ptrdiff_t>(k) * channels_);
      put_pixel(row, right_cols_[k],
                out + static_cast<std::ptrdiff_t>(halo_ + src_.width() + k) * channels_);
    }
  }

 private:
  /// The image row that stands for row y, or nullptr where the constant applies.
  [[nodiscard]] const std::uint8_t* source_row(int y) const {
    const int mapped =
        (y >= 0 && y < src_.height()) ? y : border_index(y, src_.height(), border_.kind);
    if (mapped < 0) return nullptr;
    // The mapped row lies within the halo of the slice, which the caller provides.
    assert(mapped >= src_.rows().begin && mapped < src_.rows().end);
    return src_.row(mapped);
  }

  void put_pixel(const std::uint8_t* row, int x, std::uint8_t* out) const {
    for (int c = 0; c < channels_; ++c) {
      out[c] = x < 0 ? border_.value : row[static_cast<std::ptrdiff_t>(x) * channels_ + c];
    }
  }

  ConstImageView src_;
  BorderMode border_;
  int halo_;
  int channels_;
  std::vector<int> left_cols_;   ///< source column of padded column k - halo, or -1
  std::vector<int> right_cols_;  ///< source column of padded column width + k, or -1
};

/// A sliding window of 2 * halo + 1 rows of T, each produced once by `fill(y, out)`.
/// taps()[k] is row y - halo + k after advance_to(y).
template <typename T>
class RowRing {
 public:
  RowRing(int halo, std::size_t row_samples)
      : halo_(halo),
        buffers_(static_cast<std::size_t>(2 * halo + 1), std::vector<T>(row_samples)),
        taps_(buffers_.size()) {}

  template <typename Fill>
  void advance_to(int y, Fill&& fill) {
    const int n = static_cast<int>(buffers_.size());
    const bool consecutive = primed_ && y == last_y_ + 1;
    for (int k = 0; k < n; ++k) {
      const int row = y - halo_ + k;
      std::vector<T>& buffer = buffers_[static_cast<std::size_t>(((row % n) + n) % n)];
      if (!consecutive || k == n - 1) fill(row, buffer.data());
      taps_[static_cast<std::size_t>(k)] = buffer.data();
    }
    primed_ = true;
    last_y_ = y;
  }

  [[nodiscard]] const T* const* taps() const { return taps_.data(); }

 private:
  int halo_;
  std::vector<std::vector<T>> buffers_;
  std::vector<const T*> taps_;
  bool primed_ = false;
  int last_y_ = 0;
};

/// Runs body(y, taps, out_row) for each output row with a ring of padded source rows.
template <typename Body>
void for_each_padded_row(const ConstImageView& src, RowRange rows, BorderMode border, int halo,
                         const ImageView& dst, Body&& body) {
  const RowPadder padder(src, border, halo);
  RowRing<std::uint8_t> ring(halo, padder.padded_samples());
  for (int y = rows.begin; y < rows.end; ++y) {
    ring.advance_to(y, [&](int row, std::uint8_t* out) { padder.pad(row, out); });
    body(y, ring.taps(), dst.row(y));
  }
}

std::uint8_t gaussian_round(std::uint32_t acc) {
  return static_cast<std::uint8_t>((acc + kGaussianRounding) >> kGaussianShift);
}

}  // namespace

void gaussian5x5_direct_rows(const ConstImageView& src, const ImageView& dst, RowRange rows,
                             const GaussianWeights& weights, BorderMode border) {
  const int width = src.width();
  const int channels = src.channels();
  const int filtered = filtered_channels(channels);
  std::uint32_t w[kGaussianTaps][kGaussianTaps];
  for (int i = 0; i < kGaussianTaps; ++i) {
    for (int j = 0; j < kGaussianTaps; ++j)
      w[i][j] = static_cast<std::uint32_t>(weights.weight(i, j));
  }
  for_each_padded_row(
      src, rows, border, kGaussianHalo, dst,
      [&](int y, const std::uint8_t* const* taps, std::uint8_t* out) {
        for (int x = 0; x < width; ++x) {
          for (int c = 0; c < filtered; ++c) {
            std::uint32_t acc = 0;
            for (int i = 0; i < kGaussianTaps; ++i) {
              const std::uint8_t* p = taps[i] + static_cast<std::ptrdiff_t>(x) * channels + c;
              for (int j = 0; j < kGaussianTaps; ++j) acc += w[i][j] * p[j * channels];
            }
            out[static_cast<std::ptrdiff_t>(x) * channels + c] = gaussian_round(acc);
          }
        }
        copy_alpha(src, dst, y);
      });
}

void gaussian5x5_lut_rows(const ConstImageView& src, const ImageView& dst, RowRange rows,
                          const GaussianLut& lut, BorderMode border) {
  const int width = src.width();
  const int channels = src.channels();
  const int filtered = filtered_channels(channels);
  // The table of weight * value for each tap: no multiplication in the inner loop.
  const std::uint32_t* tap_lut[kGaussianTaps][kGaussianTaps];
  for (int i = 0; i < kGaussianTaps; ++i) {
    for (int j = 0; j < kGaussianTaps; ++j) {
      tap_lut[i][j] = lut[static_cast<std::size_t>(gaussian_weight_class(i, j))].data();
    }
  }
  for_each_padded_row(
      src, rows, border, kGaussianHalo, dst,
      [&](int y, const std::uint8_t* const* taps, std::uint8_t* out) {
        for (int x = 0; x < width; ++x) {
          for (int c = 0; c < filtered; ++c) {
            std::uint32_t acc = 0;
            for (int i = 0; i < kGaussianTaps; ++i) {
              const std::uint8_t* p = taps[i] + static_cast<std::ptrdiff_t>(x) * channels + c;
              for (int j = 0; j < kGaussianTaps; ++j) acc += tap_lut[i][j][p[j * channels]];
            }
            out[static_cast<std::ptrdiff_t>(x) * channels + c] = gaussian_round(acc);
          }
        }
        copy_alpha(src, dst, y);
      });
}

void gaussian5x5_separable_rows(const ConstImageView& src, const ImageView& dst, RowRange rows,
                                const GaussianWeights& weights, BorderMode border) {
  const int width = src.width();
  const int channels = src.channels();
  const int filtered = filtered_channels(channels);
  const auto& q = weights.q;
  const RowPadder padder(src, border, kGaussianHalo);
  std::vector<std::uint8_t> padded(padder.padded_samples());
  const std::size_t row_samples = static_cast<std::size_t>(src.row_samples());
  // Horizontal sums fit 16 bits (at most 256 * 255) and are kept exact: no rounding
  // between the passes, so the result equals the 2-D sum. A constant row gives 256 * V.
  RowRing<std::uint16_t> ring(kGaussianHalo, row_samples);
  const auto horizontal = [&](int row, std::uint16_t* out) {
    padder.pad(row, padded.data());
    for (int x = 0; x < width; ++x) {
      for (int c = 0; c < filtered; ++c) {
        const std::uint8_t* p = padded.data() + static_cast<std::ptrdiff_t>(x) * channels + c;
        int sum = 0;
        for (int j = 0; j < kGaussianTaps; ++j) sum += q[j] * p[j * channels];
        out[static_cast<std::ptrdiff_t>(x) * channels + c] = static_cast<std::uint16_t>(sum);
      }
    }
  };
  for (int y = rows.begin; y < rows.end; ++y) {
    ring.advance_to(y, horizontal);
    const std::uint16_t* const* taps = ring.taps();
    std::uint8_t* out = dst.row(y);
    for (int x = 0; x < width; ++x) {
      for (int c = 0; c < filtered; ++c) {
        const std::ptrdiff_t at = static_cast<std::ptrdiff_t>(x) * channels + c;
        std::uint32_t acc = 0;
        for (int i = 0; i < kGaussianTaps; ++i)
          acc += static_cast<std::uint32_t>(q[i]) * taps[i][at];
        out[at] = gaussian_round(acc);
      }
    }
    copy_alpha(src, dst, y);
  }
}

void sobel_rows(const ConstImageView& src, const ImageView& dst, RowRange rows, BorderMode border,
                SobelOutput output) {
  const int width = src.width();
  for_each_padded_row(src, rows, border, kSobelHalo, dst,
                      [&](int /*y*/, const std::uint8_t* const* taps, std::uint8_t* out) {
                        const std::uint8_t* up = taps[0];
                        const std::uint8_t* mid = taps[1];
                        const std::uint8_t* down = taps[2];
                        // Padded column x + 1 is image column x.
                        for (int x = 0; x < width; ++x) {
                          const int gx = (up[x + 2] + 2 * mid[x + 2] + down[x + 2]) -
                                         (up[x] + 2 * mid[x] + down[x]);
                          const int gy = (down[x] + 2 * down[x + 1] + down[x + 2]) -
                                         (up[x] + 2 * up[x + 1] + up[x + 2]);
                          out[x] = sobel_value(gx, gy, output);
                        }
                      });
}

void sharpen_rows(const ConstImageView& src, const ImageView& dst, RowRange rows,
                  BorderMode border) {
  const int width = src.width();
  const int channels = src.channels();
  const int filtered = filtered_channels(channels);
  constexpr int kCentreWeight = 5;
  for_each_padded_row(src, rows, border, kSharpenHalo, dst,
                      [&](int y, const std::uint8_t* const* taps, std::uint8_t* out) {
                        for (int x = 0; x < width; ++x) {
                          for (int c = 0; c < filtered; ++c) {
                            const std::ptrdiff_t at = static_cast<std::ptrdiff_t>(x) * channels + c;
                            // Padded sample at + channels is image sample at.
                            const int centre = taps[1][at + channels];
                            const int value = kCentreWeight * centre - taps[0][at + channels] -
                                              taps[2][at + channels] - taps[1][at] -
                                              taps[1][at + 2 * channels];
                            out[at] = static_cast<std::uint8_t>(std::clamp(value, 0, kMaxSample));
                          }
                        }
                        copy_alpha(src, dst, y);
                      });
}

}  // namespace parfilter::kernels
