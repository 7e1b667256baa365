// A threaded CPU backend's batch (cpu_batch.hpp): images side by side, one per block, each
// reported once; a batch smaller than the blocks one image at a time; a team that runs its
// blocks in turn still finishes; a failing `next` ends the batch after the inputs it gave.
// Where the caller lends its threads, the images run as tasks on them and the team is idle,
// holding no more images than those threads; an image whose task cannot be queued fails alone.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <mutex>
#include <stdexcept>
#include <thread>
#include <vector>

#include "cpu_batch.hpp"
#include "support/test_images.hpp"

namespace parfilter {
namespace {

constexpr int kBlocks = 4;

/// Every block on its own thread, as the pthread and OpenMP schedulers run them.
class ThreadPerBlock final : public RowScheduler {
 public:
  [[nodiscard]] int max_blocks() const override { return kBlocks; }
  void for_each_block(int rows, const std::function<void(RowRange, int)>& fn) override {
    std::vector<std::jthread> threads;
    for (int b = 0; b < kBlocks; ++b) {
      threads.emplace_back([&, b] { fn(block_range(rows, kBlocks, b), b); });
    }
  }
};

/// Every block in turn on the calling thread: an OpenMP team smaller than asked for.
class BlocksInTurn final : public RowScheduler {
 public:
  [[nodiscard]] int max_blocks() const override { return kBlocks; }
  void for_each_block(int rows, const std::function<void(RowRange, int)>& fn) override {
    for (int b = 0; b < kBlocks; ++b) fn(block_range(rows, kBlocks, b), b);
  }
};

/// A scheduler whose team must stay idle: the images run on the caller's threads.
class UnusedTeam final : public RowScheduler {
 public:
  [[nodiscard]] int max_blocks() const override { return kBlocks; }
  void for_each_block(int /*rows*/, const std::function<void(RowRange, int)>& /*fn*/) override {
    ADD_FAILURE() << "the team ran although the caller lent its threads";
  }
};

struct Batch {
  std::size_t count = 0;
  bool lend_threads = false;  // host_submit: one thread per task
  int lent_threads = kBlocks;
  std::size_t unqueued = SIZE_MAX;      // host_submit throws for this input
  std::size_t fail_next_at = SIZE_MAX;  // next throws when asked for this input
  std::size_t given = 0;
  std::vector<std::size_t> done;
  std::vector<std::size_t> failed;
  std::atomic<int> computing{0};
  int most_at_once = 0;
  std::atomic<bool> in_callback{false};

  BatchCallbacks callbacks() {
    BatchCallbacks c;
    c.size_hint = count;
    c.next = [this]() -> std::optional<BatchInput> {
      EXPECT_FALSE(in_callback.exchange(true)) << "callbacks called at once";
      std::optional<BatchInput> input;
      if (given == fail_next_at) {
        in_callback = false;
        throw std::runtime_error("next failed");
      }
      if (given < count) {
        input = BatchInput{given, test::synthetic_image(static_cast<int>(given) + 1, 2, 1,
                                                        static_cast<std::uint32_t>(given))};
        ++given;
      }
      in_callback = false;
      return input;
    };
    c.done = [this](std::size_t index, OpOutput&& output, const StageTimes&) {
      EXPECT_FALSE(in_callback.exchange(true)) << "callbacks called at once";
      EXPECT_EQ(output.threshold, static_cast<int>(index));
      done.push_back(index);
      in_callback = false;
    };
    c.failed = [this](std::size_t index, std::exception_ptr) { failed.push_back(index); };
    if (lend_threads) {
      c.host_threads = lent_threads + 1;  // as the pipeline counts them: with this thread
      c.host_submit = [this](std::function<void()> task) {
        EXPECT_FALSE(in_callback.load()) << "a task submitted from within a callback";
        if (submitted++ == unqueued) throw std::runtime_error("no room for the task");
        task_threads.emplace_back(std::move(task));
      };
    }
    return c;
  }

  /// The "chain": records how many images compute at once; the threshold names the input.
  ChainOnScheduler run() {
    return [this](RowScheduler& scheduler, const Image& input, StageTimes&) {
      EXPECT_EQ(scheduler.max_blocks(), size_hint_side_by_side() ? 1 : kBlocks);
      const int now = ++computing;
      std::this_thread::sleep_for(std::chrono::milliseconds(2));
      {
        static std::mutex mutex;
        const std::scoped_lock lock(mutex);
        most_at_once = std::max(most_at_once, now);
      }
      --computing;
      OpOutput out;
      out.threshold = static_cast<int>(given_index(input.view()));
      return out;
    };
  }
  /// The batch through run_images_side_by_side on `scheduler`.
  void run_on(RowScheduler& scheduler) { run_images_side_by_side(scheduler, callbacks(), run()); }
  [[nodiscard]] bool size_hint_side_by_side() const { return count >= kBlocks; }
  /// Input i is i + 1 pixels wide.
  static std::size_t given_index(const ConstImageView& input) {
    return static_cast<std::size_t>(input.width() - 1);
  }

