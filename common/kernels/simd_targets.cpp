// Which Highway target the SIMD loops run on (simd_kernels.hpp): the best one compiled in that
// the CPU supports, unless a test or the environment (PARFILTER_SIMD_TARGETS) pins another.
// One process-wide choice, so a pin applies to every kernel. The CPU's targets are read from
// CPUID here rather than by libhwy.so (simd_targets.hpp says why), with the feature groups of
// Highway's own detection and the operating system's saving of the wider registers.
#include <hwy/highway.h>
#include <hwy/targets.h>

#if HWY_ARCH_X86
#include <cpuid.h>
#endif

#include <atomic>
#include <cstdlib>
#include <iostream>
#include <sstream>

#include "simd_kernels.hpp"
#include "simd_targets.hpp"

namespace parfilter::kernels::simd {
namespace {

/// The targets every CPU runs: Highway's portable fallbacks.
constexpr std::int64_t kFallbackTargets = HWY_EMU128 | HWY_SCALAR;

#if HWY_ARCH_X86
struct CpuidLeaf {
  unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
};

CpuidLeaf cpuid(unsigned leaf, unsigned subleaf) {
  CpuidLeaf r;
  // The highest leaf of the leaf's range (basic, or the extended one from 0x80000000).
  if (__get_cpuid_max(leaf & 0x80000000u, nullptr) >= leaf) {
    __cpuid_count(leaf, subleaf, r.eax, r.ebx, r.ecx, r.edx);
  }
  return r;
}

/// Whether every bit of `bits` is set in `reg`.
constexpr bool all(unsigned reg, unsigned bits) { return (reg & bits) == bits; }
constexpr unsigned bit(int n) { return 1u << n; }

// CPUID leaves and the feature bits the targets need (Intel SDM, vol. 2A, "CPUID").
constexpr unsigned kLeafFeatures = 1;
constexpr unsigned kLeafExtendedFeatures = 7;
constexpr unsigned kLeafAmdFeatures = 0x80000001u;
namespace leaf1_edx {
constexpr unsigned kSse = bit(25), kSse2 = bit(26);
}
namespace leaf1_ecx {
constexpr unsigned kSse3 = bit(0), kPclmulqdq = bit(1), kSsse3 = bit(9), kFma = bit(12),
                   kSse41 = bit(19), kSse42 = bit(20), kAes = bit(25), kOsxsave = bit(27),
                   kAvx = bit(28), kF16c = bit(29);
}
namespace leaf7_ebx {
constexpr unsigned kBmi1 = bit(3), kAvx2 = bit(5), kBmi2 = bit(8), kAvx512f = bit(16),
                   kAvx512dq = bit(17), kAvx512cd = bit(28), kAvx512bw = bit(30),
                   kAvx512vl = bit(31);
}
namespace leaf7_ecx {
constexpr unsigned kAvx512vbmi = bit(1), kAvx512vbmi2 = bit(6), kGfni = bit(8), kVaes = bit(9),
                   kVpclmulqdq = bit(10), kAvx512vnni = bit(11), kAvx512bitalg = bit(12),
                   kAvx512vpopcntdq = bit(14);
}
namespace amd_ecx {
constexpr unsigned kLzcnt = bit(5);
}

/// XCR0: which register states the operating system saves on a context switch.
std::uint64_t saved_register_states() {
  unsigned low = 0, high = 0;
  __asm__ volatile("xgetbv" : "=a"(low), "=d"(high) : "c"(0));
  return (static_cast<std::uint64_t>(high) << 32) | low;
}

// XCR0 bits: SSE and AVX (YMM) state; AVX-512's opmask and upper ZMM states.
constexpr std::uint64_t kYmmStates = 0x6;
constexpr std::uint64_t kZmmStates = 0xE0 | kYmmStates;

std::int64_t detect_cpu_targets() {
  const CpuidLeaf basic = cpuid(kLeafFeatures, 0);
  const CpuidLeaf extended = cpuid(kLeafExtendedFeatures, 0);
  const CpuidLeaf amd = cpuid(kLeafAmdFeatures, 0);
  namespace e1 = leaf1_ecx;
  namespace b7 = leaf7_ebx;
  namespace c7 = leaf7_ecx;
  const bool sse4 =
      all(basic.edx, leaf1_edx::kSse | leaf1_edx::kSse2) &&
      all(basic.ecx, e1::kSse3 | e1::kPclmulqdq | e1::kSsse3 | e1::kSse41 | e1::kSse42 | e1::kAes);
  // XGETBV faults unless the OS has set OSXSAVE.
  const std::uint64_t saved = all(basic.ecx, e1::kOsxsave) ? saved_register_states() : 0;
  const bool avx2 = sse4 && all(basic.ecx, e1::kFma | e1::kAvx | e1::kF16c) &&
                    all(extended.ebx, b7::kBmi1 | b7::kAvx2 | b7::kBmi2) &&
                    all(amd.ecx, amd_ecx::kLzcnt) && (saved & kYmmStates) == kYmmStates;
  const bool avx3 = avx2 &&
                    all(extended.ebx, b7::kAvx512f | b7::kAvx512dq | b7::kAvx512cd | b7::kAvx512bw |
                                          b7::kAvx512vl) &&
                    (saved & kZmmStates) == kZmmStates;
  const bool avx3_dl = avx3 && all(extended.ecx, c7::kAvx512vbmi | c7::kAvx512vbmi2 | c7::kGfni |
                                                     c7::kVaes | c7::kVpclmulqdq | c7::kAvx512vnni |
                                                     c7::kAvx512bitalg | c7::kAvx512vpopcntdq);
  std::int64_t targets = kFallbackTargets;
  if (sse4) targets |= HWY_SSSE3 | HWY_SSE4;
  if (avx2) targets |= HWY_AVX2;
  if (avx3) targets |= HWY_AVX3;
  if (avx3_dl) targets |= HWY_AVX3_DL;
  return targets;
}
#else
std::int64_t detect_cpu_targets() { return kFallbackTargets; }
#endif

/// What the CPU supports, whatever pin is in place.
std::int64_t cpu_targets() {
  static const std::int64_t supported = detect_cpu_targets();
  return supported;
}

/// The compiled targets (HWY_TARGETS) among `supported`, best (lowest bit) first.
std::vector<std::int64_t> runnable(std::int64_t supported) {
  std::vector<std::int64_t> bits;
  for (std::int64_t left = supported & HWY_TARGETS; left != 0; left &= left - 1) {
    bits.push_back(left & -left);
  }
  return bits;
}

/// The targets dispatch may pick from now: the CPU's, or a pin's.
std::atomic<std::int64_t> allowed_targets{0};

hwy::ChosenTarget& choice() {
  static hwy::ChosenTarget chosen;
  return chosen;
}

std::int64_t target_bit(std::string_view name) {
  for (const std::int64_t bit : runnable(cpu_targets())) {
    if (name == hwy::TargetName(bit)) return bit;
  }
  return 0;
}

/// Dispatch picks the best target of `allowed` (0: the CPU's); the fallback always remains.
void allow_only(std::int64_t allowed) {
  const std::int64_t targets = allowed == 0 ? cpu_targets() : (allowed | kFallbackTargets);
  allowed_targets.store(targets);
  choice().Update(targets);
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

/// The choice from the CPU and PARFILTER_SIMD_TARGETS, made once per process (thread-safe: a
/// function-local static's guard, after the first call one load and a branch per dispatch).
void ensure_configured() {
  static const bool configured = [] {
    allow_only(0);
    apply_environment();
    return true;
  }();
  (void)configured;
}

}  // namespace

const hwy::ChosenTarget& chosen_target() {
  ensure_configured();
  return choice();
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
  const std::vector<std::int64_t> bits = runnable(allowed_targets.load());
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
