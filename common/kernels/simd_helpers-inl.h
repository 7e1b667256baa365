// Helpers the SIMD kernel files share, compiled once per Highway target (a per-target header:
// foreach_target.h includes each SIMD file once per target, and each of those includes this).
//
// Three operations have no order-preserving Highway 1.0.3 op that compiles to one instruction
// on x86, so they are written here with the raw x86 instruction where the target is x86 and
// with portable Highway ops elsewhere (same values, more instructions):
// - MulAddPairs: per 32-bit lane, a0 b0 + a1 b1 of its two 16-bit halves (pmaddwd);
// - PackBlocksU8 / PackBlocksI16: the saturating narrowing that inverts ZipLower/ZipUpper
//   block by block (packuswb / packssdw: lanes of a's block, then b's, per 128-bit block);
// - DemoteU8 / DemoteI16: the same narrowing of two vectors in lane order (a's lanes, then b's),
//   and DemoteU8 of four vectors of 32-bit lanes (two packs and one permutation).
//
// Only the vector targets include the bodies: the scalar target's kernels do nothing and leave
// the whole row to the plain C++ loop (it lacks the block ops these need).

// Per-target include guard (Highway's convention for -inl.h files).
#if defined(PARFILTER_SIMD_HELPERS_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef PARFILTER_SIMD_HELPERS_INL_H_
#undef PARFILTER_SIMD_HELPERS_INL_H_
#else
#define PARFILTER_SIMD_HELPERS_INL_H_
#endif

#include <hwy/cache_control.h>
#include <hwy/highway.h>

#include <cstddef>
#include <cstdint>

#include "simd_kernels.hpp"

HWY_BEFORE_NAMESPACE();
namespace parfilter::kernels::simd {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

#if HWY_TARGET != HWY_SCALAR

using D8 = hn::ScalableTag<std::uint8_t>;
using D16 = hn::ScalableTag<std::int16_t>;
using DU16 = hn::ScalableTag<std::uint16_t>;
using D32 = hn::ScalableTag<std::int32_t>;
using DU32 = hn::ScalableTag<std::uint32_t>;
using DH8 = hn::Half<D8>;  ///< half a vector of bytes: what widens into one of 16-bit lanes

/// Bytes per 128-bit block, the unit of the block-wise ops (pshufb, unpack, pack).
inline constexpr int kBlockBytes = 16;

#if HWY_ARCH_X86
HWY_INLINE __m128i MaddRaw(__m128i a, __m128i b) { return _mm_madd_epi16(a, b); }
HWY_INLINE __m128i PackUsRaw(__m128i a, __m128i b) { return _mm_packus_epi16(a, b); }
HWY_INLINE __m128i PackSsRaw(__m128i a, __m128i b) { return _mm_packs_epi32(a, b); }
/// After a block-wise pack of a and b, the 64-bit lanes hold a0 b0 a1 b1 ... (one per half
/// block): this puts them in the order a0 a1 ... b0 b1 ...; one block needs nothing.
HWY_INLINE __m128i BlockOrderRaw(__m128i v) { return v; }
/// After packing four vectors of 32-bit lanes block by block (two packs, then one packus), 32-bit
/// lane j of block i holds lanes 4i..4i+3 of vector j: this puts them in lane order (one block:
/// already).
HWY_INLINE __m128i GroupOrderRaw(__m128i v) { return v; }
#if HWY_TARGET <= HWY_AVX2
HWY_INLINE __m256i MaddRaw(__m256i a, __m256i b) { return _mm256_madd_epi16(a, b); }
HWY_INLINE __m256i PackUsRaw(__m256i a, __m256i b) { return _mm256_packus_epi16(a, b); }
HWY_INLINE __m256i PackSsRaw(__m256i a, __m256i b) { return _mm256_packs_epi32(a, b); }
HWY_INLINE __m256i BlockOrderRaw(__m256i v) {
  constexpr int kOrder = 0xD8;  // 64-bit lanes 0, 2, 1, 3
  return _mm256_permute4x64_epi64(v, kOrder);
}
HWY_INLINE __m256i GroupOrderRaw(__m256i v) {
  return _mm256_permutevar8x32_epi32(v, _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7));
}
#endif
#if HWY_TARGET <= HWY_AVX3
HWY_INLINE __m512i MaddRaw(__m512i a, __m512i b) { return _mm512_madd_epi16(a, b); }
HWY_INLINE __m512i PackUsRaw(__m512i a, __m512i b) { return _mm512_packus_epi16(a, b); }
HWY_INLINE __m512i PackSsRaw(__m512i a, __m512i b) { return _mm512_packs_epi32(a, b); }
HWY_INLINE __m512i BlockOrderRaw(__m512i v) {
  return _mm512_permutexvar_epi64(_mm512_setr_epi64(0, 2, 4, 6, 1, 3, 5, 7), v);
}
HWY_INLINE __m512i GroupOrderRaw(__m512i v) {
  return _mm512_permutexvar_epi32(
      _mm512_setr_epi32(0, 4, 8, 12, 1, 5, 9, 13, 2, 6, 10, 14, 3, 7, 11, 15), v);
}
#endif
#endif  // HWY_ARCH_X86

