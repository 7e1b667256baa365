// The device backends' in-flight ring (parfilter/in_flight_ring.hpp), with a fake device that
// records what each slot does: image i runs on slot i mod depth once that slot's image before
// it has finished, results come back in input order, an image that may not overlap runs alone
// after the ones in flight, a failure is that input's alone, and a batch that unwinds waits for
// its slots before it frees them.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstddef>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "parfilter/in_flight_ring.hpp"

namespace parfilter {
namespace {

constexpr std::size_t kDepth = 3;
constexpr int kSide = 2;

/// Each image's value is its index; start() fails on `fail_start`, finish() on `fail_finish`;
/// 16-bit inputs run alone.
struct FakeDevice {
  struct Pending {
    std::size_t slot = 0;
    int value = 0;
  };
  std::vector<std::string> log;
  std::vector<std::optional<int>> in_slot = std::vector<std::optional<int>>(kDepth);
  std::optional<std::size_t> fail_start;
  std::optional<std::size_t> fail_finish;

  Pending start(std::size_t slot, BatchInput& input) {
    if (in_slot[slot]) throw std::logic_error("slot started while in flight");
    if (fail_start == input.index) throw std::runtime_error("start failed");
    log.push_back("start " + std::to_string(input.index) + " on " + std::to_string(slot));
    in_slot[slot] = static_cast<int>(input.index);
    return {slot, static_cast<int>(input.index)};
  }
  OpOutput finish(std::size_t slot, Pending& pending, StageTimes* times) {
    in_slot[slot].reset();
    log.push_back("finish " + std::to_string(pending.value));
    times->compute_ms = 1.0;
    if (fail_finish == static_cast<std::size_t>(pending.value)) {
      throw std::runtime_error("finish failed");
    }
    OpOutput output;
    output.threshold = pending.value;
    return output;
  }
  static bool overlaps(const BatchInput& input) { return input.image.depth() == Depth::u8; }
  OpOutput run_alone(std::size_t slot, BatchInput& input, StageTimes* /*times*/) {
    for (const auto& held : in_slot) {
      if (held) throw std::logic_error("ran alone beside an image in flight");
    }
    log.push_back("alone " + std::to_string(input.index) + " on " + std::to_string(slot));
    OpOutput output;
    output.threshold = static_cast<int>(input.index);
    return output;
  }
  void abandon(std::size_t slot) noexcept {
    log.push_back("abandon " + std::to_string(slot));
    in_slot[slot].reset();
  }
};

/// A batch of `depths` (one per input), recording what the callbacks saw.
struct Batch {
  explicit Batch(std::vector<Depth> input_depths) : depths(std::move(input_depths)) {}
  std::vector<Depth> depths;
  std::optional<std::size_t> next_throws_at;
  std::size_t taken = 0;
  std::vector<int> done;
  std::vector<std::size_t> failed;

  [[nodiscard]] BatchCallbacks callbacks() {
    BatchCallbacks c;
    c.next = [this]() -> std::optional<BatchInput> {
      if (next_throws_at == taken) throw std::runtime_error("next failed");
      if (taken == depths.size()) return std::nullopt;
      const std::size_t index = taken++;
      return BatchInput{index, Image(kSide, kSide, 1, depths[index])};
    };
    c.done = [this](std::size_t index, OpOutput&& output, const StageTimes& /*times*/) {
      EXPECT_EQ(output.threshold, static_cast<int>(index));
      done.push_back(static_cast<int>(index));
    };
    c.failed = [this](std::size_t index, std::exception_ptr /*failure*/) {
      failed.push_back(index);
    };
    return c;
  }
};

TEST(InFlightRing, ImagesRunRoundTheSlotsAndReturnInOrder) {
  FakeDevice device;
  Batch batch(std::vector<Depth>(5, Depth::u8));
  run_in_flight(device, kDepth, batch.callbacks());
  EXPECT_EQ(batch.done, (std::vector<int>{0, 1, 2, 3, 4}));
  EXPECT_EQ(device.log,
            (std::vector<std::string>{"start 0 on 0", "start 1 on 1", "start 2 on 2", "finish 0",
                                      "start 3 on 0", "finish 1", "start 4 on 1", "finish 2",
                                      "finish 3", "finish 4"}));
}

TEST(InFlightRing, AnImageThatMayNotOverlapRunsAloneInItsTurn) {
  FakeDevice device;
  Batch batch({Depth::u8, Depth::u8, Depth::u16, Depth::u8});
  run_in_flight(device, kDepth, batch.callbacks());
  EXPECT_EQ(batch.done, (std::vector<int>{0, 1, 2, 3}));
}

TEST(InFlightRing, AFailureIsItsInputsAlone) {
  FakeDevice device;
  device.fail_start = 1;
  device.fail_finish = 3;
  Batch batch(std::vector<Depth>(5, Depth::u8));
  run_in_flight(device, kDepth, batch.callbacks());
  EXPECT_EQ(batch.done, (std::vector<int>{0, 2, 4}));
  EXPECT_EQ(batch.failed, (std::vector<std::size_t>{1, 3}));
  // The slot whose start failed waited for what it had enqueued.
  EXPECT_NE(std::find(device.log.begin(), device.log.end(), "abandon 1"), device.log.end());
}

TEST(InFlightRing, AnUnwindingBatchWaitsForItsSlots) {
  FakeDevice device;
  Batch batch(std::vector<Depth>(5, Depth::u8));
  batch.next_throws_at = 2;
  EXPECT_THROW(run_in_flight(device, kDepth, batch.callbacks()), std::runtime_error);
  EXPECT_EQ(device.log,
            (std::vector<std::string>{"start 0 on 0", "start 1 on 1", "abandon 0", "abandon 1"}));
}

}  // namespace
}  // namespace parfilter
