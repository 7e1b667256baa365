// SIMD point loops (simd_kernels.hpp): luma, threshold, table look-up, 2x2 pool, alpha copy.
// foreach_target.h compiles this file once per Highway target; the HWY_ONCE part at the end
// holds the dispatching entry points. docs/CPU_KERNELS.md explains each loop.
// clang-format off
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "simd_point.cpp"
#include <hwy/foreach_target.h>  // IWYU pragma: keep
// clang-format on
#include <hwy/highway.h>

#include <algorithm>

#include "simd_helpers-inl.h"
#include "simd_kernels.hpp"
#include "simd_targets.hpp"

HWY_BEFORE_NAMESPACE();
namespace parfilter::kernels::simd {
namespace HWY_NAMESPACE {

#if HWY_TARGET != HWY_SCALAR
constexpr int kPixelsPerBlock = 4;        ///< 32-bit pixel slots in a 128-bit block
constexpr std::uint8_t kZeroByte = 0x80;  ///< a byte-shuffle index that yields 0
constexpr std::uint8_t kLowByte = 0xFF;
constexpr int kByteBits = 8;
constexpr int kRgb = 3;
constexpr int kRgba = 4;
constexpr std::uint8_t kNibble = 16;
/// Added with saturation to an index that should select entry 0..15 of a 16-byte table: it
/// keeps 0..15 below 0x80 (low nibble intact) and sends 16..255 to 0x80 or more (yields 0).
constexpr std::uint8_t kTableGuard = 0x70;
constexpr std::size_t kTables = 16;  ///< a 256-entry table as 16 tables of 16 entries
/// The most 32-bit lanes of any target (AVX-512): the size of index arrays.
constexpr std::size_t kMaxLanes32 = 16;
constexpr std::size_t kVectorBytes512 = 64;
/// Room for n8 RGBA pixels and the last group's load past them (n8 + n32 bytes past its
/// start), on any target.
constexpr std::size_t kTailBytes = kVectorBytes512 * kRgba + kMaxLanes32;
constexpr std::ptrdiff_t kCacheLineBytes = 64;
constexpr std::ptrdiff_t kPrefetchAheadBytes = 2048;
#endif

/// Luma: each 32-bit lane holds one pixel as the 16-bit pairs (R, B) and (G, 1) (byte shuffles
/// within each 128-bit block, which holds 4 pixels), and two pmaddwd give
/// wr R + wb B + wg G + round; after the shift, the 32-bit lanes narrow to bytes in order.
int LumaRow(const std::uint8_t* in, std::uint8_t* out, int width, int channels, int wr, int wg,
            int wb, int shift, RowStore store) {
#if HWY_TARGET == HWY_SCALAR
  (void)in, (void)out, (void)width, (void)channels, (void)wr, (void)wg, (void)wb, (void)shift,
      (void)store;
  return 0;
#else
  const D8 d8;
  const D16 d16;
  const D32 d32;
  const DU32 du32;
  const int n8 = static_cast<int>(hn::Lanes(d8));    // pixels per iteration
  const int n32 = static_cast<int>(hn::Lanes(d32));  // pixels per group (one 32-bit lane each)
  const auto rb_weights = hn::BitCast(
      d16, hn::Set(du32, (static_cast<std::uint32_t>(wb) << 16) | static_cast<std::uint32_t>(wr)));
  const auto g_weights =
      hn::BitCast(d16, hn::Set(du32, (static_cast<std::uint32_t>(1U << (shift - 1)) << 16) |
                                         static_cast<std::uint32_t>(wg)));
  const auto one_high = hn::BitCast(d8, hn::Set(du32, 1U << 16));  // the 1 of (G, 1)
#if HWY_TARGET == HWY_AVX3_DL
  // VBMI: one byte permute across the whole vector per pair layout, zeroing the high bytes
  // (or taking them from one_high), instead of a lane permute and two byte shuffles.
  alignas(kVectorBytes512) std::uint8_t rb_pick[kVectorBytes512] = {};
  alignas(kVectorBytes512) std::uint8_t g_pick[kVectorBytes512] = {};
  for (int j = 0; j < n32; ++j) {
    rb_pick[kPixelsPerBlock * j] = static_cast<std::uint8_t>(channels * j);
    rb_pick[kPixelsPerBlock * j + 2] = static_cast<std::uint8_t>(channels * j + 2);
    g_pick[kPixelsPerBlock * j] = static_cast<std::uint8_t>(channels * j + 1);
  }
  const __m512i rb_index = _mm512_load_si512(rb_pick);
  const __m512i g_index = _mm512_load_si512(g_pick);
  constexpr __mmask64 kPairLowBytes = 0x5555555555555555ULL;  // bytes 0 and 2 of each 32 bits
  constexpr __mmask64 kFirstBytes = 0x1111111111111111ULL;    // byte 0 of each 32 bits
  const auto group = [&](const std::uint8_t* p) {
    const __m512i v = _mm512_loadu_si512(p);
    const __m512i rb = _mm512_maskz_permutexvar_epi8(kPairLowBytes, rb_index, v);
    const __m512i g1 = _mm512_mask_permutexvar_epi8(one_high.raw, kFirstBytes, g_index, v);
    const __m512i sum = _mm512_add_epi32(_mm512_madd_epi16(rb, rb_weights.raw),
                                         _mm512_madd_epi16(g1, g_weights.raw));
    return hn::ShiftRightSame(hn::VFromD<D32>{sum}, shift);
  };
#else
  alignas(kBlockBytes) std::uint8_t rb_mask[kBlockBytes];
  alignas(kBlockBytes) std::uint8_t g_mask[kBlockBytes];
  for (int k = 0; k < kPixelsPerBlock; ++k) {
    const auto at = static_cast<std::uint8_t>(channels * k);
    const std::uint8_t rb[kPixelsPerBlock] = {at, kZeroByte, static_cast<std::uint8_t>(at + 2),
                                              kZeroByte};
    const std::uint8_t g[kPixelsPerBlock] = {static_cast<std::uint8_t>(at + 1), kZeroByte,
                                             kZeroByte, kZeroByte};
    std::copy_n(rb, kPixelsPerBlock, rb_mask + kPixelsPerBlock * k);
    std::copy_n(g, kPixelsPerBlock, g_mask + kPixelsPerBlock * k);
  }
  const auto rb_index = hn::LoadDup128(d8, rb_mask);
  const auto g_index = hn::LoadDup128(d8, g_mask);
  // RGB: block b takes 32-bit slots 3b..3b+2 (its 4 pixels, 12 bytes) of the load.
  std::int32_t spread[kMaxLanes32];
  for (int j = 0; j < n32; ++j) {
    spread[j] = kRgb * (j / kPixelsPerBlock) + std::min(j % kPixelsPerBlock, 2);
  }
  const auto spread_index = hn::SetTableIndices(d32, spread);
  const bool spread_blocks = channels == kRgb && n32 > kPixelsPerBlock;
  const auto group = [&](const std::uint8_t* p) {
    auto v = hn::LoadU(d8, p);
    if (spread_blocks) v = hn::BitCast(d8, hn::TableLookupLanes(hn::BitCast(d32, v), spread_index));
    const auto rb = hn::BitCast(d16, hn::TableLookupBytesOr0(v, rb_index));
    const auto g1 = hn::BitCast(d16, hn::Or(hn::TableLookupBytesOr0(v, g_index), one_high));
    return hn::ShiftRightSame(hn::Add(MulAddPairs(rb, rb_weights), MulAddPairs(g1, g_weights)),
                              shift);
  };
#endif
  const std::ptrdiff_t row_bytes = static_cast<std::ptrdiff_t>(width) * channels;
  const std::ptrdiff_t group_bytes = static_cast<std::ptrdiff_t>(n32) * channels;
  const auto lumas = [&](const std::uint8_t* p) {  // the n8 pixels from p
    return DemoteU8(group(p), group(p + group_bytes), group(p + 2 * group_bytes),
                    group(p + 3 * group_bytes));
  };
  // The last group's load reads n8 bytes from its first pixel: x may go up to last_x.
  const std::ptrdiff_t last_byte = row_bytes - 3 * group_bytes - n8;
  if (last_byte < 0) return 0;
  const std::ptrdiff_t last_x = last_byte / channels;
  // One core's reads here catch up with its hardware prefetchers: on the GPU machine's Xeon a
  // prefetch 2 KiB ahead took gray from 86% to 93% of a one-thread memcpy (medians of 8 runs).
  std::ptrdiff_t x = StoreRow(out, 0, last_x + n8, store, [&](std::ptrdiff_t at) {
    const std::uint8_t* p = in + at * channels;
    for (std::ptrdiff_t line = 0; line < n8 * channels; line += kCacheLineBytes) {
      hwy::Prefetch(p + kPrefetchAheadBytes + line);
    }
    return lumas(p);
  });
  // The row's last pixels, whose RGB loads would read past its end: n8 at a time from a copy
  // with room for those loads (the last vector overlapping the one before), instead of up to
  // two vectors' worth of the plain loop (a tenth of the row's time on 3840-wide RGB).
  while (x < width) {
    alignas(kVectorBytes512) std::uint8_t tail[kTailBytes] = {};
    const std::ptrdiff_t tail_x = std::min<std::ptrdiff_t>(x, width - n8);
    std::copy_n(in + tail_x * channels, n8 * channels, tail);
    hn::StoreU(lumas(tail), d8, out + tail_x);
    x = tail_x + n8;
  }
  return static_cast<int>(x);
#endif
}

std::ptrdiff_t ThresholdRow(const std::uint8_t* in, std::uint8_t* out, std::ptrdiff_t n,
                            int threshold, RowStore store) {
#if HWY_TARGET == HWY_SCALAR
  (void)in, (void)out, (void)n, (void)threshold, (void)store;
  return 0;
#else
  const D8 d8;
  const auto t = hn::Set(d8, static_cast<std::uint8_t>(threshold));
  return StoreRow(out, 0, n, store, [&](std::ptrdiff_t i) {
    return hn::VecFromMask(d8, hn::Gt(hn::LoadU(d8, in + i), t));
  });
#endif
}

/// A 256-entry table as 16 byte shuffles of 16 entries: table k serves the values 16k..16k+15,
/// whose index v - 16k (wrapping) is 0..15; the saturating guard zeroes every other table's
/// contribution, so an OR of the 16 gives the entry.
std::ptrdiff_t LutRow(const std::uint8_t* in, std::uint8_t* out, std::ptrdiff_t n,
                      const std::uint8_t* lut, RowStore store) {
#if HWY_TARGET == HWY_SCALAR
  (void)in, (void)out, (void)n, (void)lut, (void)store;
  return 0;
#elif HWY_TARGET == HWY_AVX3_DL
  // VBMI: the table as four vectors of 64 entries; one two-table byte permute looks up entries
  // 0..127 (index bit 6 picks the vector), another 128..255, and bit 7 picks between them:
  // three shuffles per 64 samples instead of sixteen.
  const __m512i t0 = _mm512_loadu_si512(lut);
  const __m512i t1 = _mm512_loadu_si512(lut + kVectorBytes512);
  const __m512i t2 = _mm512_loadu_si512(lut + 2 * kVectorBytes512);
  const __m512i t3 = _mm512_loadu_si512(lut + 3 * kVectorBytes512);
  return StoreRow(out, 0, n, store, [&](std::ptrdiff_t i) {
    const __m512i index = _mm512_loadu_si512(in + i);
    const __m512i low = _mm512_permutex2var_epi8(t0, index, t1);
    const __m512i high = _mm512_permutex2var_epi8(t2, index, t3);
    return hn::VFromD<D8>{_mm512_mask_blend_epi8(_mm512_movepi8_mask(index), low, high)};
  });
#else
  const D8 d8;
  hn::Vec<D8> tables[kTables];
  for (std::size_t k = 0; k < kTables; ++k) tables[k] = hn::LoadDup128(d8, lut + kNibble * k);
  const auto guard = hn::Set(d8, kTableGuard);
  const auto step = hn::Set(d8, kNibble);
  return StoreRow(out, 0, n, store, [&](std::ptrdiff_t i) {
    auto index = hn::LoadU(d8, in + i);
    auto result = hn::TableLookupBytesOr0(tables[0], hn::SaturatedAdd(index, guard));
    for (std::size_t k = 1; k < kTables; ++k) {
      index = hn::Sub(index, step);
      result = hn::Or(result, hn::TableLookupBytesOr0(tables[k], hn::SaturatedAdd(index, guard)));
    }
    return result;
  });
#endif
}

/// 2x2 max pool: the vertical max of the two rows, then the max of each horizontal pair of
/// pixels: gray as the two bytes of a 16-bit lane, RGBA as the two halves of a 64-bit lane
/// (the even 32-bit lanes then hold the results), RGB as planes.
int PoolRow(const std::uint8_t* row0, const std::uint8_t* row1, std::uint8_t* out, int out_pixels,
            int channels, RowStore store) {
#if HWY_TARGET == HWY_SCALAR
  (void)row0, (void)row1, (void)out, (void)out_pixels, (void)channels, (void)store;
  return 0;
#else
  const D8 d8;
  const DU16 du16;
  const DU32 du32;
  const hn::Repartition<std::uint64_t, D8> du64;
  const auto n8 = static_cast<std::ptrdiff_t>(hn::Lanes(d8));
  const auto pair_max16 = [&](hn::Vec<D8> v) {  // bytes 2k, 2k+1 -> 16-bit lane k
    const auto w = hn::BitCast(du16, v);
    return hn::BitCast(D16(),
                       hn::Max(hn::And(w, hn::Set(du16, kLowByte)), hn::ShiftRight<kByteBits>(w)));
  };
  const auto vmax = [&](std::ptrdiff_t at) {
    return hn::Max(hn::LoadU(d8, row0 + at), hn::LoadU(d8, row1 + at));
  };
  if (channels == 1) {
    return static_cast<int>(StoreRow(out, 0, out_pixels, store, [&](std::ptrdiff_t p) {
      return DemoteU8(pair_max16(vmax(2 * p)), pair_max16(vmax(2 * p + n8)));
    }));
  }
  if (channels == kRgba) {
    // Output bytes from x are output pixels from x / 4, read from input byte 2x: on a pixel
    // only if x is, which a streamed row's aligned start is when out is 4-byte aligned.
    constexpr std::uintptr_t kPixel = kRgba;
    if (reinterpret_cast<std::uintptr_t>(out) % kPixel != 0) store.stream = false;
    const auto pair_max32 = [&](hn::Vec<D8> v) {  // pixels 2k, 2k+1 -> 32-bit lane 2k
      return hn::BitCast(du32,
                         hn::Max(v, hn::BitCast(d8, hn::ShiftRight<32>(hn::BitCast(du64, v)))));
    };
    const std::ptrdiff_t bytes = static_cast<std::ptrdiff_t>(out_pixels) * kRgba;
    const std::ptrdiff_t done = StoreRow(out, 0, bytes, store, [&](std::ptrdiff_t x) {
      return hn::BitCast(
          d8, hn::ConcatEven(du32, pair_max32(vmax(2 * x + n8)), pair_max32(vmax(2 * x))));
    });
    return static_cast<int>(done / kRgba);
  }
  int p = 0;
  for (; p + n8 <= out_pixels; p += static_cast<int>(n8)) {
    hn::Vec<D8> planes[2][2][kRgb];  // [row][half][channel]
    for (int half = 0; half < 2; ++half) {
      const std::ptrdiff_t at = (2 * static_cast<std::ptrdiff_t>(p) + half * n8) * kRgb;
      hn::LoadInterleaved3(d8, row0 + at, planes[0][half][0], planes[0][half][1],
                           planes[0][half][2]);
      hn::LoadInterleaved3(d8, row1 + at, planes[1][half][0], planes[1][half][1],
                           planes[1][half][2]);
    }
    hn::Vec<D8> pooled[kRgb];
    for (int c = 0; c < kRgb; ++c) {
      pooled[c] = DemoteU8(pair_max16(hn::Max(planes[0][0][c], planes[1][0][c])),
                           pair_max16(hn::Max(planes[0][1][c], planes[1][1][c])));
    }
    hn::StoreInterleaved3(pooled[0], pooled[1], pooled[2], d8, out + p * kRgb);
  }
  return p;
#endif
}

int CopyAlphaRow(const std::uint8_t* from, std::uint8_t* to, int pixels) {
#if HWY_TARGET == HWY_SCALAR
  (void)from, (void)to, (void)pixels;
  return 0;
#else
  const D8 d8;
  const int n = static_cast<int>(hn::Lanes(d8)) / kRgba;
  int p = 0;
  for (; p + n <= pixels; p += n) {
    std::uint8_t* at = to + p * kRgba;
    hn::StoreU(WithAlpha(hn::LoadU(d8, at), hn::LoadU(d8, from + p * kRgba)), d8, at);
  }
  return p;
#endif
}

}  // namespace HWY_NAMESPACE
}  // namespace parfilter::kernels::simd
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace parfilter::kernels::simd {

PARFILTER_SIMD_EXPORT(LumaRow);
PARFILTER_SIMD_EXPORT(ThresholdRow);
PARFILTER_SIMD_EXPORT(LutRow);
PARFILTER_SIMD_EXPORT(PoolRow);
PARFILTER_SIMD_EXPORT(CopyAlphaRow);

int luma_row(const std::uint8_t* in, std::uint8_t* out, int width, int channels,
             detail::LumaWeights w, RowStore store) {
  return PARFILTER_SIMD_DISPATCH(LumaRow)(in, out, width, channels, w.r, w.g, w.b, w.shift, store);
}

std::ptrdiff_t threshold_row(const std::uint8_t* in, std::uint8_t* out, std::ptrdiff_t n,
                             int threshold, RowStore store) {
  constexpr int kMaxThreshold = 255;
  if (threshold < 0 || threshold > kMaxThreshold) return 0;  // the plain loop handles these
  return PARFILTER_SIMD_DISPATCH(ThresholdRow)(in, out, n, threshold, store);
}

std::ptrdiff_t lut_row(const std::uint8_t* in, std::uint8_t* out, std::ptrdiff_t n,
                       const std::uint8_t* lut, RowStore store) {
  return PARFILTER_SIMD_DISPATCH(LutRow)(in, out, n, lut, store);
}

int pool_row(const std::uint8_t* row0, const std::uint8_t* row1, std::uint8_t* out, int out_pixels,
             int channels, RowStore store) {
  return PARFILTER_SIMD_DISPATCH(PoolRow)(row0, row1, out, out_pixels, channels, store);
}

int copy_alpha_row(const std::uint8_t* from, std::uint8_t* to, int pixels) {
  return PARFILTER_SIMD_DISPATCH(CopyAlphaRow)(from, to, pixels);
}

}  // namespace parfilter::kernels::simd
#endif  // HWY_ONCE
