// SIMD morphology loops (simd_kernels.hpp): the whole-row min/max combines every pass of the
// decomposition is made of. foreach_target.h compiles this file once per Highway target.
// clang-format off
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "simd_morphology.cpp"
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
/// Two vectors per iteration: the loads of one do not wait for the other's store when out
/// is one of the inputs.
constexpr std::size_t kUnroll = 2;

struct MinOf {
  template <class V>
  HWY_INLINE V operator()(V a, V b) const {
    return hn::Min(a, b);
  }
};
struct MaxOf {
  template <class V>
  HWY_INLINE V operator()(V a, V b) const {
    return hn::Max(a, b);
  }
};

template <class Op>
std::size_t CombineT(const std::uint8_t* a, const std::uint8_t* b, std::uint8_t* out,
                     std::size_t n) {
  const D8 d8;
  const Op op;
  const std::size_t step = hn::Lanes(d8);
  std::size_t i = 0;
  for (; i + kUnroll * step <= n; i += kUnroll * step) {
    const auto first = op(hn::LoadU(d8, a + i), hn::LoadU(d8, b + i));
    const auto second = op(hn::LoadU(d8, a + i + step), hn::LoadU(d8, b + i + step));
    hn::StoreU(first, d8, out + i);
    hn::StoreU(second, d8, out + i + step);
  }
  for (; i + step <= n; i += step)
    hn::StoreU(op(hn::LoadU(d8, a + i), hn::LoadU(d8, b + i)), d8, out + i);
  return i;
}

template <class Op>
std::size_t Combine3T(const std::uint8_t* a, const std::uint8_t* b, const std::uint8_t* c,
                      std::uint8_t* out, std::size_t n) {
  const D8 d8;
  const Op op;
  const std::size_t step = hn::Lanes(d8);
  const auto at = [&](std::size_t i) {
    return op(op(hn::LoadU(d8, a + i), hn::LoadU(d8, b + i)), hn::LoadU(d8, c + i));
  };
  std::size_t i = 0;
  for (; i + kUnroll * step <= n; i += kUnroll * step) {
    const auto first = at(i);
    const auto second = at(i + step);
    hn::StoreU(first, d8, out + i);
    hn::StoreU(second, d8, out + i + step);
  }
  for (; i + step <= n; i += step) hn::StoreU(at(i), d8, out + i);
  return i;
}
#endif

std::size_t Combine(const std::uint8_t* a, const std::uint8_t* b, std::uint8_t* out, std::size_t n,
                    int op) {
#if HWY_TARGET == HWY_SCALAR
  (void)a, (void)b, (void)out, (void)n, (void)op;
  return 0;
#else
  return static_cast<MorphOp>(op) == MorphOp::erode ? CombineT<MinOf>(a, b, out, n)
                                                    : CombineT<MaxOf>(a, b, out, n);
#endif
}

std::size_t Combine3(const std::uint8_t* a, const std::uint8_t* b, const std::uint8_t* c,
                     std::uint8_t* out, std::size_t n, int op) {
#if HWY_TARGET == HWY_SCALAR
  (void)a, (void)b, (void)c, (void)out, (void)n, (void)op;
  return 0;
#else
  return static_cast<MorphOp>(op) == MorphOp::erode ? Combine3T<MinOf>(a, b, c, out, n)
                                                    : Combine3T<MaxOf>(a, b, c, out, n);
#endif
}

}  // namespace HWY_NAMESPACE
}  // namespace parfilter::kernels::simd
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace parfilter::kernels::simd {

HWY_EXPORT(Combine);
HWY_EXPORT(Combine3);

std::size_t combine(const std::uint8_t* a, const std::uint8_t* b, std::uint8_t* out, std::size_t n,
                    MorphOp op) {
  ensure_configured();
  return HWY_DYNAMIC_DISPATCH(Combine)(a, b, out, n, static_cast<int>(op));
}

std::size_t combine3(const std::uint8_t* a, const std::uint8_t* b, const std::uint8_t* c,
                     std::uint8_t* out, std::size_t n, MorphOp op) {
  ensure_configured();
  return HWY_DYNAMIC_DISPATCH(Combine3)(a, b, c, out, n, static_cast<int>(op));
}

}  // namespace parfilter::kernels::simd
#endif  // HWY_ONCE