/// Per 32-bit lane, a.lo * b.lo + a.hi * b.hi of its signed 16-bit halves (exact in 32 bits).
template <class V16>
HWY_INLINE hn::Vec<hn::Repartition<std::int32_t, hn::DFromV<V16>>> MulAddPairs(V16 a, V16 b) {
  const hn::Repartition<std::int32_t, hn::DFromV<V16>> d32;
#if HWY_ARCH_X86
  return hn::VFromD<decltype(d32)>{MaddRaw(a.raw, b.raw)};
#else
  const auto a32 = hn::BitCast(d32, a);
  const auto b32 = hn::BitCast(d32, b);
  const auto low = [](auto v) { return hn::ShiftRight<16>(hn::ShiftLeft<16>(v)); };
  return hn::Add(hn::Mul(low(a32), low(b32)),
                 hn::Mul(hn::ShiftRight<16>(a32), hn::ShiftRight<16>(b32)));
#endif
}

/// Bytes saturated from signed 16-bit lanes, block by block: the inverse of ZipLower (into a)
/// and ZipUpper (into b) of one byte vector.
template <class V16>
HWY_INLINE hn::Vec<D8> PackBlocksU8(V16 a, V16 b) {
#if HWY_ARCH_X86
  return hn::Vec<D8>{PackUsRaw(a.raw, b.raw)};
#else
  static_assert(hn::MaxLanes(D8()) == kBlockBytes, "one block per vector here");
  const DH8 dh;
  return hn::Combine(D8(), hn::DemoteTo(dh, b), hn::DemoteTo(dh, a));
#endif
}

/// Signed 16-bit lanes saturated from 32-bit lanes, block by block (the inverse of ZipLower
/// and ZipUpper of one 16-bit vector).
template <class V32>
HWY_INLINE hn::Vec<D16> PackBlocksI16(V32 a, V32 b) {
#if HWY_ARCH_X86
  return hn::Vec<D16>{PackSsRaw(a.raw, b.raw)};
#else
  static_assert(hn::MaxLanes(D16()) * 2 == kBlockBytes, "one block per vector here");
  const hn::Half<D16> dh;
  return hn::Combine(D16(), hn::DemoteTo(dh, b), hn::DemoteTo(dh, a));
#endif
}

/// Bytes saturated from signed 16-bit lanes in lane order: a's lanes, then b's.
template <class V16>
HWY_INLINE hn::Vec<D8> DemoteU8(V16 a, V16 b) {
#if HWY_ARCH_X86
  return hn::Vec<D8>{BlockOrderRaw(PackUsRaw(a.raw, b.raw))};
#else
  const DH8 dh;
  return hn::Combine(D8(), hn::DemoteTo(dh, b), hn::DemoteTo(dh, a));
#endif
}

