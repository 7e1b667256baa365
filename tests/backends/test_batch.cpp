// Backend::run_batch against Backend::run_chain, image by image: every registered backend
// (threaded ones at 3 threads, so that a batch of 3 or more runs its images side by side and
// a shorter last group runs them one at a time over every thread), batches of 1 to 7 images of
// different shapes, chains with an image result and with histogram and threshold results.
// Results come back once each, in input order, with the same bytes as one at a time.
#include <gtest/gtest.h>

#include <algorithm>
#include <optional>
#include <string>
#include <vector>

#include "parfilter/backend.hpp"
#include "support/test_images.hpp"

namespace parfilter {
namespace {

constexpr int kThreads = 3;
constexpr std::size_t kBatchSizes[] = {1, 2, 3, 4, 7};

/// Shapes cycled through the batch: 1x1, a row, a column, odd sizes, one smaller than 5x5.
constexpr int kShapes[][3] = {{37, 23, 3}, {1, 1, 1},   {64, 1, 4}, {1, 19, 3},
                              {4, 3, 1},   {50, 41, 4}, {17, 30, 3}};

OpChain chain_of(std::initializer_list<Op> ops) {
  OpChain chain;
  for (const Op op : ops) chain.push_back({op, OpParams{}});
  return chain;
}

struct Received {
  std::size_t index = 0;
  OpOutput output;
};

class BatchOnEveryBackend : public ::testing::TestWithParam<std::string> {};

TEST_P(BatchOnEveryBackend, GivesEachImageWhatOneAtATimeGives) {
  const BackendInfo* info = find_backend(GetParam());
  ASSERT_NE(info, nullptr);
  BackendOptions options;
  if (info->threaded) options.threads = kThreads;
  const auto backend = info->create(options);
  if (!backend->availability().present) GTEST_SKIP() << backend->availability().reason;
  const std::vector<OpChain> chains = {chain_of({Op::gaussian}), chain_of({Op::gray, Op::sobel}),
                                       chain_of({Op::histogram}), chain_of({Op::otsu})};
  for (const OpChain& chain : chains) {
    for (const std::size_t count : kBatchSizes) {
      std::vector<Image> inputs;
      for (std::size_t i = 0; i < count; ++i) {
        const auto& shape = kShapes[i % std::size(kShapes)];
        inputs.push_back(
            test::synthetic_image(shape[0], shape[1], shape[2], static_cast<std::uint32_t>(i + 1)));
      }
      std::vector<Received> received;
      std::size_t next = 0;
      BatchCallbacks callbacks;
      callbacks.next = [&]() -> std::optional<BatchInput> {
        if (next >= count) return std::nullopt;
        const std::size_t index = next++;
        return BatchInput{index, Image(inputs[index])};
      };
      callbacks.done = [&](std::size_t index, OpOutput&& output, const StageTimes&) {
        received.push_back({index, std::move(output)});
      };
      callbacks.failed = [&](std::size_t index, std::exception_ptr) {
        ADD_FAILURE() << chain_name(chain) << ": image " << index << " failed";
      };
      callbacks.size_hint = count;
      backend->run_batch(chain, callbacks);
      std::sort(received.begin(), received.end(),
                [](const Received& a, const Received& b) { return a.index < b.index; });
      const std::string what = chain_name(chain) + ", batch of " + std::to_string(count);
      ASSERT_EQ(received.size(), count) << what;
      for (std::size_t i = 0; i < count; ++i) {
        ASSERT_EQ(received[i].index, i) << what;
        const OpOutput expected = backend->run_chain(chain, inputs[i].view(), nullptr);
        EXPECT_EQ(received[i].output.histogram, expected.histogram) << what << ", image " << i;
        EXPECT_EQ(received[i].output.threshold, expected.threshold) << what << ", image " << i;
        if (!expected.image.empty()) {
          EXPECT_TRUE(test::same_image(expected.image, received[i].output.image))
              << what << ", image " << i;
        }
      }
    }
  }
}

std::vector<std::string> backend_names() {
  std::vector<std::string> names;
  for (const BackendInfo& info : registered_backends()) names.emplace_back(info.name);
  return names;
}

INSTANTIATE_TEST_SUITE_P(Backends, BatchOnEveryBackend, ::testing::ValuesIn(backend_names()),
                         [](const auto& info) { return info.param; });

}  // namespace
}  // namespace parfilter
