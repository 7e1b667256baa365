// Internal to the SIMD kernel files: which Highway target the loops run on, and the dispatch
// to it.
//
// Highway's own dispatch (HWY_EXPORT, HWY_DYNAMIC_DISPATCH) keeps the choice in libhwy.so.
// Debian's libhwy 1.0.3 runs a timer calibration as that library is loaded (nanobenchmark's
// namespace-scope TimerResolution(), deferred upstream in google/highway#2440): 3 ms of every
// process start, whether or not a kernel runs, where a whole single-image job takes 40-130
// ms. So the kernels use only Highway's headers: its per-target tables and ChosenTarget, with
// the CPU's targets read here (docs/CPU_KERNELS.md, "Targets and dispatch").
#pragma once

#include <hwy/highway.h>

#include <cstdint>
#include <string>

namespace parfilter::kernels::simd {

/// The configured choice: the best target of the CPU's (or of PARFILTER_SIMD_TARGETS', or of
/// a pin), read once per process before the first dispatch; thread-safe.
[[nodiscard]] const hwy::ChosenTarget& chosen_target();

/// The runnable targets, comma-separated, best first (for messages).
[[nodiscard]] std::string describe_targets();

}  // namespace parfilter::kernels::simd

/// A table of FUNC's compiled targets, laid out as Highway's HWY_EXPORT lays it out (entry 0,
/// Highway's first-call initializer, is unused here: chosen_target() is ready before any call).
#define PARFILTER_SIMD_EXPORT(FUNC)                                             \
  static decltype(&HWY_STATIC_DISPATCH(FUNC)) const parfilter_simd_##FUNC[] = { \
      nullptr, HWY_CHOOSE_TARGET_LIST(FUNC), HWY_CHOOSE_FALLBACK(FUNC)}
/// FUNC on the chosen target (GetIndex reads the targets compiled into the calling file).
#define PARFILTER_SIMD_DISPATCH(FUNC) \
  (*(parfilter_simd_##FUNC[::parfilter::kernels::simd::chosen_target().GetIndex()]))