/// Signed 16-bit lanes saturated from 32-bit lanes in lane order: a's lanes, then b's.
template <class V32>
HWY_INLINE hn::Vec<D16> DemoteI16(V32 a, V32 b) {
#if HWY_ARCH_X86
  return hn::Vec<D16>{BlockOrderRaw(PackSsRaw(a.raw, b.raw))};
#else
  const hn::Half<D16> dh;
  return hn::Combine(D16(), hn::DemoteTo(dh, b), hn::DemoteTo(dh, a));
#endif
}

/// Bytes saturated from four vectors of 32-bit lanes in lane order (a's lanes, then b's, c's,
/// d's): DemoteU8(DemoteI16(a, b), DemoteI16(c, d)) with one lane permutation instead of three.
template <class V32>
HWY_INLINE hn::Vec<D8> DemoteU8(V32 a, V32 b, V32 c, V32 d) {
#if HWY_ARCH_X86
  return hn::Vec<D8>{GroupOrderRaw(PackUsRaw(PackSsRaw(a.raw, b.raw), PackSsRaw(c.raw, d.raw)))};
#else
  return DemoteU8(DemoteI16(a, b), DemoteI16(c, d));
#endif
}

/// 16-bit lanes from half a vector of bytes at p, zero-extended, in lane order.
HWY_INLINE hn::Vec<D16> LoadWide(const std::uint8_t* p) {
  return hn::BitCast(D16(), hn::PromoteTo(DU16(), hn::LoadU(DH8(), p)));
}

/// Selects, in each 4-byte pixel of `keep`, the alpha byte (byte 3) of `alpha_from`: RGBA
/// kernels compute alpha like a colour channel and put the source's back here.
HWY_INLINE hn::Vec<D8> WithAlpha(hn::Vec<D8> keep, hn::Vec<D8> alpha_from) {
  constexpr std::uint32_t kAlphaByte = 0xFF000000U;
  const auto mask = hn::BitCast(D8(), hn::Set(DU32(), kAlphaByte));
  return hn::IfThenElse(hn::MaskFromVec(mask), alpha_from, keep);
}

/// Stores body(x), the output bytes [x, x + N) (N = Lanes(D8)), at out + x for x from begin
/// while whole vectors fit before end, as `store` says (simd_kernels.hpp); returns where it
/// stopped. Streaming needs addresses aligned to N: one ordinary store at begin, then the
/// aligned vectors from the first aligned address after it (overlapping the first). With
/// alpha, the mask takes byte 3 of every 4 from x, so begin must be on a pixel; the aligned
/// start is then one too when out itself is 4-byte aligned (else no streaming).
template <class Body>
HWY_INLINE std::ptrdiff_t StoreRow(std::uint8_t* out, std::ptrdiff_t begin, std::ptrdiff_t end,
                                   const RowStore& store, const Body& body) {
  const D8 d8;
  const auto n = static_cast<std::ptrdiff_t>(hn::Lanes(d8));
  constexpr std::uintptr_t kPixelBytes = 4;
  const auto result = [&](std::ptrdiff_t x) {
    const auto v = body(x);
    return store.alpha == nullptr ? v : WithAlpha(v, hn::LoadU(d8, store.alpha + x));
  };
  std::ptrdiff_t x = begin;
  const bool stream =
      store.stream && end - begin >= 2 * n &&
      (store.alpha == nullptr || reinterpret_cast<std::uintptr_t>(out) % kPixelBytes == 0);
  if (!stream) {
    for (; x + n <= end; x += n) hn::StoreU(result(x), d8, out + x);
    return x;
  }
  hn::StoreU(result(x), d8, out + x);
  x += n - static_cast<std::ptrdiff_t>(reinterpret_cast<std::uintptr_t>(out + x) %
                                       static_cast<std::uintptr_t>(n));
  for (; x + n <= end; x += n) hn::Stream(result(x), d8, out + x);
  hwy::FlushStream();  // the streamed lines are visible before the scheduler's barrier
  return x;
}

#endif  // HWY_TARGET != HWY_SCALAR

}  // namespace HWY_NAMESPACE
}  // namespace parfilter::kernels::simd
HWY_AFTER_NAMESPACE();

#endif  // per-target include guard
