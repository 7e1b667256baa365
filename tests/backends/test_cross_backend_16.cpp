// The cross-backend suite at 16 bits: every registered backend x op x variant x parameter set
// (the op table's, support/op_cases.hpp) x border x shape x channels, on 16-bit images with
// content in every bit and on 12-bit data, against the reference bit for bit. A backend that
// does not run 16 bits must refuse every one of them with UsageError naming --depth 8, before
// it computes anything.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "parfilter/backend.hpp"
#include "parfilter/error.hpp"
#include "reference.hpp"
#include "support/op_cases.hpp"
#include "support/test_images.hpp"

namespace parfilter {
namespace {

using namespace test;  // NOLINT: the case vocabulary of these suites

struct DeepCase {
  std::string backend;
  int threads = 0;
  Op op = Op::gray;
};

/// Small shapes, down to 1x1 and smaller than every filter, and one wider than a GPU block;
/// 3 threads split them unevenly.
constexpr std::array<std::array<int, 2>, 6> kDeepShapes = {
    {{1, 1}, {1, 7}, {9, 1}, {5, 3}, {19, 13}, {41, 18}}};
constexpr std::array kSignificantBits = {16, 12};
constexpr int kThreads = 3;

std::vector<DeepCase> deep_cases() {
  std::vector<DeepCase> cases;
  for (const BackendInfo& info : registered_backends()) {
    for (const Op op : kAllOps) {
      cases.push_back({std::string(info.name), info.threaded ? kThreads : 0, op});
    }
  }
  return cases;
}

/// The op's parameter sets, each crossed with every border (and one above 255) if it has one.
std::vector<OpParams> deep_params(Op op) {
  std::vector<OpParams> sets;
  for (const ParamSet& set : param_sets(op)) {
    if (!uses_border(op)) {
      sets.push_back(set.params);
      continue;
    }
    std::vector<BorderMode> borders = border_modes();
    borders.push_back({BorderKind::constant, 40000});
    for (const BorderMode border : borders) {
      OpParams bordered = set.params;
      bordered.border = border;
      sets.push_back(bordered);
    }
  }
  return sets;
}

class CrossBackend16 : public ::testing::TestWithParam<DeepCase> {};

TEST_P(CrossBackend16, MatchesTheReferenceOrRefuses) {
  const DeepCase& c = GetParam();
  Backend& backend = backend_named(c.backend, c.threads);
  const Availability availability = backend.availability();
  if (!availability.present) GTEST_SKIP() << c.backend << ": " << availability.reason;
  const std::vector<std::string> variants = backend.variants(c.op);
  for (const auto& [width, height] : kDeepShapes) {
    for (const int channels : kChannelCounts) {
      for (const int bits : kSignificantBits) {
        const Image input = synthetic_image_16(width, height, channels,
                                               static_cast<std::uint32_t>(width * height), bits);
        for (const OpParams& params : deep_params(c.op)) {
          const OpOutput expected = reference::run(c.op, input, params);
          for (const std::string& variant : variants) {
            OpParams run_params = params;
            run_params.variant = variant;
            const OpChain chain{{c.op, run_params}};
            const std::string where = std::to_string(width) + "x" + std::to_string(height) + "x" +
                                      std::to_string(channels) + " " + std::to_string(bits) +
                                      "-bit " + variant;
            if (!backend.runs_16_bit()) {
              try {
                (void)run_chain_on(backend, chain, input);
                ADD_FAILURE() << "ran a 16-bit image: " << where;
              } catch (const UsageError& e) {
                EXPECT_NE(std::string(e.what()).find("--depth 8"), std::string::npos) << e.what();
              }
              return;  // the refusal does not depend on the case
            }
            EXPECT_TRUE(same_output(expected, run_chain_on(backend, chain, input))) << where;
          }
        }
      }
    }
  }
}

INSTANTIATE_TEST_SUITE_P(All, CrossBackend16, ::testing::ValuesIn(deep_cases()),
                         [](const ::testing::TestParamInfo<DeepCase>& info) {
                           return sanitize(backend_label(info.param.backend, info.param.threads) +
                                           "_" + std::string(op_name(info.param.op)));
                         });

TEST(CrossBackend16, ChainsKeepSixteenBits) {
  const Image input = synthetic_image_16(17, 11, 3, 5, 12);
  const OpChain chain{{Op::gray, {}}, {Op::gaussian, {}}, {Op::sobel, {}}};
  const OpOutput expected = reference::run_chain(chain, input);
  for (const BackendInfo& info : registered_backends()) {
    Backend& backend = backend_named(std::string(info.name), info.threaded ? kThreads : 0);
    if (!backend.availability().present || !backend.runs_16_bit()) continue;
    EXPECT_TRUE(same_output(expected, run_chain_on(backend, chain, input))) << info.name;
  }
}

/// The largest shape the issue names, 12-bit data, each op's defaults and each backend's
/// default variant: the GPU kernels' grids and the CPU backends' blocks at a real size.
TEST(CrossBackend16, ALargeTwelveBitImageMatchesTheReference) {
  constexpr int kSide = 1411;
  constexpr int kTwelveBits = 12;
  const Image input = synthetic_image_16(kSide, kSide, 1, 7, kTwelveBits);
  for (const Op op : kAllOps) {
    const OpOutput expected = reference::run(op, input, {});
    for (const BackendInfo& info : registered_backends()) {
      Backend& backend = backend_named(std::string(info.name), info.threaded ? kThreads : 0);
      if (!backend.availability().present || !backend.runs_16_bit()) continue;
      EXPECT_TRUE(same_output(expected, run_chain_on(backend, OpChain{{op, {}}}, input)))
          << info.name << " " << op_name(op);
    }
  }
}

}  // namespace
}  // namespace parfilter
