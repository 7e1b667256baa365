// Which Highway target the SIMD loops run on (simd_kernels.hpp): the best one compiled in that
// the CPU supports, unless a test or the environment (PARFILTER_SIMD_TARGETS) pins another.
// Highway's dynamic dispatch reads one process-wide choice, so a pin applies to every kernel.
#include <hwy/highway.h>
#include <hwy/targets.h>

#include <cstdlib>
#include <iostream>
#include <mutex>
#include <sstream>

#include "simd_kernels.hpp"
#include "simd_targets.hpp"

namespace parfilter::kernels::simd {
namespace {

/// The compiled targets (HWY_TARGETS) this CPU runs, best (lowest bit) first.
std::vector<std::int64_t> runnable(std::int64_t supported) {
  std::vector<std::int64_t> bits;
  for (std::int64_t left = supported & HWY_TARGETS; left != 0; left &= left - 1) {
    bits.push_back(left & -left);
  }
  return bits;
}

/// What the CPU supports, whatever pin is in place.
std::int64_t cpu_targets() {
  static const std::int64_t supported = [] {
    hwy::SetSupportedTargetsForTest(0);  // no mock: the CPU's own answer
    return hwy::SupportedTargets();
  }();
  return supported;
}

std::int64_t target_bit(std::string_view name) {
  for (const std::int64_t bit : runnable(cpu_targets())) {
    if (name == hwy::TargetName(bit)) return bit;
  }
  return 0;
}

/// Dispatch picks the best target of `allowed` (the scalar one always remains).
void allow_only(std::int64_t allowed) {
  hwy::SetSupportedTargetsForTest(allowed == 0 ? 0 : (allowed | HWY_SCALAR));
}

/// PARFILTER_SIMD_TARGETS: comma-separated target names; the best of them runs. Names this
/// CPU or build lacks are reported once on stderr and ignored.
void apply_environment() {
  const char* value = std::getenv(kTargetEnvironment);
  if (value == nullptr || *value == '\0') return;
  std::int64_t allowed = 0;
  std::istringstream names(value);
  for (std::string name; std::getline(names, name, ',');) {
    const std::int64_t bit = target_bit(name);
    if (bit == 0) {
      std::cerr << "parfilter: " << kTargetEnvironment << ": no target '" << name
                << "' on this CPU (available: " << describe_targets() << "), ignored\n";
    }
    allowed |= bit;
  }
  if (allowed != 0) allow_only(allowed);
}

}  // namespace

void ensure_configured() {
  static std::once_flag once;
  std::call_once(once, [] {
    (void)cpu_targets();
    apply_environment();
  });
}

std::string describe_targets() {
  std::string text;
  for (const std::int64_t bit : runnable(cpu_targets())) {
    text += (text.empty() ? "" : ", ") + std::string(hwy::TargetName(bit));
  }
  return text;
}

std::vector<std::string> targets() {
  ensure_configured();
  std::vector<std::string> names;
  for (const std::int64_t bit : runnable(cpu_targets())) names.emplace_back(hwy::TargetName(bit));
  return names;
}

std::string active_target() {
  ensure_configured();
  const std::vector<std::int64_t> bits = runnable(hwy::SupportedTargets());
  return bits.empty() ? std::string(hwy::TargetName(HWY_SCALAR)) : hwy::TargetName(bits.front());
}

bool pin_target(std::string_view name) {
  ensure_configured();
  if (name.empty()) {
    allow_only(0);
    apply_environment();
    return true;
  }
  const std::int64_t bit = target_bit(name);
  if (bit == 0) return false;
  allow_only(bit);
  return true;
}

}  // namespace parfilter::kernels::simd
