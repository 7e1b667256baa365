// Helpers the row-kernel files share: which channels a filter computes, alpha copying, and
// the two ways of applying a border: padded copies of rows (the simple kernels) and, for the
// fast ones, row pointers with a constant stand-in row plus column maps for the few edge
// pixels, so that interior loops read the image directly.
#pragma once

#include <algorithm>
#include <cassert>
#include <cstdint>
#include <cstring>
#include <vector>

#include "filter_math.hpp"
#include "parfilter/image.hpp"
#include "parfilter/op_set.hpp"
#include "row_kernels.hpp"
#include "simd_kernels.hpp"

/// On x86-64 Linux with GCC, a function marked PARFILTER_VECTOR_CLONES is compiled twice, for
/// AVX2 and for the baseline (SSE2), and the loader picks the one the CPU runs (an ifunc):
/// the vector loops get 32-byte lanes where available with no -march in the build. Only
/// whole-row loops are marked, so the indirect call costs nothing per pixel. Sanitizer builds
/// get the baseline only: GCC 12 instruments the ifunc resolver, which then runs before the
/// ThreadSanitizer runtime is up and crashes.
#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__) && defined(__linux__) && \
    !defined(__SANITIZE_THREAD__) && !defined(__SANITIZE_ADDRESS__) &&                       \
    !defined(PARFILTER_NO_VECTOR_CLONES)
#define PARFILTER_VECTOR_CLONES __attribute__((target_clones("avx2", "default")))
#else
#define PARFILTER_VECTOR_CLONES
#endif

namespace parfilter::kernels::detail {

inline constexpr int kRgbChannels = 3;
inline constexpr int kAlphaChannel = 3;  ///< index of alpha in an RGBA pixel
inline constexpr int kMaxSample = 255;

/// Channels a filter computes: alpha of a 4-channel image is copied instead.
[[nodiscard]] inline int filtered_channels(int channels) {
  return channels > kRgbChannels ? kRgbChannels : channels;
}

/// Copies alpha (channel 3) of pixels [first, width) of row y from src to dst for 4-channel
/// images. Fast kernels compute alpha like a colour channel in their vector loops and
/// overwrite it here (or in their SIMD stores: output_store).
inline void copy_alpha(const ConstImageView& src, const ImageView& dst, int y,
                       Loops loops = Loops::plain, int first = 0) {
  if (src.channels() <= kRgbChannels) return;
  const std::uint8_t* in = src.row(y);
  std::uint8_t* out = dst.row(y);
  const int channels = src.channels();
  if (uses_simd(loops) && first == 0) first = simd::copy_alpha_row(in, out, src.width());
  for (std::ptrdiff_t i = static_cast<std::ptrdiff_t>(first) * channels + kAlphaChannel;
       i < src.row_samples(); i += channels) {
    out[i] = in[i];
  }
}

/// How the SIMD loops store a kernel's output row y: with src's alpha put back in the same
/// store (RGBA), and streamed for Loops::simd_stream. Nothing for the plain loops, whose
/// kernels copy alpha afterwards as they always did.
[[nodiscard]] inline simd::RowStore output_store(const ConstImageView& src, int y, Loops loops) {
  if (!uses_simd(loops)) return {};
  return {src.channels() > kRgbChannels ? src.row(y) : nullptr, loops == Loops::simd_stream};
}

/// The same for an output without alpha (gray outputs, or an RGBA one copied alpha and all).
[[nodiscard]] inline simd::RowStore output_store(Loops loops) {
  return {nullptr, loops == Loops::simd_stream};
}

/// The image row that stands for row y (y may lie outside the image) under `border`: the
/// mapped image row, or a row of the constant. The rows it returns must lie in src's view.
class BorderRows {
 public:
  BorderRows(const ConstImageView& src, BorderMode border) : src_(src), border_(border) {
    if (border.kind == BorderKind::constant) {
      constant_row_.assign(static_cast<std::size_t>(src.row_samples()), border.value);
    }
  }

  [[nodiscard]] const std::uint8_t* row(int y) const {
    const int mapped =
        (y >= 0 && y < src_.height()) ? y : border_index(y, src_.height(), border_.kind);
    if (mapped < 0) return constant_row_.data();
    assert(mapped >= src_.rows().begin && mapped < src_.rows().end);
    return src_.row(mapped);
  }

 private:
  ConstImageView src_;
  BorderMode border_;
  std::vector<std::uint8_t> constant_row_;
};

/// Sample lookups for the edge pixels of a filter of radius `halo`: the pixels x < halo and
/// x >= width - halo, whose taps may fall outside the image. column(x, k) is the source
/// column of tap k (x + k - halo), or -1 for the constant.
class EdgeColumns {
 public:
  EdgeColumns(int width, int halo, BorderMode border)
      : width_(width), halo_(halo), taps_(2 * halo + 1), border_(border) {
    for (int x : edge_pixels()) {
      for (int k = 0; k < taps_; ++k) columns_.push_back(map(x + k - halo));
    }
  }

  /// The edge pixels, left ones first; all pixels when the image is narrower than 2 halo.
  [[nodiscard]] std::vector<int> edge_pixels() const {
    std::vector<int> xs;
    for (int x = 0; x < std::min(halo_, width_); ++x) xs.push_back(x);
    for (int x = std::max(halo_, width_ - halo_); x < width_; ++x) xs.push_back(x);
    return xs;
  }

  /// Sample c of tap k of the e-th edge pixel in row `row` of `channels` channels.
  [[nodiscard]] int sample(const std::uint8_t* row, int e, int k, int c, int channels) const {
    const int col = columns_[static_cast<std::size_t>(e * taps_ + k)];
    return col < 0 ? border_.value : row[static_cast<std::ptrdiff_t>(col) * channels + c];
  }

 private:
  [[nodiscard]] int map(int x) const {
    return (x >= 0 && x < width_) ? x : border_index(x, width_, border_.kind);
  }

  int width_;
  int halo_;
  int taps_;
  BorderMode border_;
  std::vector<int> columns_;
};

/// Builds padded copies of source rows: row y of the image (or its border stand-in) with
/// `halo` border pixels on either side.
class RowPadder {
 public:
  RowPadder(const ConstImageView& src, BorderMode border, int halo)
      : src_(src), rows_(src, border), border_(border), halo_(halo), channels_(src.channels()) {
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
    const std::uint8_t* row = rows_.row(y);
    std::memcpy(out + static_cast<std::ptrdiff_t>(halo_) * channels_, row,
                static_cast<std::size_t>(src_.row_samples()));
    for (int k = 0; k < halo_; ++k) {
      put_pixel(row, left_cols_[k], out + static_cast<std::ptrdiff_t>(k) * channels_);
      put_pixel(row, right_cols_[k],
                out + static_cast<std::ptrdiff_t>(halo_ + src_.width() + k) * channels_);
    }
  }

 private:
  void put_pixel(const std::uint8_t* row, int x, std::uint8_t* out) const {
    for (int c = 0; c < channels_; ++c) {
      out[c] = x < 0 ? border_.value : row[static_cast<std::ptrdiff_t>(x) * channels_ + c];
    }
  }

  ConstImageView src_;
  BorderRows rows_;
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

}  // namespace parfilter::kernels::detail
