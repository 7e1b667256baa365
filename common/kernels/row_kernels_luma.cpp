// The luma row of RGB(A) pixels (row_kernels_luma.hpp). RGB's stride-3 layout defeats the
// auto-vectorizer, so it has hand-written paths: AVX2 where the CPU has it (byte shuffles
// straight from the interleaved row into 16-bit pairs), SSE2 otherwise (a deinterleave by
// unpacks: SSE2 has no byte shuffle), a scalar loop for the tail and other targets. Every
// path computes the same integer expression, so all give the same bytes.
#include "row_kernels_luma.hpp"

#include <cstddef>

#include "row_kernels_internal.hpp"

#if defined(__SSE2__)
#include <emmintrin.h>
#endif
#if defined(PARFILTER_AVX2_DISPATCH)
#include <immintrin.h>
#endif

namespace parfilter::kernels::detail {
namespace {

#if defined(PARFILTER_AVX2_DISPATCH)
/// Pixels per group: one 32-byte load, of which the group's 24 bytes are used.
constexpr int kGroupPixels = 8;
constexpr int kGroupBytes = kGroupPixels * kRgbChannels;
constexpr int kLoadBytes = 32;
/// Groups per iteration: four groups of 32-bit sums pack into one 32-byte store.
constexpr int kGroups = 4;
constexpr int kAvx2Pixels = kGroups * kGroupPixels;
constexpr char kZero = -1;  ///< a pshufb index that writes 0

bool cpu_has_avx2() {
  static const bool has = __builtin_cpu_supports("avx2") != 0;
  return has;
}

/// The luma of a group of 8 RGB pixels as 32-bit values, lane 0 pixels 0-3 and lane 1
/// pixels 4-7: spread bytes [0, 12) to the low lane and [12, 24) to the high one, then one
/// pshufb makes the 16-bit pairs (R, G) and one makes (B, 0), each a pmaddwd with the weights.
struct LumaGroup {
  __m256i rg_pairs, b_pairs, spread, rg_weights, b_weights, round;
  __m128i shift;

  __attribute__((target("avx2"))) explicit LumaGroup(LumaWeights w)
      // Per lane, 4 pixels at bytes 0-11.
      : rg_pairs(_mm256_setr_epi8(0, kZero, 1, kZero, 3, kZero, 4, kZero, 6, kZero, 7, kZero, 9,
                                  kZero, 10, kZero,  // lane 0
                                  0, kZero, 1, kZero, 3, kZero, 4, kZero, 6, kZero, 7, kZero, 9,
                                  kZero, 10, kZero)),
        b_pairs(_mm256_setr_epi8(2, kZero, kZero, kZero, 5, kZero, kZero, kZero, 8, kZero, kZero,
                                 kZero, 11, kZero, kZero, kZero,  // lane 0
                                 2, kZero, kZero, kZero, 5, kZero, kZero, kZero, 8, kZero, kZero,
                                 kZero, 11, kZero, kZero, kZero)),
        spread(_mm256_setr_epi32(0, 1, 2, 3, 3, 4, 5, 6)),  // dwords 3-5: bytes 12-23
        rg_weights(_mm256_set1_epi32(
            static_cast<int>((static_cast<unsigned>(w.g) << 16) | static_cast<unsigned>(w.r)))),
        b_weights(_mm256_set1_epi32(w.b)),
        round(_mm256_set1_epi32(1 << (w.shift - 1))),
        shift(_mm_cvtsi32_si128(w.shift)) {}

  /// Reads 32 bytes from p, of which the group's 24.
  __attribute__((target("avx2"), always_inline)) __m256i operator()(const std::uint8_t* p) const {
    const __m256i v = _mm256_permutevar8x32_epi32(
        _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p)), spread);
    const __m256i sum =
        _mm256_add_epi32(_mm256_madd_epi16(_mm256_shuffle_epi8(v, rg_pairs), rg_weights),
                         _mm256_madd_epi16(_mm256_shuffle_epi8(v, b_pairs), b_weights));
    return _mm256_srl_epi32(_mm256_add_epi32(sum, round), shift);
  }
};

/// The luma of the first pixels of an RGB row with AVX2, four groups at a time; returns how
/// many it computed (a multiple of kAvx2Pixels whose loads stay inside the row).
__attribute__((target("avx2"))) int rgb_luma_avx2(const std::uint8_t* in, std::uint8_t* out,
                                                  int width, LumaWeights w) {
  // After the packs, lane 0 holds pixels 0-3, 8-11, 16-19, 24-27 and lane 1 the others.
  const __m256i order = _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7);
  const LumaGroup group(w);
  const std::ptrdiff_t row_bytes = static_cast<std::ptrdiff_t>(width) * kRgbChannels;
  constexpr std::ptrdiff_t kOverread = kLoadBytes - kGroupBytes;  // read past the last group
  int x = 0;
  for (; static_cast<std::ptrdiff_t>(x + kAvx2Pixels) * kRgbChannels + kOverread <= row_bytes;
       x += kAvx2Pixels) {
    const std::uint8_t* p = in + static_cast<std::ptrdiff_t>(x) * kRgbChannels;
    const __m256i low = _mm256_packs_epi32(group(p), group(p + kGroupBytes));
    const __m256i high = _mm256_packs_epi32(group(p + 2 * kGroupBytes), group(p + 3 * kGroupBytes));
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(out + x),
                        _mm256_permutevar8x32_epi32(_mm256_packus_epi16(low, high), order));
  }
  return x;
}
#endif

