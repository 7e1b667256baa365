// Colour equalization's YCrCb round trip for RGB rows with AVX2 (row_kernels_luma.hpp). The
// scalar path factors the round trip into tables indexed by R - Y and B - Y, one look-up per
// term and pixel; here every term is computed instead, 32 pixels at a time in 16-bit lanes,
// each with OpenCV's own integer expression, so both give the same bytes:
//   Cr' = clamp(descale(dR * kCrFromRMinusY), -128, 127)   (dR = R - Y; the +128 of Cr is a
//   Cb' = clamp(descale(dB * kCbFromBMinusY), -128, 127)    multiple of 2^14: it leaves descale)
//   R = sat(Y' + descale(Cr' kRFromCr)), B = sat(Y' + descale(Cb' kBFromCb)),
//   G = sat(Y' + descale(Cr' kGFromCr + Cb' kGFromCb))
// A descale of one product a*k is pmulhrsw(a, 2k) (or (2a, k) where 2k does not fit 16 bits):
// pmulhrsw rounds (p + 2^14) >> 15 of the product p, which is (a k + 2^13) >> 14. Green's sum of
// two products takes pmaddwd in 32 bits. Saturation is packuswb's.
#include <array>
#include <cstddef>
#include <cstdint>
#include <utility>

#include "row_kernels_internal.hpp"
#include "row_kernels_luma.hpp"

#if defined(PARFILTER_AVX2_DISPATCH)
#include <immintrin.h>
#endif

