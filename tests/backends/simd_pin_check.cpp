// Part of test_cross_backend: ctest runs the suite's CPU cases once per SIMD target with
// PARFILTER_SIMD_TARGETS naming it (tests/CMakeLists.txt). A CPU without that target would
// quietly run the best one instead, so the run ends before any test then, with a message ctest
// recognizes as a skip; a pin that did not take effect for another reason fails.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <iostream>
#include <string>

#include "simd_kernels.hpp"

namespace parfilter {
namespace {

class SimdPinCheck : public ::testing::Environment {
 public:
  void SetUp() override {
    namespace simd = kernels::simd;
    const char* wanted = std::getenv(simd::kTargetEnvironment);
    if (wanted == nullptr || *wanted == '\0') return;
    const auto targets = simd::targets();
    if (std::find(targets.begin(), targets.end(), wanted) == targets.end()) {
      std::cout << "SIMD target " << wanted << " is not available on this CPU or build\n";
      std::exit(0);  // every test would run on another target: none runs
    }
    ASSERT_EQ(simd::active_target(), wanted) << simd::kTargetEnvironment << " did not take";
    std::cout << "SIMD target pinned: " << wanted << "\n";
  }
};

// Registered before main runs; gtest owns and deletes it.
const auto* const kCheck = ::testing::AddGlobalTestEnvironment(new SimdPinCheck);

}  // namespace
}  // namespace parfilter