#if defined(__SSE2__)
constexpr int kVectorPixels = 16;

/// Splits 48 bytes of RGB into 16 R, 16 G and 16 B: four rounds of the same byte interleave
/// (SSE2 has no byte shuffle), OpenCV's v_load_deinterleave without SSSE3.
void load_rgb_planes(const std::uint8_t* in, __m128i& r, __m128i& g, __m128i& b) {
  __m128i v0 = _mm_loadu_si128(reinterpret_cast<const __m128i*>(in));
  __m128i v1 = _mm_loadu_si128(reinterpret_cast<const __m128i*>(in + kVectorPixels));
  __m128i v2 = _mm_loadu_si128(reinterpret_cast<const __m128i*>(in + 2 * kVectorPixels));
  constexpr int kRounds = 4;
  for (int round = 0; round < kRounds; ++round) {
    const __m128i t0 = _mm_unpacklo_epi8(v0, _mm_unpackhi_epi64(v1, v1));
    const __m128i t1 = _mm_unpacklo_epi8(_mm_unpackhi_epi64(v0, v0), v2);
    const __m128i t2 = _mm_unpacklo_epi8(v1, _mm_unpackhi_epi64(v2, v2));
    v0 = t0;
    v1 = t1;
    v2 = t2;
  }
  r = v0;
  g = v1;
  b = v2;
}

/// The luma of 8 pixels given as 16-bit R, G, B: pmaddwd on (R, G) and (B, 1) pairs.
__m128i luma8(__m128i r, __m128i g, __m128i b, LumaWeights w) {
  const __m128i rg_weights = _mm_set1_epi32(
      static_cast<int>((static_cast<unsigned>(w.g) << 16) | static_cast<unsigned>(w.r)));
  const __m128i b_weights = _mm_set1_epi32(static_cast<int>(
      (static_cast<unsigned>(1 << (w.shift - 1)) << 16) | static_cast<unsigned>(w.b)));
  const __m128i one = _mm_set1_epi16(1);
  const __m128i lo = _mm_add_epi32(_mm_madd_epi16(_mm_unpacklo_epi16(r, g), rg_weights),
                                   _mm_madd_epi16(_mm_unpacklo_epi16(b, one), b_weights));
  const __m128i hi = _mm_add_epi32(_mm_madd_epi16(_mm_unpackhi_epi16(r, g), rg_weights),
                                   _mm_madd_epi16(_mm_unpackhi_epi16(b, one), b_weights));
  return _mm_packs_epi32(_mm_srli_epi32(lo, w.shift), _mm_srli_epi32(hi, w.shift));
}
#endif

/// out[x] = the luma of pixel x of an RGB(A) row of C channels, from pixel `x` on.
template <int C>
PARFILTER_VECTOR_CLONES void luma_row(const std::uint8_t* in, std::uint8_t* out, int x, int width,
                                      LumaWeights w) {
#if defined(__SSE2__)
  if constexpr (C == kRgbChannels) {
    const __m128i zero = _mm_setzero_si128();
    for (; x + kVectorPixels <= width; x += kVectorPixels) {
      __m128i r;
      __m128i g;
      __m128i b;
      load_rgb_planes(in + static_cast<std::ptrdiff_t>(x) * C, r, g, b);
      const __m128i lo = luma8(_mm_unpacklo_epi8(r, zero), _mm_unpacklo_epi8(g, zero),
                               _mm_unpacklo_epi8(b, zero), w);
      const __m128i hi = luma8(_mm_unpackhi_epi8(r, zero), _mm_unpackhi_epi8(g, zero),
                               _mm_unpackhi_epi8(b, zero), w);
      _mm_storeu_si128(reinterpret_cast<__m128i*>(out + x), _mm_packus_epi16(lo, hi));
    }
  }
#endif
  const int round = 1 << (w.shift - 1);
  for (; x < width; ++x) {
    const std::uint8_t* px = in + static_cast<std::ptrdiff_t>(x) * C;
    out[x] =
        static_cast<std::uint8_t>((w.r * px[0] + w.g * px[1] + w.b * px[2] + round) >> w.shift);
  }
}

}  // namespace

void rgb_luma_row(const std::uint8_t* in, std::uint8_t* out, int width, int channels,
                  LumaWeights w) {
  if (channels == kRgbChannels) {
    int x = 0;
#if defined(PARFILTER_AVX2_DISPATCH)
    if (cpu_has_avx2()) x = rgb_luma_avx2(in, out, width, w);
#endif
    luma_row<kRgbChannels>(in, out, x, width, w);
  } else {
    luma_row<kRgbChannels + 1>(in, out, 0, width, w);
  }
}

}  // namespace parfilter::kernels::detail