namespace parfilter::kernels::detail {

#if defined(PARFILTER_AVX2_DISPATCH)
namespace {

constexpr int kLanePixels = 16;  ///< pixels per 128-bit lane: 48 bytes, three 16-byte chunks
constexpr int kLaneBytes = 16;
constexpr int kChunks = kRgbChannels;
constexpr int kBlockPixels = 2 * kLanePixels;  ///< per iteration: lane 0 and lane 1
constexpr std::int8_t kZeroByte = -1;          ///< a pshufb index that writes 0
constexpr int kChromaMin = -ycrcb::kChromaOffset;
constexpr int kChromaMax = ycrcb::kMaxSample - ycrcb::kChromaOffset;
constexpr int kRed = 0;
constexpr int kGreen = 1;
constexpr int kBlue = 2;
constexpr unsigned kLow16 = 0xFFFFU;
constexpr int kHigh16 = 16;

using ShuffleMask = std::array<std::int8_t, 2 * kLaneBytes>;

/// The pshufb mask that gathers channel `channel` of a lane's 16 pixels from its chunk
/// `chunk` (bytes [16 chunk, 16 chunk + 16) of the lane's 48) into bytes 0-15, 0 elsewhere.
constexpr ShuffleMask gather_mask(int channel, int chunk) {
  ShuffleMask mask{};
  for (int i = 0; i < kLanePixels; ++i) {
    const int byte = i * kRgbChannels + channel;
    const auto index =
        static_cast<std::int8_t>(byte / kLaneBytes == chunk ? byte % kLaneBytes : kZeroByte);
    mask[static_cast<std::size_t>(i)] = index;
    mask[static_cast<std::size_t>(i + kLaneBytes)] = index;
  }
  return mask;
}

/// The pshufb mask that scatters a plane of channel `channel` into chunk `chunk` of the
/// interleaved lane, 0 in the bytes of the other channels.
constexpr ShuffleMask scatter_mask(int channel, int chunk) {
  ShuffleMask mask{};
  for (int j = 0; j < kLaneBytes; ++j) {
    const int byte = chunk * kLaneBytes + j;
    const auto index =
        static_cast<std::int8_t>(byte % kRgbChannels == channel ? byte / kRgbChannels : kZeroByte);
    mask[static_cast<std::size_t>(j)] = index;
    mask[static_cast<std::size_t>(j + kLaneBytes)] = index;
  }
  return mask;
}

template <std::size_t... I>
constexpr std::array<ShuffleMask, sizeof...(I)> masks(ShuffleMask (*make)(int, int), int channel,
                                                      std::index_sequence<I...>) {
  return {make(channel, static_cast<int>(I))...};
}

constexpr auto kRedGather = masks(gather_mask, kRed, std::make_index_sequence<kChunks>{});
constexpr auto kBlueGather = masks(gather_mask, kBlue, std::make_index_sequence<kChunks>{});
constexpr std::array<std::array<ShuffleMask, kChunks>, kRgbChannels> kScatter = {
    masks(scatter_mask, kRed, std::make_index_sequence<kChunks>{}),
    masks(scatter_mask, kGreen, std::make_index_sequence<kChunks>{}),
    masks(scatter_mask, kBlue, std::make_index_sequence<kChunks>{})};

__attribute__((target("avx2"), always_inline)) inline __m256i load_mask(const ShuffleMask& m) {
  return _mm256_loadu_si256(reinterpret_cast<const __m256i*>(m.data()));
}

/// One channel plane (bytes, lane order) from the three chunks of each lane.
__attribute__((target("avx2"), always_inline)) inline __m256i gather(
    const __m256i (&chunks)[kChunks], const std::array<ShuffleMask, kChunks>& mask) {
  return _mm256_or_si256(_mm256_or_si256(_mm256_shuffle_epi8(chunks[0], load_mask(mask[0])),
                                         _mm256_shuffle_epi8(chunks[1], load_mask(mask[1]))),
                         _mm256_shuffle_epi8(chunks[2], load_mask(mask[2])));
}

/// The three output planes of 16 pixels (one half of each lane) in 16-bit lanes.
struct Planes16 {
  __m256i r, g, b;
};

/// The round trip of 16-bit R, B, Y and new Y (the module comment's expressions).
__attribute__((target("avx2"), always_inline)) inline Planes16 round_trip(__m256i r, __m256i b,
                                                                          __m256i y,
                                                                          __m256i new_y) {
  using namespace ycrcb;
  const __m256i lo = _mm256_set1_epi16(kChromaMin);
  const __m256i hi = _mm256_set1_epi16(kChromaMax);
  const __m256i cr = _mm256_min_epi16(
      _mm256_max_epi16(
          _mm256_mulhrs_epi16(_mm256_sub_epi16(r, y), _mm256_set1_epi16(2 * kCrFromRMinusY)), lo),
      hi);
  const __m256i cb = _mm256_min_epi16(
      _mm256_max_epi16(
          _mm256_mulhrs_epi16(_mm256_sub_epi16(b, y), _mm256_set1_epi16(2 * kCbFromBMinusY)), lo),
      hi);
  const __m256i red = _mm256_mulhrs_epi16(_mm256_add_epi16(cr, cr), _mm256_set1_epi16(kRFromCr));
  const __m256i blue = _mm256_mulhrs_epi16(_mm256_add_epi16(cb, cb), _mm256_set1_epi16(kBFromCb));
  const __m256i green_weights = _mm256_set1_epi32(static_cast<int>(
      (static_cast<unsigned>(kGFromCb) << kHigh16) | (static_cast<unsigned>(kGFromCr) & kLow16)));
  const __m256i round = _mm256_set1_epi32(1 << (kShift - 1));
  const __m256i green_lo = _mm256_srai_epi32(
      _mm256_add_epi32(_mm256_madd_epi16(_mm256_unpacklo_epi16(cr, cb), green_weights), round),
      kShift);
  const __m256i green_hi = _mm256_srai_epi32(
      _mm256_add_epi32(_mm256_madd_epi16(_mm256_unpackhi_epi16(cr, cb), green_weights), round),
      kShift);
  const __m256i green = _mm256_packs_epi32(green_lo, green_hi);
  return {_mm256_add_epi16(new_y, red), _mm256_add_epi16(new_y, green),
          _mm256_add_epi16(new_y, blue)};
}

__attribute__((target("avx2"))) int equalize_rgb_avx2(const std::uint8_t* in,
                                                      const std::uint8_t* luma,
                                                      const std::uint8_t* new_luma,
                                                      std::uint8_t* out, int width) {
  const __m256i zero = _mm256_setzero_si256();
  constexpr std::ptrdiff_t kLaneStride = static_cast<std::ptrdiff_t>(kLanePixels) * kRgbChannels;
  int x = 0;
  for (; x + kBlockPixels <= width; x += kBlockPixels) {
    const std::uint8_t* p = in + static_cast<std::ptrdiff_t>(x) * kRgbChannels;
    __m256i chunks[kChunks];
    for (int k = 0; k < kChunks; ++k) {
      chunks[k] = _mm256_inserti128_si256(
          _mm256_castsi128_si256(
              _mm_loadu_si128(reinterpret_cast<const __m128i*>(p + k * kLaneBytes))),
          _mm_loadu_si128(reinterpret_cast<const __m128i*>(p + kLaneStride + k * kLaneBytes)), 1);
    }
    const __m256i r8 = gather(chunks, kRedGather);
    const __m256i b8 = gather(chunks, kBlueGather);
    const __m256i y8 = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(luma + x));
    const __m256i n8 = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(new_luma + x));
    const Planes16 low = round_trip(_mm256_unpacklo_epi8(r8, zero), _mm256_unpacklo_epi8(b8, zero),
                                    _mm256_unpacklo_epi8(y8, zero), _mm256_unpacklo_epi8(n8, zero));
    const Planes16 high =
        round_trip(_mm256_unpackhi_epi8(r8, zero), _mm256_unpackhi_epi8(b8, zero),
                   _mm256_unpackhi_epi8(y8, zero), _mm256_unpackhi_epi8(n8, zero));
    const __m256i planes[kRgbChannels] = {_mm256_packus_epi16(low.r, high.r),
                                          _mm256_packus_epi16(low.g, high.g),
                                          _mm256_packus_epi16(low.b, high.b)};
    std::uint8_t* o = out + static_cast<std::ptrdiff_t>(x) * kRgbChannels;
    for (int k = 0; k < kChunks; ++k) {
      const auto chunk = static_cast<std::size_t>(k);
      const __m256i v = _mm256_or_si256(
          _mm256_or_si256(_mm256_shuffle_epi8(planes[0], load_mask(kScatter[0][chunk])),
                          _mm256_shuffle_epi8(planes[1], load_mask(kScatter[1][chunk]))),
          _mm256_shuffle_epi8(planes[2], load_mask(kScatter[2][chunk])));
      _mm_storeu_si128(reinterpret_cast<__m128i*>(o + k * kLaneBytes), _mm256_castsi256_si128(v));
      _mm_storeu_si128(reinterpret_cast<__m128i*>(o + kLaneStride + k * kLaneBytes),
                       _mm256_extracti128_si256(v, 1));
    }
  }
  return x;
}

}  // namespace
#endif

int equalize_rgb_vector(const std::uint8_t* in, const std::uint8_t* luma,
                        const std::uint8_t* new_luma, std::uint8_t* out, int width) {
#if defined(PARFILTER_AVX2_DISPATCH)
  static const bool has_avx2 = __builtin_cpu_supports("avx2") != 0;
  if (has_avx2) return equalize_rgb_avx2(in, luma, new_luma, out, width);
#else
  (void)in, (void)luma, (void)new_luma, (void)out, (void)width;
#endif
  return 0;
}

}  // namespace parfilter::kernels::detail
