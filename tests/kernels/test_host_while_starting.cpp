// A device backend's batch while its device starts (host_while_starting.hpp): the inputs taken
// before the device is ready run on the host's cores, over the threads the caller lends (light
// ones side by side, one task each), each reported once, and
// give the reference's bytes whatever device variant the chain names; once the device is
// ready, or when no threads are lent, the rest is left to the device. A light batch the host
// finishes sooner than a device starts never starts it. BackgroundStart runs the start once,
// on its own thread, now or at a deadline that can be withdrawn.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <functional>
#include <future>
#include <optional>
#include <thread>
#include <utility>
#include <vector>

#include "host_while_starting.hpp"
#include "parfilter/image_io.hpp"
#include "reference.hpp"
#include "support/test_images.hpp"

namespace parfilter {
namespace {

constexpr int kLentThreads = 3;

/// Shapes cycled through the batch: odd sizes, a row, a column, one smaller than 5x5.
constexpr int kShapes[][3] = {{37, 23, 3}, {1, 1, 1}, {64, 1, 4}, {1, 19, 3}, {4, 3, 1}};

struct HostBatch {
  explicit HostBatch(std::size_t count) {
    for (std::size_t i = 0; i < count; ++i) {
      const auto& shape = kShapes[i % std::size(kShapes)];
      inputs.push_back(
          test::synthetic_image(shape[0], shape[1], shape[2], static_cast<std::uint32_t>(i + 7)));
    }
  }

  BatchCallbacks callbacks(bool lend_threads) {
    BatchCallbacks callbacks;
    callbacks.next = [this]() -> std::optional<BatchInput> {
      if (taken >= inputs.size()) return std::nullopt;
      const std::size_t index = taken++;
      return BatchInput{index, Image(inputs[index])};
    };
    callbacks.done = [this](std::size_t index, OpOutput&& output, const StageTimes& times) {
      EXPECT_TRUE(times.on_host) << "image " << index;
      done.push_back(index);
      outputs.push_back(std::move(output));
    };
    callbacks.failed = [](std::size_t index, std::exception_ptr) {
      ADD_FAILURE() << "image " << index << " failed";
    };
    if (lend_threads) {
      callbacks.host_parallel_for = parallel_for_threads(kLentThreads);
      callbacks.host_submit = [this](std::function<void()> task) {
        task_threads.emplace_back(std::move(task));  // asked from the batch's thread only
      };
      callbacks.host_threads = kLentThreads;
    }
    return callbacks;
  }

  std::vector<Image> inputs;
  std::size_t taken = 0;
  std::vector<std::size_t> done;
  std::vector<OpOutput> outputs;
  std::vector<std::jthread> task_threads;  // last: joined first
};

/// A device whose start ends, once begun, when `ready` says so.
class FakeStart final : public DeviceStart {
 public:
  explicit FakeStart(std::function<bool()> ready) : ready_(std::move(ready)) {}
  void begin() override { begun = true; }
  void begin_after(double /*delay_ms*/) override { armed = true; }
  void hold() override { armed = false; }
  bool ended() override { return begun && ready_(); }

  bool begun = false;
  bool armed = false;  ///< begin_after's deadline is set and not withdrawn

