// van Herk/Gil-Werman min/max filters: the window's result is op(suffix of one segment,
// prefix of the next), segments being as long as the window, so each sample costs about
// three min/max whatever the window length.
//
// Column pass: the recurrences run down the rows, so each step is a whole-row min/max, which
// the compiler vectorizes. Row pass: the recurrences run along a row, with no vector
// parallelism inside one row, so kVhgwLanes rows are byte-transposed (16x16 tiles, SSE2
// where available) into "lines" holding one pixel of every row; the recurrences then run
// over lines, each step a vector min/max across the rows, and the result is transposed back.
#include <cstring>

#include "row_kernels_internal.hpp"
#include "row_kernels_morphology.hpp"
#include "simd_kernels.hpp"

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace parfilter::kernels::detail {
namespace {

constexpr int kTile = kVhgwLanes;  ///< the transpose's tile: kVhgwLanes x kVhgwLanes bytes
static_assert(kTile == 16, "the SSE2 transpose handles 16 x 16 byte tiles");

#if defined(__SSE2__)
/// Transposes a 16 x 16 byte tile held in 16 vectors, in four interleaving stages (bytes,
/// then 16-, 32- and 64-bit units).
inline __attribute__((always_inline)) void transpose_tile(__m128i v[kTile]) {
  __m128i pairs[kTile];  // pairs[p]: rows 2p, 2p+1 columns 0-7; pairs[p + 8]: columns 8-15
  for (int p = 0; p < kTile / 2; ++p) {
    pairs[p] = _mm_unpacklo_epi8(v[2 * p], v[2 * p + 1]);
    pairs[p + kTile / 2] = _mm_unpackhi_epi8(v[2 * p], v[2 * p + 1]);
  }
  __m128i quads[kTile];  // quads[q + 4 g]: rows 4q..4q+3, columns 4g..4g+3
  for (int q = 0; q < kTile / 4; ++q) {
    quads[q] = _mm_unpacklo_epi16(pairs[2 * q], pairs[2 * q + 1]);
    quads[q + 4] = _mm_unpackhi_epi16(pairs[2 * q], pairs[2 * q + 1]);
    quads[q + 8] = _mm_unpacklo_epi16(pairs[2 * q + 8], pairs[2 * q + 9]);
    quads[q + 12] = _mm_unpackhi_epi16(pairs[2 * q + 8], pairs[2 * q + 9]);
  }
  __m128i octets[kTile];  // octets[o + 2m]: rows 8o..8o+7, columns 2m, 2m+1
  for (int o = 0; o < 2; ++o) {
    for (int g = 0; g < kTile / 4; ++g) {
      octets[o + 2 * (2 * g)] = _mm_unpacklo_epi32(quads[2 * o + 4 * g], quads[2 * o + 1 + 4 * g]);
      octets[o + 2 * (2 * g + 1)] =
          _mm_unpackhi_epi32(quads[2 * o + 4 * g], quads[2 * o + 1 + 4 * g]);
    }
  }
  for (int m = 0; m < kTile / 2; ++m) {
    v[2 * m] = _mm_unpacklo_epi64(octets[2 * m], octets[2 * m + 1]);
    v[2 * m + 1] = _mm_unpackhi_epi64(octets[2 * m], octets[2 * m + 1]);
  }
}
#endif

/// lines[s * kTile + lane] = rows[lane][s] for s in [0, samples).
void rows_to_lines(const std::uint8_t* const* rows, std::size_t samples, std::uint8_t* lines) {
  std::size_t s = 0;
#if defined(__SSE2__)
  for (; s + kTile <= samples; s += kTile) {
    __m128i v[kTile];
    for (int lane = 0; lane < kTile; ++lane) {
      v[lane] = _mm_loadu_si128(reinterpret_cast<const __m128i*>(rows[lane] + s));
    }
    transpose_tile(v);
    for (int j = 0; j < kTile; ++j) {
      _mm_storeu_si128(reinterpret_cast<__m128i*>(lines + (s + j) * kTile), v[j]);
    }
  }
#endif
  for (; s < samples; ++s) {
    for (int lane = 0; lane < kTile; ++lane) lines[s * kTile + lane] = rows[lane][s];
  }
}

/// rows[lane][s] = lines[s * kTile + lane] for s in [0, samples).
void lines_to_rows(const std::uint8_t* lines, std::size_t samples, std::uint8_t* const* rows) {
  std::size_t s = 0;
#if defined(__SSE2__)
  for (; s + kTile <= samples; s += kTile) {
    __m128i v[kTile];
    for (int j = 0; j < kTile; ++j) {
      v[j] = _mm_loadu_si128(reinterpret_cast<const __m128i*>(lines + (s + j) * kTile));
    }
    transpose_tile(v);
    for (int lane = 0; lane < kTile; ++lane) {
      _mm_storeu_si128(reinterpret_cast<__m128i*>(rows[lane] + s), v[lane]);
    }
  }
#endif
  for (; s < samples; ++s) {
    for (int lane = 0; lane < kTile; ++lane) rows[lane][s] = lines[s * kTile + lane];
  }
}

/// row_vhgw for C channels: a line (one pixel of every lane) is kVhgwLanes * C bytes, a
/// constant, so each line step is a few whole vectors.
template <typename Op, int C>
PARFILTER_VECTOR_CLONES void row_vhgw_lines(const std::uint8_t* const* padded,
                                            std::uint8_t* const* out, int width, int window,
                                            int padded_pixels, std::vector<std::uint8_t>& scratch) {
  constexpr std::size_t kLine = static_cast<std::size_t>(kVhgwLanes) * C;
  const std::size_t line_count = static_cast<std::size_t>(padded_pixels);
  scratch.resize(2 * line_count * kLine);
  std::uint8_t* lines = scratch.data();
  std::uint8_t* prefix = lines + line_count * kLine;
  rows_to_lines(padded, line_count * C, lines);
  // prefix[q] = op over lines [segment start, q].
  for (std::size_t q = 0, in_segment = 0; q < line_count; ++q) {
    std::uint8_t* p = prefix + q * kLine;
    const std::uint8_t* t = lines + q * kLine;
    if (in_segment == 0) {
      std::memcpy(p, t, kLine);
    } else {
      for (std::size_t i = 0; i < kLine; ++i) p[i] = Op::apply(p[i - kLine], t[i]);
    }
    in_segment = in_segment + 1 == static_cast<std::size_t>(window) ? 0 : in_segment + 1;
  }
  // Backwards: suffix = op over lines [q, segment end]; the window [q, q + window) is the
  // suffix at q and the prefix at q + window - 1. The result goes over line q, consumed.
  // line_count is a multiple of window, so the last line ends a segment.
  const std::size_t segment_end = static_cast<std::size_t>(window) - 1;
  std::uint8_t suffix[kLine];
  for (std::size_t q = line_count, in_segment = 0; q-- > 0;) {
    in_segment = in_segment == 0 ? segment_end : in_segment - 1;
    std::uint8_t* t = lines + q * kLine;
    if (in_segment == segment_end) {
      std::memcpy(suffix, t, kLine);
    } else {
      for (std::size_t i = 0; i < kLine; ++i) suffix[i] = Op::apply(suffix[i], t[i]);
    }
    if (q < static_cast<std::size_t>(width)) {
      const std::uint8_t* p = prefix + (q + static_cast<std::size_t>(window) - 1) * kLine;
      for (std::size_t i = 0; i < kLine; ++i) t[i] = Op::apply(suffix[i], p[i]);
    }
  }
  lines_to_rows(lines, static_cast<std::size_t>(width) * C, out);
}

}  // namespace

/// The plain combines, from sample i: loops the compiler vectorizes.
template <typename Op>
PARFILTER_VECTOR_CLONES void plain_combine(const std::uint8_t* a, const std::uint8_t* b,
                                           std::uint8_t* out, std::size_t i, std::size_t n) {
  for (; i < n; ++i) out[i] = Op::apply(a[i], b[i]);
}

template <typename Op>
PARFILTER_VECTOR_CLONES void plain_combine3(const std::uint8_t* a, const std::uint8_t* b,
                                            const std::uint8_t* c, std::uint8_t* out, std::size_t i,
                                            std::size_t n) {
  for (; i < n; ++i) out[i] = Op::apply(Op::apply(a[i], b[i]), c[i]);
}

/// Puts back alpha (every 4th byte from byte 3) of the samples [first, n) the plain loop wrote,
/// where the SIMD stores put back the rest (simd::RowStore::alpha).
void plain_alpha(const simd::RowStore& store, std::uint8_t* out, std::size_t first, std::size_t n) {
  if (store.alpha == nullptr) return;
  constexpr std::size_t kPixel = 4;
  for (std::size_t i = first / kPixel * kPixel + kAlphaChannel; i < n; i += kPixel) {
    out[i] = store.alpha[i];
  }
}

template <typename Op>
void combine(const std::uint8_t* a, const std::uint8_t* b, std::uint8_t* out, std::size_t n,
             Loops loops, const simd::RowStore& store) {
  const std::size_t first = uses_simd(loops) ? simd::combine(a, b, out, n, Op::kOp, store) : 0;
  plain_combine<Op>(a, b, out, first, n);
  plain_alpha(store, out, first, n);
}

template <typename Op>
void combine3(const std::uint8_t* a, const std::uint8_t* b, const std::uint8_t* c,
              std::uint8_t* out, std::size_t n, Loops loops, const simd::RowStore& store) {
  const std::size_t first = uses_simd(loops) ? simd::combine3(a, b, c, out, n, Op::kOp, store) : 0;
  plain_combine3<Op>(a, b, c, out, first, n);
  plain_alpha(store, out, first, n);
}

template <typename Op>
ColumnVhgw<Op>::ColumnVhgw(const SourceRows& rows, int first_row, int dy, int height, Loops loops)
    : rows_(rows),
      first_start_(first_row + dy),
      height_(height),
      loops_(loops),
      suffix_(rows.bytes() * static_cast<std::size_t>(height - 1)),
      prefix_(rows.bytes()) {}

template <typename Op>
void ColumnVhgw<Op>::next(std::uint8_t* out) {
  const std::size_t n = rows_.bytes();
  const int j = index_ % height_;
  const int segment_start = first_start_ + index_ - j;
  const auto suffix = [&](int i) { return suffix_.data() + static_cast<std::size_t>(i) * n; };
  if (j == 0) {
    // A new segment: suffix(i) = op over source rows [segment_start + i, segment_start + h);
    // the last one is the source row itself, not copied.
    last_row_ = rows_.row(segment_start + height_ - 1);
    const std::uint8_t* later = last_row_;
    for (int i = height_ - 2; i >= 0; --i) {
      combine<Op>(rows_.row(segment_start + i), later, suffix(i), n, loops_);
      later = suffix(i);
    }
    std::memcpy(out, later, n);
  } else {
    // Window [segment_start + j, segment_start + h + j): suffix j, and the next segment's
    // prefix over its rows [0, j), which is the entering row alone for j = 1.
    const std::uint8_t* entering = rows_.row(segment_start + height_ + j - 1);
    if (j == 1) {
      prefix_row_ = entering;
    } else {
      combine<Op>(prefix_row_, entering, prefix_.data(), n, loops_);
      prefix_row_ = prefix_.data();
    }
    combine<Op>(j == height_ - 1 ? last_row_ : suffix(j), prefix_row_, out, n, loops_);
  }
  ++index_;
}

template <typename Op>
void row_vhgw(const std::uint8_t* const* padded, std::uint8_t* const* out, int width, int channels,
              int window, int padded_pixels, std::vector<std::uint8_t>& scratch) {
  switch (channels) {
    case 1:
      row_vhgw_lines<Op, 1>(padded, out, width, window, padded_pixels, scratch);
      break;
    case 3:
      row_vhgw_lines<Op, 3>(padded, out, width, window, padded_pixels, scratch);
      break;
    default:
      row_vhgw_lines<Op, 4>(padded, out, width, window, padded_pixels, scratch);
      break;
  }
}

template void combine<MinOp>(const std::uint8_t*, const std::uint8_t*, std::uint8_t*, std::size_t,
                             Loops, const simd::RowStore&);
template void combine<MaxOp>(const std::uint8_t*, const std::uint8_t*, std::uint8_t*, std::size_t,
                             Loops, const simd::RowStore&);
template void combine3<MinOp>(const std::uint8_t*, const std::uint8_t*, const std::uint8_t*,
                              std::uint8_t*, std::size_t, Loops, const simd::RowStore&);
template void combine3<MaxOp>(const std::uint8_t*, const std::uint8_t*, const std::uint8_t*,
                              std::uint8_t*, std::size_t, Loops, const simd::RowStore&);
template class ColumnVhgw<MinOp>;
template class ColumnVhgw<MaxOp>;
template void row_vhgw<MinOp>(const std::uint8_t* const*, std::uint8_t* const*, int, int, int, int,
                              std::vector<std::uint8_t>&);
template void row_vhgw<MaxOp>(const std::uint8_t* const*, std::uint8_t* const*, int, int, int, int,
                              std::vector<std::uint8_t>&);

}  // namespace parfilter::kernels::detail