  std::size_t submitted = 0;
  std::vector<std::jthread> task_threads;  // last: joined first
};

std::vector<std::size_t> sorted(std::vector<std::size_t> v) {
  std::sort(v.begin(), v.end());
  return v;
}

std::vector<std::size_t> first(std::size_t n) {
  std::vector<std::size_t> v(n);
  for (std::size_t i = 0; i < n; ++i) v[i] = i;
  return v;
}

TEST(ImagesSideBySide, ReportEveryImageOnceAndRunSeveralAtOnce) {
  Batch batch;
  batch.count = 13;
  ThreadPerBlock scheduler;
  batch.run_on(scheduler);
  EXPECT_EQ(sorted(batch.done), first(batch.count));
  EXPECT_TRUE(batch.failed.empty());
  EXPECT_GT(batch.most_at_once, 1);
  EXPECT_LE(batch.most_at_once, kBlocks);
}

TEST(ImagesSideBySide, ASmallerBatchRunsOneImageAtATimeOverEveryBlock) {
  Batch batch;
  batch.count = kBlocks - 1;
  ThreadPerBlock scheduler;
  batch.run_on(scheduler);
  EXPECT_EQ(batch.done, first(batch.count));
  EXPECT_EQ(batch.most_at_once, 1);
}

TEST(ImagesSideBySide, FinishWhenTheBlocksRunInTurn) {
  Batch batch;
  batch.count = 9;
  BlocksInTurn scheduler;
  batch.run_on(scheduler);
  EXPECT_EQ(sorted(batch.done), first(batch.count));
}

TEST(ImagesSideBySide, AFailingNextEndsTheBatchAfterReportingWhatItGave) {
  Batch batch;
  batch.count = 10;
  batch.fail_next_at = 6;
  ThreadPerBlock scheduler;
  EXPECT_THROW(batch.run_on(scheduler), std::runtime_error);
  EXPECT_EQ(sorted(batch.done), first(batch.fail_next_at));
}

TEST(ImagesAsTasks, ReportEveryImageOnceAndRunSeveralAtOnceOnTheLentThreads) {
  Batch batch;
  batch.count = 13;
  batch.lend_threads = true;
  UnusedTeam scheduler;
  batch.run_on(scheduler);
  EXPECT_EQ(sorted(batch.done), first(batch.count));
  EXPECT_TRUE(batch.failed.empty());
  EXPECT_EQ(batch.task_threads.size(), batch.count);
  EXPECT_GT(batch.most_at_once, 1);
  EXPECT_LE(batch.most_at_once, kBlocks);
}

TEST(ImagesAsTasks, HoldNoMoreImagesThanTheLentThreads) {
  Batch batch;
  batch.count = 13;
  batch.lend_threads = true;
  batch.lent_threads = 2;  // fewer than the blocks: a window of 2 + 2 images would fill
  UnusedTeam scheduler;
  batch.run_on(scheduler);
  EXPECT_EQ(sorted(batch.done), first(batch.count));
  EXPECT_LE(batch.most_at_once, 2);
}

TEST(ImagesAsTasks, AnImageWhoseTaskCannotBeQueuedFailsAloneAndTheBatchGoesOn) {
  Batch batch;
  batch.count = 9;
  batch.lend_threads = true;
  batch.unqueued = 4;
  UnusedTeam scheduler;
  batch.run_on(scheduler);
  std::vector<std::size_t> others = first(batch.count);
  others.erase(others.begin() + 4);
  EXPECT_EQ(sorted(batch.done), others);
  EXPECT_EQ(batch.failed, std::vector<std::size_t>{4});
}

TEST(ImagesAsTasks, ASmallerBatchStillRunsOverEveryBlock) {
  Batch batch;
  batch.count = kBlocks - 1;
  batch.lend_threads = true;
  ThreadPerBlock scheduler;
  batch.run_on(scheduler);
  EXPECT_EQ(batch.done, first(batch.count));
  EXPECT_TRUE(batch.task_threads.empty());
}

TEST(ImagesAsTasks, AFailingNextEndsTheBatchAfterReportingWhatItGave) {
  Batch batch;
  batch.count = 10;
  batch.fail_next_at = 6;
  batch.lend_threads = true;
  UnusedTeam scheduler;
  EXPECT_THROW(batch.run_on(scheduler), std::runtime_error);
  EXPECT_EQ(sorted(batch.done), first(batch.fail_next_at));
}

}  // namespace
}  // namespace parfilter