 private:
  std::function<bool()> ready_;
};

/// As many images as lent threads done side by side before the device's start is weighed,
/// fewer than lent threads still running meanwhile: each taken image reported once, in any
/// order, and the rest left to the device.
void expect_taken_up_to_the_device(HostBatch& batch) {
  EXPECT_GE(batch.taken, static_cast<std::size_t>(kLentThreads));
  EXPECT_LT(batch.taken, 2U * kLentThreads);
  EXPECT_LT(batch.taken, batch.inputs.size());
  std::sort(batch.done.begin(), batch.done.end());
  ASSERT_EQ(batch.done.size(), batch.taken);
  for (std::size_t i = 0; i < batch.done.size(); ++i) EXPECT_EQ(batch.done[i], i);
}

OpChain device_chain() {
  OpChain chain;
  chain.push_back({Op::gray, OpParams{}});
  OpParams sobel;
  sobel.variant = "registers";  // a device's variant: the host runs its own default
  chain.push_back({Op::sobel, sobel});
  return chain;
}

TEST(HostWhileStarting, ADeviceNeverReadyLeavesTheWholeBatchToTheHost) {
  HostBatch batch(7);
  const OpChain chain = device_chain();
  FakeStart never([] { return false; });
  EXPECT_TRUE(run_on_host_while_starting(chain, batch.callbacks(true), never));
  ASSERT_EQ(batch.done.size(), batch.inputs.size());
  OpChain plain = chain;
  plain[1].params.variant.clear();
  std::vector<bool> seen(batch.inputs.size(), false);
  for (std::size_t k = 0; k < batch.done.size(); ++k) {
    const std::size_t i = batch.done[k];
    ASSERT_LT(i, seen.size());
    EXPECT_FALSE(seen[i]) << "image " << i << " reported twice";
    seen[i] = true;
    const OpOutput expected = reference::run_chain(plain, batch.inputs[i]);
    EXPECT_TRUE(test::same_image(batch.outputs[k].image, expected.image)) << "image " << i;
  }
}

TEST(HostWhileStarting, TheDeviceTakesOverOnceReady) {
  HostBatch batch(9);
  // Ready as soon as it begins. The batch's size is unknown, so the device starts once as
  // many images as lent threads are done side by side; the images in progress then finish,
  // and the rest is the device's to take.
  FakeStart ready_once_begun([] { return true; });
  EXPECT_FALSE(run_on_host_while_starting(device_chain(), batch.callbacks(true), ready_once_begun));
  EXPECT_TRUE(ready_once_begun.begun);
  expect_taken_up_to_the_device(batch);
}

TEST(HostWhileStarting, NothingRunsOnTheHostWithoutLentThreadsOrOnceTheDeviceIsReady) {
  HostBatch unlent(3);
  FakeStart never([] { return false; });
  EXPECT_FALSE(run_on_host_while_starting(device_chain(), unlent.callbacks(false), never));
  EXPECT_EQ(unlent.taken, 0U);
  EXPECT_TRUE(never.begun);
  HostBatch ready(3);
  FakeStart started([] { return true; });
  started.begin();
  EXPECT_FALSE(run_on_host_while_starting(device_chain(), ready.callbacks(true), started));
  EXPECT_EQ(ready.taken, 0U);
}

TEST(HostWhileStarting, AShortLightBatchNeverStartsTheDevice) {
  HostBatch batch(7);
  BatchCallbacks callbacks = batch.callbacks(true);
  callbacks.size_hint = batch.inputs.size();
  FakeStart start([] { return true; });
  EXPECT_TRUE(run_on_host_while_starting(device_chain(), callbacks, start));
  EXPECT_EQ(batch.done.size(), batch.inputs.size());
  EXPECT_FALSE(start.begun);
  EXPECT_FALSE(start.armed);  // the probe's deadline is withdrawn: the chain is light
}

TEST(HostWhileStarting, ALongLightBatchStartsTheDeviceOnceItsPaceIsKnown) {
  HostBatch batch(9);
  BatchCallbacks callbacks = batch.callbacks(true);
  callbacks.size_hint = std::size_t{1} << 40;  // far more than the host's pace can finish
  FakeStart start([] { return true; });        // ready as soon as begun
  EXPECT_FALSE(run_on_host_while_starting(device_chain(), callbacks, start));
  EXPECT_TRUE(start.begun);
  expect_taken_up_to_the_device(batch);
}

TEST(HostWhileStarting, TheDeviceIsWorthStartingWhenTheHostWouldOutlastItsStart) {
  // The start and the teardown take 400 ms: 90 images left at 5 ms each outlast it, at 4 ms
  // they do not; a batch of unknown size (hint 0) always starts the device.
  EXPECT_TRUE(device_worth_starting(100, 10, 5.0));
  EXPECT_FALSE(device_worth_starting(100, 10, 4.0));
  EXPECT_FALSE(device_worth_starting(16, 16, 1000.0));
  EXPECT_FALSE(device_worth_starting(16, 20, 1000.0));  // more taken than hinted
  EXPECT_TRUE(device_worth_starting(0, 5, 0.0));
}

using namespace std::chrono_literals;

TEST(BackgroundStart, BeginRunsTheStartOnceOnItsOwnThread) {
  std::atomic<int> runs{0};
  std::thread::id ran_on;
  BackgroundStart start([&] {
    ran_on = std::this_thread::get_id();
    ++runs;
  });
  EXPECT_FALSE(start.ended());  // not begun
  start.begin();
  start.begin();
  start.wait();
  EXPECT_TRUE(start.ended());
  EXPECT_EQ(runs.load(), 1);
  EXPECT_NE(ran_on, std::this_thread::get_id());
}

TEST(BackgroundStart, ADeadlineBeginsTheStartUnlessHeld) {
  std::atomic<int> runs{0};
  BackgroundStart held([&] { ++runs; });
  held.begin_after(60'000.0);
  held.hold();
  std::this_thread::sleep_for(20ms);
  EXPECT_FALSE(held.ended());
  EXPECT_EQ(runs.load(), 0);
  held.begin();  // a hold never outlasts begin
  held.wait();
  EXPECT_EQ(runs.load(), 1);

  BackgroundStart timed([&] { ++runs; });
  timed.begin_after(1.0);
  const auto give_up = std::chrono::steady_clock::now() + 10s;
  while (!timed.ended() && std::chrono::steady_clock::now() < give_up) {
    std::this_thread::sleep_for(1ms);
  }
  EXPECT_TRUE(timed.ended());
  EXPECT_EQ(runs.load(), 2);
}

TEST(BackgroundStart, AStartNotBegunIsCalledOffAtTheEnd) {
  std::atomic<int> runs{0};
  {
    BackgroundStart waiting([&] { ++runs; });
    waiting.begin_after(60'000.0);
  }  // would wait a minute if the destructor waited for the deadline
  EXPECT_EQ(runs.load(), 0);
}

TEST(BackgroundStart, StillRunningUntilARunNeedsTheDevice) {
  std::promise<void> release;
  std::shared_future<void> released = release.get_future().share();
  BackgroundStart start([released] { released.wait(); });
  EXPECT_FALSE(start.still_running());
  start.begin();
  const auto give_up = std::chrono::steady_clock::now() + 10s;
  while (!start.still_running() && std::chrono::steady_clock::now() < give_up) {
    std::this_thread::sleep_for(1ms);
  }
  EXPECT_TRUE(start.still_running());
  start.mark_used();
  EXPECT_FALSE(start.still_running());
  release.set_value();
  start.wait();
  EXPECT_TRUE(start.ended());
}

}  // namespace
}  // namespace parfilter
