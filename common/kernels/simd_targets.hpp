// Internal to the SIMD kernel files: the one-time set-up every dispatching entry point runs.
#pragma once

#include <string>

namespace parfilter::kernels::simd {

/// Reads PARFILTER_SIMD_TARGETS once per process (thread-safe; later calls cost an atomic
/// load), before the first dispatch.
void ensure_configured();

/// The runnable targets, comma-separated, best first (for messages).
[[nodiscard]] std::string describe_targets();

}  // namespace parfilter::kernels::simd
