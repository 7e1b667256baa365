// The host's share of a device backend's batch while its device starts. The first input runs
// over every lent thread and times the chain; if one image per thread then stays within a
// round's budget (light ops), the next inputs run in rounds of one image per thread, side by
// side, as the CPU backends run a batch, and the device starts only if the host's pace leaves
// it enough of the batch; otherwise (heavy ops) the device starts at once, each image runs
// over every thread, and the host stops when its next image would outlast the device's start.
// Results are reported as each is done, so within a round in any order.
#include "host_while_starting.hpp"

#include <algorithm>
#include <chrono>
#include <memory>
#include <mutex>
#include <optional>
#include <utility>
#include <vector>

#include "buffer_pool.hpp"
#include "cpu_backend.hpp"
#include "cpu_batch.hpp"

namespace parfilter {
namespace {

/// A GPU's start as measured on the GPU machine (CUDA's driver and context, or the OpenCL
/// loader's drivers: 0.25-0.4 s), and the same plus the teardown a process that used the device
/// waits for at its exit (about 0.1 s).
constexpr double kDeviceStartMs = 300.0;
constexpr double kDeviceStartAndTeardownMs = 400.0;
/// A round of images side by side lasts about as long as one image on one thread, at most the
/// first image's time over every thread times the threads (an estimate several times too high:
/// that first image also maps its output's pages). Rounds are run only where that bound stays
/// within a GPU's start, so that a device ready meanwhile waits for the round in progress at
/// most about as long as it took to start; a light op's round takes a few tens of milliseconds.
constexpr double kRoundBudgetMs = kDeviceStartMs;
/// A first image still running over every thread after this long marks a heavy chain, whose
/// device is then worth starting at once (a light chain's first image takes a few ms on 16
/// cores: gaussian on 4096 x 2304 RGB about 5 ms).
constexpr double kFirstImageDeadlineMs = 20.0;
/// Over every thread, after an image that took longer than this, the host takes another only
/// while it would end before the device is likely ready: an image the device would finish far
/// sooner must not hold back its take-over.
constexpr double kHostImageBudgetMs = 50.0;

using Clock = std::chrono::steady_clock;

double ms_since(Clock::time_point start) {
  return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

Clock::duration ms_duration(double ms) {
  return std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double, std::milli>(ms));
}

/// The chain on one input, with the CPU backends' kernels: each op's default CPU variant.
class HostShare {
 public:
  explicit HostShare(const OpChain& chain) : chain_(chain) {
    for (OpStep& step : chain_) step.params.variant.clear();  // the device's variant names
  }

  /// Runs `item` on `scheduler`; returns its compute time.
  double run(RowScheduler& scheduler, BatchItem& item) {
    run_item(scheduler, item, [&](RowScheduler& s, const ConstImageView& input, StageTimes& t) {
      return run_cpu_chain(s, chain_, input, t, outputs_);
    });
    item.times.on_host = true;
    return item.times.compute_ms;
  }

