// SIMD colour equalization (simd_kernels.hpp): the YCrCb round trip of RGB(A) pixels, given
// each pixel's luma Y and its equalized luma Y'. Every term is OpenCV's own integer expression,
// in 16-bit lanes, so this gives the plain loop's bytes:
//   Cr' = clamp(descale(dR * kCrFromRMinusY), -128, 127)   (dR = R - Y; the +128 of Cr is a
//   Cb' = clamp(descale(dB * kCbFromBMinusY), -128, 127)    multiple of 2^14: it leaves descale)
//   R = sat(Y' + descale(Cr' kRFromCr)), B = sat(Y' + descale(Cb' kBFromCb)),
//   G = sat(Y' + descale(Cr' kGFromCr + Cb' kGFromCb))
// A descale of one product a k is MulFixedPoint15(a, 2k) (or (2a, k) where 2k does not fit 16
// bits): it rounds (p + 2^14) >> 15 of the product p, which is (a k + 2^13) >> 14. Green's sum
// of two products takes pmaddwd in 32 bits; the final narrowing saturates.
// clang-format off
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "simd_ycrcb.cpp"
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
constexpr int kRgb = 3;
constexpr std::uint32_t kLow16 = 0xFFFFU;
constexpr int kHigh16 = 16;

/// The output planes of half the pixels, signed 16-bit lanes before saturation.
struct Planes16 {
  hn::Vec<D16> r, g, b;
};

HWY_INLINE Planes16 RoundTrip(hn::Vec<D16> r, hn::Vec<D16> b, hn::Vec<D16> y, hn::Vec<D16> new_y) {
  using namespace ycrcb;
  const D16 d16;
  const D32 d32;
  const auto lo = hn::Set(d16, static_cast<std::int16_t>(-kChromaOffset));
  const auto hi = hn::Set(d16, static_cast<std::int16_t>(kMaxSample - kChromaOffset));
  const auto chroma = [&](hn::Vec<D16> difference, int weight) {
    const auto doubled = hn::Set(d16, static_cast<std::int16_t>(2 * weight));
    return hn::Min(hn::Max(hn::MulFixedPoint15(difference, doubled), lo), hi);
  };
  const auto cr = chroma(hn::Sub(r, y), kCrFromRMinusY);
  const auto cb = chroma(hn::Sub(b, y), kCbFromBMinusY);
  const auto red = hn::MulFixedPoint15(hn::Add(cr, cr), hn::Set(d16, kRFromCr));
  const auto blue = hn::MulFixedPoint15(hn::Add(cb, cb), hn::Set(d16, kBFromCb));
  const auto green_weights =
      hn::BitCast(d16, hn::Set(DU32(), (static_cast<std::uint32_t>(kGFromCb) << kHigh16) |
                                           (static_cast<std::uint32_t>(kGFromCr) & kLow16)));
  const auto round = hn::Set(d32, 1 << (kShift - 1));
  const auto green_half = [&](hn::Vec<D16> pairs) {
    return hn::ShiftRight<kShift>(hn::Add(MulAddPairs(pairs, green_weights), round));
  };
  const auto green = PackBlocksI16(green_half(hn::InterleaveLower(d16, cr, cb)),
                                   green_half(hn::InterleaveUpper(d16, cr, cb)));
  return {hn::Add(new_y, red), hn::Add(new_y, green), hn::Add(new_y, blue)};
}
#endif

int EqualizeRow(const std::uint8_t* in, const std::uint8_t* luma, const std::uint8_t* new_luma,
                std::uint8_t* out, int width, int channels) {
#if HWY_TARGET == HWY_SCALAR
  (void)in, (void)luma, (void)new_luma, (void)out, (void)width, (void)channels;
  return 0;
#else
  const D8 d8;
  const DU16 du16;
  const int n = static_cast<int>(hn::Lanes(d8));
  const auto zero = hn::Zero(d8);
  // Widened block by block, narrowed back the same way (PackBlocksU8): lanes keep their order.
  const auto lower = [&](hn::Vec<D8> v) { return hn::BitCast(D16(), hn::ZipLower(du16, v, zero)); };
  const auto upper = [&](hn::Vec<D8> v) { return hn::BitCast(D16(), hn::ZipUpper(du16, v, zero)); };
  int x = 0;
  for (; x + n <= width; x += n) {
    const std::uint8_t* p = in + static_cast<std::ptrdiff_t>(x) * channels;
    hn::Vec<D8> r, g, b, a;
    if (channels == kRgb) {
      hn::LoadInterleaved3(d8, p, r, g, b);
    } else {
      hn::LoadInterleaved4(d8, p, r, g, b, a);
    }
    const auto y = hn::LoadU(d8, luma + x);
    const auto new_y = hn::LoadU(d8, new_luma + x);
    const Planes16 low = RoundTrip(lower(r), lower(b), lower(y), lower(new_y));
    const Planes16 high = RoundTrip(upper(r), upper(b), upper(y), upper(new_y));
    r = PackBlocksU8(low.r, high.r);
    g = PackBlocksU8(low.g, high.g);
    b = PackBlocksU8(low.b, high.b);
    std::uint8_t* o = out + static_cast<std::ptrdiff_t>(x) * channels;
    if (channels == kRgb) {
      hn::StoreInterleaved3(r, g, b, d8, o);
    } else {
      hn::StoreInterleaved4(r, g, b, a, d8, o);  // alpha as loaded
    }
  }
  return x;
#endif
}

}  // namespace HWY_NAMESPACE
}  // namespace parfilter::kernels::simd
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace parfilter::kernels::simd {

PARFILTER_SIMD_EXPORT(EqualizeRow);

int equalize_row(const std::uint8_t* in, const std::uint8_t* luma, const std::uint8_t* new_luma,
                 std::uint8_t* out, int width, int channels) {
  return PARFILTER_SIMD_DISPATCH(EqualizeRow)(in, luma, new_luma, out, width, channels);
}

}  // namespace parfilter::kernels::simd
#endif  // HWY_ONCE
