// The cross-backend suite: every registered backend x op x variant x shape x channels x
// border x the parameter sets the op table lists (support/op_cases.hpp) against the reference,
// bit for bit; and chains of ops against the reference run step by step. A backend joins by
// registering; one whose device is absent is skipped with its reason.
//
// Synthetic shapes get the full product. The real images in data/ (astronaut RGB, camera
// gray, horse RGBA) get each op with its default parameters and its flags, every variant and,
// for the ops with borders, every border mode: a representative subset that keeps the suite
// fast.
//
// A threaded backend (BackendInfo::threaded: pthread, OpenMP) gets the whole product at each
// of kThreadCounts, named <backend>_t<N>: 1 (one block), 2 (this machine's cores), 3 (uneven
// blocks) and 7 (more threads than cores, and than the rows of the small shapes).
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

constexpr std::array kThreadCounts = {1, 2, 3, 7};

std::vector<std::string> backend_variants(const BackendInfo& info, Op op) {
  try {
    return info.create(BackendOptions{})->variants(op);
  } catch (const std::exception&) {
    return {"default"};  // the test itself reports why the backend cannot be created
  }
}

std::vector<Case> all_cases() {
  std::vector<Case> cases;
  const auto add = [&](const BackendInfo& info, int threads, Op op, const std::string& variant,
                       const Shape& shape, int channels, const ParamSet& param) {
    const std::string name(info.name);
    if (!uses_border(op)) {
      cases.push_back({name, threads, op, variant, shape, channels, false, param});
      return;
    }
    for (const BorderMode border : border_modes()) {
      ParamSet bordered = param;
      bordered.params.border = border;
      cases.push_back({name, threads, op, variant, shape, channels, true, bordered});
    }
  };
  for (const BackendInfo& info : registered_backends()) {
    std::vector<int> thread_counts = {0};
    if (info.threaded) thread_counts.assign(kThreadCounts.begin(), kThreadCounts.end());
    for (const int threads : thread_counts) {
      for (const Op op : kAllOps) {
        for (const std::string& variant : backend_variants(info, op)) {
          for (const Shape& shape : synthetic_shapes()) {
            for (const int channels : kChannelCounts) {
              for (const ParamSet& param : param_sets(op)) {
                add(info, threads, op, variant, shape, channels, param);
              }
            }
          }
          for (const DataImage& image : data_images()) {
            for (const ParamSet& param : data_param_sets(op)) {
              add(info, threads, op, variant, image.shape, image.channels, param);
            }
          }
        }
      }
    }
  }
  return cases;
}

}  // namespace
}  // namespace parfilter

namespace parfilter::test {
/// Test names say what a case is; gtest prints the parameter with this too.
void PrintTo(const Case& c, std::ostream* os) { *os << case_name(c); }
}  // namespace parfilter::test

namespace parfilter {
namespace {

class CrossBackend : public ::testing::TestWithParam<Case> {};

TEST_P(CrossBackend, MatchesReference) {
  const Case& c = GetParam();
  Backend& backend = backend_named(c.backend, c.threads);
  const Availability availability = backend.availability();
  if (!availability.present) GTEST_SKIP() << c.backend << ": " << availability.reason;
  if (c.threads != 0) {
    ASSERT_EQ(backend.threads(), c.threads);
  }
  const Image& input = input_image(c.shape, c.channels);
  ASSERT_EQ(input.channels(), c.channels) << "data/" << c.shape.file << " changed channels";
  const OpOutput& expected = reference_output(c, input);
  OpParams params = c.param.params;
  params.variant = c.variant;
  const OpOutput actual = backend.run(c.op, input.view(), params);
  EXPECT_TRUE(same_output(expected, actual));
}

INSTANTIATE_TEST_SUITE_P(AllBackends, CrossBackend, ::testing::ValuesIn(all_cases()),
                         [](const ::testing::TestParamInfo<Case>& info) {
                           return case_name(info.param);
                         });

// ---- chains ----------------------------------------------------------------------------------
/// Chains whose steps change channels and sizes (gray, pool), read borders, end with a
/// threshold or a histogram; each step with its default variant.
std::vector<OpChain> chains() {
  OpParams reflect;
  reflect.border = *parse_border("reflect101");
  OpParams ellipse;
  ellipse.se = *parse_se("ellipse:5x3");
  OpParams adaptive;
  adaptive.adaptive = true;
  adaptive.window = 5;
  return {{{Op::gray, {}}, {Op::gaussian, reflect}, {Op::sobel, {}}},
          {{Op::erode, ellipse}, {Op::dilate, ellipse}, {Op::gaussian, {}}},
          {{Op::pool, {}}, {Op::sharpen, reflect}, {Op::pool, {}}},
          {{Op::equalize, {}}, {Op::segment, adaptive}},
          {{Op::gaussian, {}}, {Op::otsu, {}}},
          {{Op::sharpen, {}}, {Op::histogram, {}}}};
}

TEST(CrossBackendChains, EveryBackendGivesTheReferenceStepByStep) {
  for (const BackendInfo& info : registered_backends()) {
    Backend& backend = backend_named(std::string(info.name), 0);
    if (!backend.availability().present) continue;
    for (const OpChain& chain : chains()) {
      for (const Shape& shape :
           {Shape{"1x1", 1, 1, ""}, Shape{"17x9", 17, 9, ""}, Shape{"64x48", 64, 48, ""}}) {
        for (const int channels : kChannelCounts) {
          const Image& input = input_image(shape, channels);
          EXPECT_TRUE(same_output(reference::run_chain(chain, input),
                                  backend.run_chain(chain, input.view())))
              << info.name << " " << chain_name(chain) << " on " << shape.name << " c" << channels;
        }
      }
    }
  }
}

// ---- threaded backends ----------------------------------------------------------------------
TEST(ThreadedBackends, ThreadsOptionSetsTheWorkerCount) {
  constexpr int kThreads = 3;
  for (const BackendInfo& info : registered_backends()) {
    if (!info.threaded) continue;
    EXPECT_EQ(info.create(BackendOptions{kThreads, "", ""})->threads(), kThreads) << info.name;
    EXPECT_GE(info.create(BackendOptions{})->threads(), 1) << info.name;
    EXPECT_THROW((void)info.create(BackendOptions{-1, "", ""}), UsageError) << info.name;
  }
}

/// Far more threads than rows: the blocks past the last row are empty and must be harmless.
TEST(ThreadedBackends, MoreThreadsThanRows) {
  constexpr int kManyThreads = 16;
  constexpr int kChannels = 3;
  const std::vector<Shape> shapes = {{"5x3", 5, 3, ""}, {"9x1", 9, 1, ""}};
  for (const BackendInfo& info : registered_backends()) {
    if (!info.threaded) continue;
    const auto backend = info.create(BackendOptions{kManyThreads, "", ""});
    for (const Shape& shape : shapes) {
      const Image& input = input_image(shape, kChannels);
      for (const Op op : kAllOps) {
        const Case c{std::string(info.name), kManyThreads, op, "default", shape, kChannels, false,
                     {"default", {}}};
        EXPECT_TRUE(same_output(reference_output(c, input), backend->run(op, input.view(), {})))
            << case_name(c);
      }
    }
  }
}

}  // namespace
}  // namespace parfilter