 private:
  OpChain chain_;
  std::shared_ptr<BufferPool> outputs_ = make_buffer_pool();
};

}  // namespace

bool device_worth_starting(std::size_t size_hint, std::size_t taken, double host_ms_per_image) {
  if (size_hint == 0) return true;
  const std::size_t remaining = size_hint > taken ? size_hint - taken : 0;
  return static_cast<double>(remaining) * host_ms_per_image > kDeviceStartAndTeardownMs;
}

bool run_on_host_while_starting(const OpChain& chain, const BatchCallbacks& callbacks,
                                DeviceStart& device) {
  if (!callbacks.host_parallel_for || device.ended()) {
    device.begin();
    return false;
  }
  const int threads = std::max(callbacks.host_threads, 1);
  HostShare share(chain);
  ParallelForScheduler every_thread(callbacks.host_parallel_for, threads);
  std::optional<BatchInput> first = callbacks.next();
  if (!first) return true;
  std::size_t taken = 1;
  // A heavy chain's device starts while its first image still runs.
  device.begin_after(kFirstImageDeadlineMs);
  const auto calibration_start = Clock::now();
  BatchItem calibration{std::move(*first), {}, {}, {}};
  const double first_ms = share.run(every_thread, calibration);
  report_item(callbacks, calibration);

  if (first_ms * threads <= kRoundBudgetMs) {
    device.hold();
    const auto rounds_start = Clock::now();
    std::size_t done_in_rounds = 0;
    while (!device.ended()) {
      std::vector<BatchItem> round;
      while (round.size() < static_cast<std::size_t>(threads)) {
        std::optional<BatchInput> input = callbacks.next();
        if (!input) break;
        round.push_back({std::move(*input), {}, {}, {}});
      }
      if (round.empty()) return true;
      taken += round.size();
      // Each image is reported as soon as it is done, so its encode starts at once; the
      // callbacks are called one at a time.
      std::mutex reporting;
      callbacks.host_parallel_for(round.size(), [&](std::size_t i) {
        CallingThreadScheduler one_thread;
        share.run(one_thread, round[i]);
        const std::scoped_lock lock(reporting);
        report_item(callbacks, round[i]);
      });
      if (round.size() < static_cast<std::size_t>(threads)) return true;  // next gave nullopt
      done_in_rounds += round.size();
      // The pace includes the waits for decodes: the whole pipeline's, not the kernels'.
      const double ms_per_image = ms_since(rounds_start) / static_cast<double>(done_in_rounds);
      if (device_worth_starting(callbacks.size_hint, taken, ms_per_image)) device.begin();
    }
    return false;
  }
  device.begin();
  const auto device_begun =
      calibration_start + ms_duration(std::min(first_ms, kFirstImageDeadlineMs));
  double last_ms = first_ms;
  while (!device.ended() &&
         (last_ms < kHostImageBudgetMs || ms_since(device_begun) + last_ms <= kDeviceStartMs)) {
    std::optional<BatchInput> input = callbacks.next();
    if (!input) return true;
    BatchItem item{std::move(*input), {}, {}, {}};
    last_ms = share.run(every_thread, item);
    report_item(callbacks, item);
  }
  return false;
}

BackgroundStart::~BackgroundStart() {
  {
    const std::scoped_lock lock(mutex_);
    called_off_ = true;
  }
  wake_.notify_all();
  if (has_launched_) done_.wait();
}

void BackgroundStart::schedule(Clock::time_point deadline) {
  {
    const std::scoped_lock lock(mutex_);
    deadline_ = std::min(deadline_, deadline);
  }
  wake_.notify_all();
  std::call_once(launched_, [this] {
    done_ = std::async(std::launch::async, [this] { wait_then_start(); });
    has_launched_ = true;
  });
}

void BackgroundStart::begin() {
  {
    const std::scoped_lock lock(mutex_);
    now_ = true;
  }
  schedule(Clock::now());
}

void BackgroundStart::begin_after(double delay_ms) {
  schedule(Clock::now() + ms_duration(delay_ms));
}

void BackgroundStart::hold() {
  const std::scoped_lock lock(mutex_);
  if (!now_) deadline_ = Clock::time_point::max();
}

void BackgroundStart::wait_then_start() {
  {
    std::unique_lock lock(mutex_);
    for (;;) {
      if (called_off_) return;
      if (now_ || Clock::now() >= deadline_) break;
      if (deadline_ == Clock::time_point::max()) {
        wake_.wait(lock);
      } else {
        wake_.wait_until(lock, deadline_);
      }
    }
    starting_ = true;
  }
  start_();
}

bool BackgroundStart::ended() {
  return has_launched_ && starting_ &&
         done_.wait_for(std::chrono::seconds(0)) == std::future_status::ready;
}

void BackgroundStart::wait() {
  begin();
  done_.wait();
}

bool BackgroundStart::still_running() const {
  return has_launched_ && starting_ && !used_ &&
         done_.wait_for(std::chrono::seconds(0)) != std::future_status::ready;
}

}  // namespace parfilter
