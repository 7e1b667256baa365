// Backend::run_batch against Backend::run_chain, image by image: every registered backend
// (threaded ones at 3 threads, so that a batch of 3 or more runs its images side by side and
// a shorter last group runs them one at a time over every thread), batches of 1 to 7 images of
// different shapes, chains with an image result and with histogram and threshold results.
// Results come back once each, in input order, with the same bytes as one at a time. The same
// through the pipeline with fewer codec workers than the backend has threads (a library
// caller's choice): a batch side by side holds no more images than the pipeline's window.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "parfilter/backend.hpp"
#include "parfilter/pipeline.hpp"
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

/// Input i of a batch: the shapes in turn, each with its own pixels.
std::vector<Image> batch_inputs(std::size_t count) {
  std::vector<Image> inputs;
  for (std::size_t i = 0; i < count; ++i) {
    const auto& shape = kShapes[i % std::size(kShapes)];
    inputs.push_back(
        test::synthetic_image(shape[0], shape[1], shape[2], static_cast<std::uint32_t>(i + 1)));
  }
  return inputs;
}

/// The named backend, at `threads` threads where it takes them, or null.
std::unique_ptr<Backend> create_backend(const std::string& name, int threads) {
  const BackendInfo* info = find_backend(name);
  if (info == nullptr) return nullptr;
  BackendOptions options;
  if (info->threaded) options.threads = threads;
  return info->create(options);
}

struct Received {
  std::size_t index = 0;
  OpOutput output;
};

class BatchOnEveryBackend : public ::testing::TestWithParam<std::string> {};

TEST_P(BatchOnEveryBackend, GivesEachImageWhatOneAtATimeGives) {
  const auto backend = create_backend(GetParam(), kThreads);
  ASSERT_NE(backend, nullptr);
  if (!backend->availability().present) GTEST_SKIP() << backend->availability().reason;
  const std::vector<OpChain> chains = {chain_of({Op::gaussian}), chain_of({Op::gray, Op::sobel}),
                                       chain_of({Op::histogram}), chain_of({Op::otsu})};
  for (const OpChain& chain : chains) {
    for (const std::size_t count : kBatchSizes) {
      const std::vector<Image> inputs = batch_inputs(count);
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

/// In-memory jobs: input i is a synthetic image; results are kept by job.
class MemoryJobs final : public BatchJobs {
 public:
  explicit MemoryJobs(std::vector<Image> inputs) : inputs_(std::move(inputs)) {}
  std::optional<std::size_t> next_job() override {
    if (next_ >= inputs_.size()) return std::nullopt;
    return next_++;
  }
  Image load(std::size_t job, const StageContext& context) override {
    context.checkpoint();
    return Image(inputs_[job]);
  }
  void save(std::size_t job, const OpOutput& output, const StageContext& context) override {
    context.checkpoint();
    const std::scoped_lock lock(mutex_);
    saved_.emplace(job, Image(output.image));
  }
  void finished(std::size_t job, const JobOutcome& outcome) override {
    EXPECT_FALSE(outcome.failure) << "job " << job;
    order_.push_back(job);
  }
  [[nodiscard]] std::size_t size_hint() const override { return inputs_.size(); }

  std::vector<std::size_t> order_;
  std::map<std::size_t, Image> saved_;

 private:
  std::vector<Image> inputs_;
  std::size_t next_ = 0;
  std::mutex mutex_;
};

TEST_P(BatchOnEveryBackend, ThroughAPipelineWithFewerWorkersThanItsThreads) {
  constexpr int kBackendThreads = 8;
  constexpr int kWorkers = 1;  // a window of 3 images
  constexpr std::size_t kCount = 12;
  const auto backend = create_backend(GetParam(), kBackendThreads);
  ASSERT_NE(backend, nullptr);
  if (!backend->availability().present) GTEST_SKIP() << backend->availability().reason;
  const std::vector<Image> inputs = batch_inputs(kCount);
  const OpChain chain = chain_of({Op::gaussian});
  MemoryJobs jobs(inputs);
  run_batch_pipeline(*backend, chain, jobs, {kWorkers, backend->computes_on_host(), 0.0});
  ASSERT_EQ(jobs.order_.size(), kCount);
  for (std::size_t i = 0; i < kCount; ++i) {
    EXPECT_EQ(jobs.order_[i], i);
    const OpOutput expected = backend->run_chain(chain, inputs[i].view(), nullptr);
    EXPECT_TRUE(test::same_image(expected.image, jobs.saved_.at(i))) << "image " << i;
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
