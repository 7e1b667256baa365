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

// Both read their inputs at x before storing there, so out may be one of them; a streamed
// row recomputes its first vector from an input it overwrote, which min and max allow.
template <class Op>
std::size_t CombineT(const std::uint8_t* a, const std::uint8_t* b, std::uint8_t* out, std::size_t n,
                     const RowStore& store) {
  const D8 d8;
  const Op op;
  return static_cast<std::size_t>(
      StoreRow(out, 0, static_cast<std::ptrdiff_t>(n), store,
               [&](std::ptrdiff_t i) { return op(hn::LoadU(d8, a + i), hn::LoadU(d8, b + i)); }));
}

template <class Op>
std::size_t Combine3T(const std::uint8_t* a, const std::uint8_t* b, const std::uint8_t* c,
                      std::uint8_t* out, std::size_t n, const RowStore& store) {
  const D8 d8;
  const Op op;
  return static_cast<std::size_t>(
      StoreRow(out, 0, static_cast<std::ptrdiff_t>(n), store, [&](std::ptrdiff_t i) {
        return op(op(hn::LoadU(d8, a + i), hn::LoadU(d8, b + i)), hn::LoadU(d8, c + i));
      }));
}
#endif

std::size_t Combine(const std::uint8_t* a, const std::uint8_t* b, std::uint8_t* out, std::size_t n,
                    int op, RowStore store) {
#if HWY_TARGET == HWY_SCALAR
  (void)a, (void)b, (void)out, (void)n, (void)op, (void)store;
  return 0;
#else
  return static_cast<MorphOp>(op) == MorphOp::erode ? CombineT<MinOf>(a, b, out, n, store)
                                                    : CombineT<MaxOf>(a, b, out, n, store);
#endif
}

std::size_t Combine3(const std::uint8_t* a, const std::uint8_t* b, const std::uint8_t* c,
                     std::uint8_t* out, std::size_t n, int op, RowStore store) {
#if HWY_TARGET == HWY_SCALAR
  (void)a, (void)b, (void)c, (void)out, (void)n, (void)op, (void)store;
  return 0;
#else
  return static_cast<MorphOp>(op) == MorphOp::erode ? Combine3T<MinOf>(a, b, c, out, n, store)
                                                    : Combine3T<MaxOf>(a, b, c, out, n, store);
#endif
}

}  // namespace HWY_NAMESPACE
}  // namespace parfilter::kernels::simd
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace parfilter::kernels::simd {

PARFILTER_SIMD_EXPORT(Combine);
PARFILTER_SIMD_EXPORT(Combine3);

std::size_t combine(const std::uint8_t* a, const std::uint8_t* b, std::uint8_t* out, std::size_t n,
                    MorphOp op, RowStore store) {
  return PARFILTER_SIMD_DISPATCH(Combine)(a, b, out, n, static_cast<int>(op), store);
}

std::size_t combine3(const std::uint8_t* a, const std::uint8_t* b, const std::uint8_t* c,
                     std::uint8_t* out, std::size_t n, MorphOp op, RowStore store) {
  return PARFILTER_SIMD_DISPATCH(Combine3)(a, b, c, out, n, static_cast<int>(op), store);
}

}  // namespace parfilter::kernels::simd
#endif  // HWY_ONCE
