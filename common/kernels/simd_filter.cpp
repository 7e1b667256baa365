// SIMD neighbourhood loops (simd_kernels.hpp): the Gaussian's row and column passes, sharpen
// and sobel. foreach_target.h compiles this file once per Highway target; the HWY_ONCE part at
// the end holds the dispatching entry points. docs/CPU_KERNELS.md explains each loop.
// clang-format off
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "simd_filter.cpp"
#include <hwy/foreach_target.h>  // IWYU pragma: keep
// clang-format on
#include <hwy/highway.h>

#include "simd_helpers-inl.h"
#include "simd_kernels.hpp"
#include "simd_targets.hpp"

HWY_BEFORE_NAMESPACE();
namespace parfilter::kernels::simd {
namespace HWY_NAMESPACE {

#if HWY_TARGET != HWY_SCALAR
constexpr int kByteBits = 8;
constexpr int kSharpenCentreShift = 2;        ///< 5 m = (m << 2) + m
constexpr std::uint16_t kHalfByte = 1U << 7;  ///< the +32768 of >> 16, after two >> 8
/// The smallest gx^2 + gy^2 whose rounded root exceeds 255 (255^2 + 255 + 1).
constexpr std::int32_t kSaturatedSquare = 65281;
constexpr float kHalf = 0.5F;

/// Row pass over half-vectors of bytes widened to 16 bits (lane order); every partial sum is
/// at most 256 * 255, so 16-bit lanes are exact.
std::ptrdiff_t GaussianRowT(const std::uint8_t* in, std::uint16_t* out, std::ptrdiff_t begin,
                            std::ptrdiff_t end, std::ptrdiff_t c, int q0, int q1, int q2) {
  const DU16 du16;
  const DH8 dh8;
  const auto n = static_cast<std::ptrdiff_t>(hn::Lanes(du16));
  const auto w0 = hn::Set(du16, static_cast<std::uint16_t>(q0));
  const auto w1 = hn::Set(du16, static_cast<std::uint16_t>(q1));
  const auto w2 = hn::Set(du16, static_cast<std::uint16_t>(q2));
  const auto wide = [&](std::ptrdiff_t at) { return hn::PromoteTo(du16, hn::LoadU(dh8, in + at)); };
  std::ptrdiff_t i = begin;
  for (; i + n <= end; i += n) {
    const auto outer = hn::Add(wide(i - 2 * c), wide(i + 2 * c));
    const auto inner = hn::Add(wide(i - c), wide(i + c));
    hn::StoreU(hn::Add(hn::Add(hn::Mul(outer, w0), hn::Mul(inner, w1)), hn::Mul(wide(i), w2)), du16,
               out + i);
  }
  return i;
}
#endif

std::ptrdiff_t GaussianRow(const std::uint8_t* in, std::uint16_t* out, std::ptrdiff_t begin,
                           std::ptrdiff_t end, int channels, int q0, int q1, int q2) {
#if HWY_TARGET == HWY_SCALAR
  (void)in, (void)out, (void)end, (void)channels, (void)q0, (void)q1, (void)q2;
  return begin;
#else
  return GaussianRowT(in, out, begin, end, channels, q0, q1, q2);
#endif
}

/// Column pass in 16-bit lanes: with r = 256 h + l, A = sum q h and B = sum q l are each at
/// most 65280 and the result is (A + (B >> 8) + 128) >> 8 (docs/CPU_KERNELS.md). B is taken as
/// (sum q r) - 256 A modulo 2^16: the wrapping 16-bit sum of the whole r is 256 A + B modulo
/// 2^16, and B < 2^16.
std::ptrdiff_t GaussianColumn(const std::uint16_t* const* r, std::uint8_t* out, std::ptrdiff_t n,
                              int q0, int q1, int q2, RowStore store) {
#if HWY_TARGET == HWY_SCALAR
  (void)r, (void)out, (void)n, (void)q0, (void)q1, (void)q2, (void)store;
  return 0;
#else
  const DU16 du16;
  const auto n16 = static_cast<std::ptrdiff_t>(hn::Lanes(du16));
  const auto w0 = hn::Set(du16, static_cast<std::uint16_t>(q0));
  const auto w1 = hn::Set(du16, static_cast<std::uint16_t>(q1));
  const auto w2 = hn::Set(du16, static_cast<std::uint16_t>(q2));
  const auto round = hn::Set(du16, kHalfByte);
  const auto column = [&](std::ptrdiff_t at) {
    const auto r0 = hn::LoadU(du16, r[0] + at);
    const auto r1 = hn::LoadU(du16, r[1] + at);
    const auto r2 = hn::LoadU(du16, r[2] + at);
    const auto r3 = hn::LoadU(du16, r[3] + at);
    const auto r4 = hn::LoadU(du16, r[4] + at);
    const auto high = [](auto v) { return hn::ShiftRight<kByteBits>(v); };
    const auto a = hn::Add(
        hn::Add(hn::Mul(hn::Add(high(r0), high(r4)), w0), hn::Mul(hn::Add(high(r1), high(r3)), w1)),
        hn::Mul(high(r2), w2));
    const auto sum = hn::Add(hn::Add(hn::Mul(hn::Add(r0, r4), w0), hn::Mul(hn::Add(r1, r3), w1)),
                             hn::Mul(r2, w2));
    const auto b = hn::Sub(sum, hn::ShiftLeft<kByteBits>(a));
    return hn::BitCast(D16(), hn::ShiftRight<kByteBits>(hn::Add(hn::Add(a, high(b)), round)));
  };
  return StoreRow(out, 0, n, store,
                  [&](std::ptrdiff_t i) { return DemoteU8(column(i), column(i + n16)); });
#endif
}

/// sharpen in signed 16-bit lanes (values in [-1020, 1275]); the narrowing saturates.
std::ptrdiff_t SharpenRow(const std::uint8_t* up, const std::uint8_t* mid, const std::uint8_t* down,
                          std::uint8_t* out, std::ptrdiff_t begin, std::ptrdiff_t end, int channels,
                          RowStore store) {
#if HWY_TARGET == HWY_SCALAR
  (void)up, (void)mid, (void)down, (void)out, (void)end, (void)channels, (void)store;
  return begin;
#else
  const auto half = static_cast<std::ptrdiff_t>(hn::Lanes(D16()));
  const std::ptrdiff_t c = channels;
  const auto part = [&](std::ptrdiff_t at) {
    const auto m = LoadWide(mid + at);
    const auto around = hn::Add(hn::Add(LoadWide(up + at), LoadWide(down + at)),
                                hn::Add(LoadWide(mid + at - c), LoadWide(mid + at + c)));
    return hn::Sub(hn::Add(hn::ShiftLeft<kSharpenCentreShift>(m), m), around);
  };
  return StoreRow(out, begin, end, store,
                  [&](std::ptrdiff_t i) { return DemoteU8(part(i), part(i + half)); });
#endif
}

#if HWY_TARGET != HWY_SCALAR
/// sobel over gray pixels [begin, end) in signed 16-bit lanes (|g| <= 1020). The magnitude
/// squares and adds gx, gy pairs with pmaddwd (block by block, then packed back in the same
/// order) and rounds the float root exactly as the plain loop does (CPU_KERNELS.md).
template <SobelOutput kOutput>
int SobelRowT(const std::uint8_t* up, const std::uint8_t* mid, const std::uint8_t* down,
              std::uint8_t* out, int begin, int end, RowStore store) {
  const D8 d8;
  const D16 d16;
  const D32 d32;
  const hn::Repartition<float, D8> df;
  const int n = static_cast<int>(hn::Lanes(d8));
  const auto part = [&](int x) {
    const auto ul = LoadWide(up + x - 1);
    const auto ur = LoadWide(up + x + 1);
    const auto dl = LoadWide(down + x - 1);
    const auto dr = LoadWide(down + x + 1);
    const auto twice = [](auto v) { return hn::Add(v, v); };
    const auto gx = hn::Sub(hn::Add(hn::Add(ur, dr), twice(LoadWide(mid + x + 1))),
                            hn::Add(hn::Add(ul, dl), twice(LoadWide(mid + x - 1))));
    const auto gy = hn::Sub(hn::Add(hn::Add(dl, dr), twice(LoadWide(down + x))),
                            hn::Add(hn::Add(ul, ur), twice(LoadWide(up + x))));
    if constexpr (kOutput == SobelOutput::magnitude) {
      const auto root = [&](auto pairs) {
        const auto square = hn::Min(MulAddPairs(pairs, pairs), hn::Set(d32, kSaturatedSquare));
        return hn::ConvertTo(d32, hn::Add(hn::Sqrt(hn::ConvertTo(df, square)), hn::Set(df, kHalf)));
      };
      return PackBlocksI16(root(hn::InterleaveLower(d16, gx, gy)),
                           root(hn::InterleaveUpper(d16, gx, gy)));
    } else if constexpr (kOutput == SobelOutput::l1) {
      return hn::Add(hn::Abs(gx), hn::Abs(gy));
    } else if constexpr (kOutput == SobelOutput::dx) {
      return hn::Abs(gx);
    } else {
      return hn::Abs(gy);
    }
  };
  return static_cast<int>(StoreRow(out, begin, end, store, [&](std::ptrdiff_t x) {
    return DemoteU8(part(static_cast<int>(x)), part(static_cast<int>(x) + n / 2));
  }));
}
#endif

int SobelRow(const std::uint8_t* up, const std::uint8_t* mid, const std::uint8_t* down,
             std::uint8_t* out, int begin, int end, int output, RowStore store) {
#if HWY_TARGET == HWY_SCALAR
  (void)up, (void)mid, (void)down, (void)out, (void)end, (void)output, (void)store;
  return begin;
#else
  switch (static_cast<SobelOutput>(output)) {
    case SobelOutput::magnitude:
      return SobelRowT<SobelOutput::magnitude>(up, mid, down, out, begin, end, store);
    case SobelOutput::l1:
      return SobelRowT<SobelOutput::l1>(up, mid, down, out, begin, end, store);
    case SobelOutput::dx:
      return SobelRowT<SobelOutput::dx>(up, mid, down, out, begin, end, store);
    case SobelOutput::dy:
      break;
  }
  return SobelRowT<SobelOutput::dy>(up, mid, down, out, begin, end, store);
#endif
}

}  // namespace HWY_NAMESPACE
}  // namespace parfilter::kernels::simd
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace parfilter::kernels::simd {

PARFILTER_SIMD_EXPORT(GaussianRow);
PARFILTER_SIMD_EXPORT(GaussianColumn);
PARFILTER_SIMD_EXPORT(SharpenRow);
PARFILTER_SIMD_EXPORT(SobelRow);

std::ptrdiff_t gaussian_row(const std::uint8_t* in, std::uint16_t* out, std::ptrdiff_t begin,
                            std::ptrdiff_t end, int channels, GaussianTaps q) {
  return PARFILTER_SIMD_DISPATCH(GaussianRow)(in, out, begin, end, channels, q.q0, q.q1, q.q2);
}

std::ptrdiff_t gaussian_column(const std::uint16_t* const* r, std::uint8_t* out, std::ptrdiff_t n,
                               GaussianTaps q, RowStore store) {
  return PARFILTER_SIMD_DISPATCH(GaussianColumn)(r, out, n, q.q0, q.q1, q.q2, store);
}

std::ptrdiff_t sharpen_row(const std::uint8_t* up, const std::uint8_t* mid,
                           const std::uint8_t* down, std::uint8_t* out, std::ptrdiff_t begin,
                           std::ptrdiff_t end, int channels, RowStore store) {
  return PARFILTER_SIMD_DISPATCH(SharpenRow)(up, mid, down, out, begin, end, channels, store);
}

int sobel_row(const std::uint8_t* up, const std::uint8_t* mid, const std::uint8_t* down,
              std::uint8_t* out, int begin, int end, SobelOutput output, RowStore store) {
  return PARFILTER_SIMD_DISPATCH(SobelRow)(up, mid, down, out, begin, end, static_cast<int>(output),
                                           store);
}

}  // namespace parfilter::kernels::simd
#endif  // HWY_ONCE
