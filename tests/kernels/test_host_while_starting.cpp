// A device backend's batch while its device starts (host_while_starting.hpp): the inputs taken
// before the device is ready run on the host's cores, over the threads the caller lends (the
// first over all of them, light ones then one per thread in rounds), each reported once, and
// give the reference's bytes whatever device variant the chain names; once the device is
// ready, or when no threads are lent, the rest is left to the device.
#include <gtest/gtest.h>

#include <algorithm>
#include <optional>
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
      callbacks.host_threads = kLentThreads;
    }
    return callbacks;
  }

  std::vector<Image> inputs;
  std::size_t taken = 0;
  std::vector<std::size_t> done;
  std::vector<OpOutput> outputs;
};

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
  EXPECT_TRUE(run_on_host_while_starting(chain, batch.callbacks(true), [] { return false; }));
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
  // Ready once the first image and the round after it are done: light images run in rounds
  // of one per lent thread, and a round in progress finishes.
  EXPECT_FALSE(run_on_host_while_starting(device_chain(), batch.callbacks(true),
                                          [&] { return batch.done.size() >= 2; }));
  EXPECT_EQ(batch.taken, 1U + kLentThreads);        // the rest is the device's to take
  std::sort(batch.done.begin(), batch.done.end());  // a round's images come in any order
  ASSERT_EQ(batch.done.size(), batch.taken);
  for (std::size_t i = 0; i < batch.done.size(); ++i) EXPECT_EQ(batch.done[i], i);
}

TEST(HostWhileStarting, NothingRunsOnTheHostWithoutLentThreadsOrOnceTheDeviceIsReady) {
  HostBatch unlent(3);
  EXPECT_FALSE(
      run_on_host_while_starting(device_chain(), unlent.callbacks(false), [] { return false; }));
  EXPECT_EQ(unlent.taken, 0U);
  HostBatch ready(3);
  EXPECT_FALSE(
      run_on_host_while_starting(device_chain(), ready.callbacks(true), [] { return true; }));
  EXPECT_EQ(ready.taken, 0U);
}

}  // namespace
}  // namespace parfilter
