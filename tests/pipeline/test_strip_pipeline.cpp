// The strip pipeline against the reference: every registered backend x op x parameter set
// (the op table's) x shape x channels x depth, streamed in strips of 1 and 3 rows (smaller
// than every halo, and splitting it) and the automatic size, and chains that mix row-local
// steps, pools and whole-image steps. A streamed run gives the whole image's bytes.
#include <gtest/gtest.h>

#include <array>
#include <string>
#include <vector>

#include "parfilter/error.hpp"
#include "parfilter/image_rows.hpp"
#include "parfilter/strip_pipeline.hpp"
#include "parfilter/strip_plan.hpp"
#include "reference.hpp"
#include "support/op_cases.hpp"
#include "support/test_images.hpp"

namespace parfilter {
namespace {

using namespace test;  // NOLINT: the case vocabulary of these suites

using Shapes = std::vector<std::array<int, 2>>;
const Shapes kShapes = {{1, 1}, {1, 7}, {9, 1}, {19, 13}, {23, 40}};
/// 0: the pipeline's own choice.
constexpr std::array kStripRows = {1, 3, 0};
/// A device backend's runs cost a launch each: strips that split every halo, on fewer shapes.
constexpr std::array kDeviceStripRows = {3};
const Shapes kDeviceShapes = {{1, 1}, {23, 40}};
constexpr int kThreads = 3;
constexpr int kTwelveBits = 12;

Image input_at(Depth depth, int width, int height, int channels) {
  const auto seed = static_cast<std::uint32_t>(width * 31 + height);
  return depth == Depth::u8 ? synthetic_image(width, height, channels, seed)
                            : synthetic_image_16(width, height, channels, seed, kTwelveBits);
}

/// The chain streamed through `backend` from an image in memory into one.
OpOutput streamed(Backend& backend, const OpChain& chain, const Image& input, int strip_rows) {
  ImageRowReader reader(input);
  StripOptions options;
  options.strip_rows = strip_rows;
  if (strip_rows == 0) {         // the host passes' threads on the automatic strips alone: each
    options.threads = kThreads;  // call starts its threads
    options.parallel_for = parallel_for_threads(kThreads);
  }
  if (op_info(chain.back().op).traits.histogram_result) {
    return run_streamed(backend, chain, reader, nullptr, options);
  }
  ImageRowWriter writer(streamed_result_shape(chain, reader.shape()));
  OpOutput output = run_streamed(backend, chain, reader, &writer, options);
  writer.commit();
  output.image = std::move(writer.image());
  return output;
}

struct StripCase {
  std::string backend;
  int threads = 0;
  Depth depth = Depth::u8;
};

std::vector<StripCase> strip_cases() {
  std::vector<StripCase> cases;
  for (const BackendInfo& info : registered_backends()) {
    for (const Depth depth : {Depth::u8, Depth::u16}) {
      cases.push_back({std::string(info.name), info.threaded ? kThreads : 0, depth});
    }
  }
  return cases;
}

class StripPipeline : public ::testing::TestWithParam<StripCase> {
 protected:
  /// The backend, or null when this case cannot run here (no device, no 16 bits, MPI).
  Backend* backend() {
    const StripCase& c = GetParam();
    Backend& backend = backend_named(c.backend, c.threads);
    if (!backend.availability().present || backend.takes_distribution_options()) return nullptr;
    if (c.depth == Depth::u16 && !backend.runs_16_bit()) return nullptr;
    return &backend;
  }
  [[nodiscard]] std::vector<int> strip_rows(const Backend& backend) const {
    if (backend.computes_on_host()) return {kStripRows.begin(), kStripRows.end()};
    return {kDeviceStripRows.begin(), kDeviceStripRows.end()};
  }
  [[nodiscard]] const Shapes& shapes(const Backend& backend) const {
    return backend.computes_on_host() ? kShapes : kDeviceShapes;
  }
};

TEST_P(StripPipeline, EveryOpMatchesTheReference) {
  Backend* const backend = this->backend();
  if (backend == nullptr) GTEST_SKIP() << "not run here";
  for (const Op op : kAllOps) {
    for (const ParamSet& set : param_sets(op)) {
      for (const auto& [width, height] : shapes(*backend)) {
        for (const int channels : kChannelCounts) {
          const Image input = input_at(GetParam().depth, width, height, channels);
          const OpChain chain{{op, set.params}};
          const OpOutput expected = reference::run_chain(chain, input);
          for (const int rows : strip_rows(*backend)) {
            EXPECT_TRUE(same_output(expected, streamed(*backend, chain, input, rows)))
                << op_name(op) << " " << set.name << " " << width << "x" << height << "x"
                << channels << " strips of " << rows;
          }
        }
      }
    }
  }
}

TEST_P(StripPipeline, ChainsMatchTheReference) {
  Backend* const backend = this->backend();
  if (backend == nullptr) GTEST_SKIP() << "not run here";
  OpParams adaptive;
  adaptive.adaptive = true;
  adaptive.window = 5;
  OpParams twice;
  twice.iterations = 2;
  twice.se = {SeShape::ellipse, 5, 3};
  const std::vector<OpChain> chains = {
      {{Op::gaussian, {}}, {Op::sobel, {}}},
      {{Op::gaussian, {}}, {Op::equalize, {}}, {Op::erode, {}}},
      {{Op::pool, {}}, {Op::gaussian, {}}, {Op::pool, {}}, {Op::sharpen, {}}},
      {{Op::sharpen, {}}, {Op::otsu, {}}, {Op::open, twice}},
      {{Op::gray, {}}, {Op::segment, adaptive}, {Op::close, twice}},
      {{Op::equalize, {}}, {Op::otsu, {}}},
      {{Op::erode, twice}, {Op::pool, {}}, {Op::histogram, {}}},
  };
  for (const OpChain& chain : chains) {
    for (const int channels : kChannelCounts) {
      const Image input = input_at(GetParam().depth, 29, 37, channels);
      const OpOutput expected = reference::run_chain(chain, input);
      for (const int rows : strip_rows(*backend)) {
        EXPECT_TRUE(same_output(expected, streamed(*backend, chain, input, rows)))
            << chain_name(chain) << " x" << channels << " strips of " << rows;
      }
    }
  }
}

INSTANTIATE_TEST_SUITE_P(All, StripPipeline, ::testing::ValuesIn(strip_cases()),
                         [](const ::testing::TestParamInfo<StripCase>& info) {
                           return sanitize(backend_label(info.param.backend, info.param.threads) +
                                           (info.param.depth == Depth::u8 ? "_8" : "_16"));
                         });

TEST(StripPlan, BandsNeedTheirHalosAndPoolsDoubleThem) {
  OpParams rect5;
  rect5.se = {SeShape::rect, 3, 5};
  const OpChain chain{{Op::pool, {}}, {Op::sharpen, {}}, {Op::open, rect5}};
  // sharpen reads 1 row each side, a 3x5 rect 2 rows each side per pass (open: 2 passes).
  EXPECT_EQ(segment_halo(chain), 2 * (1 + 2 * 2));
  EXPECT_EQ(band_input_rows(chain, 100, 3, {10, 20}), (RowRange{10, 50}));
  EXPECT_EQ(band_input_rows(chain, 100, 3, {0, 5}), (RowRange{0, 20}));
}

TEST(StripPipeline, ABudgetTooSmallIsOneClearError) {
  const Image input = synthetic_image(64, 64, 3, 1);
  ImageRowReader reader(input);
  ImageRowWriter writer(reader.shape());
  StripOptions options;
  options.max_memory = 1024;
  Backend& backend = backend_named("serial", 0);
  try {
    (void)run_streamed(backend, {{Op::gaussian, {}}}, reader, &writer, options);
    FAIL() << "ran over the budget";
  } catch (const RuntimeError& e) {
    EXPECT_NE(std::string(e.what()).find("--max-memory"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace parfilter
