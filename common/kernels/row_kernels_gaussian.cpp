// The 5x5 Gaussian: direct (25 taps), lut (25 table look-ups) and separable (a row pass into
// 16 bits, then a column pass over a ring of five rows).
//
// direct and lut read padded copies of the rows (the border in the padding); they are the
// simple variants, kept to compare techniques. separable is the fast one: its loops read the
// image rows directly, run over samples (channels interleaved, so one loop serves 1, 3 and 4
// channels; alpha is computed and then overwritten by the copy) and are written so that the
// compiler vectorizes them. Only the two pixels at each end of a row go through the border's
// column map.
#include <cstring>
#include <stdexcept>
#include <vector>

#include "row_kernels.hpp"
#include "row_kernels_internal.hpp"
#include "simd_kernels.hpp"

namespace parfilter::kernels {
namespace {

using detail::copy_alpha;
using detail::filtered_channels;
using detail::for_each_padded_row;

constexpr std::uint32_t kGaussianRounding = 1U << (kGaussianShift - 1);
constexpr int kByteBits = 8;
constexpr unsigned kLowByte = 0xFFU;
constexpr unsigned kHalfByte = 1U << (kByteBits - 1);

std::uint8_t gaussian_round(std::uint32_t acc) {
  return static_cast<std::uint8_t>((acc + kGaussianRounding) >> kGaussianShift);
}

/// The 1-D weights as 16-bit lanes: q0 = q_-2 = q_2, q1 = q_-1 = q_1 (they are symmetric),
/// q2 the centre.
struct Taps16 {
  std::uint16_t q0, q1, q2;
};

/// Row pass over samples [begin, end) of an image row: out[i] = sum_k q_k in[i + (k - 2) C],
/// with the symmetric taps paired. Every partial sum is at most 256 * 255 < 2^16, so 16-bit
/// lanes are exact.
template <int C>
PARFILTER_VECTOR_CLONES void gaussian_row_interior(const std::uint8_t* in, std::uint16_t* out,
                                                   std::ptrdiff_t begin, std::ptrdiff_t end,
                                                   Taps16 q) {
  for (std::ptrdiff_t i = begin; i < end; ++i) {
    out[i] = static_cast<std::uint16_t>(q.q0 * (in[i - 2 * C] + in[i + 2 * C]) +
                                        q.q1 * (in[i - C] + in[i + C]) + q.q2 * in[i]);
  }
}

/// Column pass from sample `begin`: out[i] = (sum_k q_k r_k[i] + 32768) >> 16, in 16-bit lanes.
/// With r = 256 h + l (h, l < 256), the sum is 256 A + B for A = sum q_k h_k and B = sum q_k l_k,
/// both at most 65280, and floor((256 A + B + 32768) / 65536) = floor((A + floor(B / 256) + 128) /
/// 256). That numerator stays below 65536 because the result is at most 255.
PARFILTER_VECTOR_CLONES void gaussian_column(const std::uint16_t* const* r, std::uint8_t* out,
                                             std::ptrdiff_t begin, std::ptrdiff_t samples,
                                             Taps16 q) {
  const std::uint16_t* r0 = r[0];
  const std::uint16_t* r1 = r[1];
  const std::uint16_t* r2 = r[2];
  const std::uint16_t* r3 = r[3];
  const std::uint16_t* r4 = r[4];
  for (std::ptrdiff_t i = begin; i < samples; ++i) {
    const auto high = static_cast<std::uint16_t>(
        q.q0 * ((r0[i] >> kByteBits) + (r4[i] >> kByteBits)) +
        q.q1 * ((r1[i] >> kByteBits) + (r3[i] >> kByteBits)) + q.q2 * (r2[i] >> kByteBits));
    const auto low = static_cast<std::uint16_t>(q.q0 * ((r0[i] & kLowByte) + (r4[i] & kLowByte)) +
                                                q.q1 * ((r1[i] & kLowByte) + (r3[i] & kLowByte)) +
                                                q.q2 * (r2[i] & kLowByte));
    const auto rounded = static_cast<std::uint16_t>(high + (low >> kByteBits) + kHalfByte);
    out[i] = static_cast<std::uint8_t>(rounded >> kByteBits);
  }
}

/// Every filtered sample of `rows`: the rounded sum over its 5x5 window of term(i, j, value),
/// the tap in window row i, column j, reading `value` (direct and lut differ in the term alone).
template <class Term>
void gaussian5x5_window_rows(const ConstImageView& src, const ImageView& dst, RowRange rows,
                             BorderMode border, const Term& term) {
  const int width = src.width();
  const int channels = src.channels();
  const int filtered = filtered_channels(channels);
  for_each_padded_row(
      src, rows, border, kGaussianHalo, dst,
      [&](int y, const std::uint8_t* const* taps, std::uint8_t* out) {
        for (int x = 0; x < width; ++x) {
          for (int c = 0; c < filtered; ++c) {
            std::uint32_t acc = 0;
            for (int i = 0; i < kGaussianTaps; ++i) {
              const std::uint8_t* p = taps[i] + static_cast<std::ptrdiff_t>(x) * channels + c;
              for (int j = 0; j < kGaussianTaps; ++j) acc += term(i, j, p[j * channels]);
            }
            out[static_cast<std::ptrdiff_t>(x) * channels + c] = gaussian_round(acc);
          }
        }
        copy_alpha(src, dst, y);
      });
}

}  // namespace

void gaussian5x5_direct_rows(const ConstImageView& src, const ImageView& dst, RowRange rows,
                             const GaussianWeights& weights, BorderMode border) {
  std::uint32_t w[kGaussianTaps][kGaussianTaps];
  for (int i = 0; i < kGaussianTaps; ++i) {
    for (int j = 0; j < kGaussianTaps; ++j)
      w[i][j] = static_cast<std::uint32_t>(weights.weight(i, j));
  }
  gaussian5x5_window_rows(src, dst, rows, border,
                          [&](int i, int j, std::uint8_t value) { return w[i][j] * value; });
}

void gaussian5x5_lut_rows(const ConstImageView& src, const ImageView& dst, RowRange rows,
                          const GaussianLut& lut, BorderMode border) {
  // The table of weight * value for each tap: no multiplication in the inner loop.
  const std::uint32_t* tap_lut[kGaussianTaps][kGaussianTaps];
  for (int i = 0; i < kGaussianTaps; ++i) {
    for (int j = 0; j < kGaussianTaps; ++j) {
      tap_lut[i][j] = lut[static_cast<std::size_t>(gaussian_weight_class(i, j))].data();
    }
  }
  gaussian5x5_window_rows(src, dst, rows, border,
                          [&](int i, int j, std::uint8_t value) { return tap_lut[i][j][value]; });
}

void gaussian5x5_separable_rows(const ConstImageView& src, const ImageView& dst, RowRange rows,
                                const GaussianWeights& weights, BorderMode border, Loops loops) {
  const int width = src.width();
  const int channels = src.channels();
  const std::ptrdiff_t samples = src.row_samples();
  const auto& q = weights.q;
  if (q[0] != q[4] || q[1] != q[3]) {
    throw std::invalid_argument("gaussian5x5_separable_rows: the weights must be symmetric");
  }
  const Taps16 taps{static_cast<std::uint16_t>(q[0]), static_cast<std::uint16_t>(q[1]),
                    static_cast<std::uint16_t>(q[2])};
  const simd::GaussianTaps simd_taps{q[0], q[1], q[2]};
  const bool vector = uses_simd(loops);
  const detail::BorderRows border_rows(src, border);
  const detail::EdgeColumns edges(width, kGaussianHalo, border);
  const std::vector<int> edge_xs = edges.edge_pixels();
  // Interior pixels [2, width - 2) have all five taps inside the row.
  const std::ptrdiff_t interior_begin = static_cast<std::ptrdiff_t>(kGaussianHalo) * channels;
  const std::ptrdiff_t interior_end =
      std::max(interior_begin, static_cast<std::ptrdiff_t>(width - kGaussianHalo) * channels);
  // Row sums are kept exact in 16 bits: nothing is rounded between the passes, so the result
  // equals the 2-D sum. A constant row gives 256 * V.
  const auto row_pass = [&](int y, std::uint16_t* out) {
    const std::uint8_t* in = border_rows.row(y);
    const std::ptrdiff_t first =
        vector ? simd::gaussian_row(in, out, interior_begin, interior_end, channels, simd_taps)
               : interior_begin;
    switch (channels) {
      case 1:
        gaussian_row_interior<1>(in, out, first, interior_end, taps);
        break;
      case 3:
        gaussian_row_interior<3>(in, out, first, interior_end, taps);
        break;
      default:
        gaussian_row_interior<4>(in, out, first, interior_end, taps);
        break;
    }
    for (std::size_t e = 0; e < edge_xs.size(); ++e) {
      for (int c = 0; c < channels; ++c) {
        int sum = 0;
        for (int k = 0; k < kGaussianTaps; ++k) {
          sum += q[k] * edges.sample(in, static_cast<int>(e), k, c, channels);
        }
        out[static_cast<std::ptrdiff_t>(edge_xs[e]) * channels + c] =
            static_cast<std::uint16_t>(sum);
      }
    }
  };
  detail::RowRing<std::uint16_t> ring(kGaussianHalo, static_cast<std::size_t>(samples));
  for (int y = rows.begin; y < rows.end; ++y) {
    ring.advance_to(y, row_pass);
    const std::ptrdiff_t first =
        vector ? simd::gaussian_column(ring.taps(), dst.row(y), samples, simd_taps,
                                       detail::output_store(src, y, loops))
               : 0;
    gaussian_column(ring.taps(), dst.row(y), first, samples, taps);
    // The SIMD stores put alpha back; the plain loop's pixels (all, without SIMD) need it.
    copy_alpha(src, dst, y, Loops::plain, static_cast<int>(first / channels));
  }
}

}  // namespace parfilter::kernels
