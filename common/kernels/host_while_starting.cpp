// The host's share of a device backend's batch while its device starts. The chain's cost is
// probed on the first input's top rows; a light chain (an image on one thread within a GPU's
// start) then runs side by side, one task per image on the caller's workers, and the device
// starts only if the host's pace leaves it enough of the batch; a heavy one starts the device
// at once, runs each image over every thread, and stops when its next image would outlast the
// device's start. Results are reported as each is done, so side by side in any order.
#include "host_while_starting.hpp"

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <cstring>
#include <exception>
#include <functional>
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
/// Images side by side take about as long as one image on one thread each. They run side by
/// side only where the probe's estimate of that stays within a GPU's start, so that a device
/// ready meanwhile waits for the images in progress at most about as long as it took to
/// start; a light op's take a few tens of milliseconds.
constexpr double kSideBySideBudgetMs = kDeviceStartMs;
/// The chain's cost is probed on the first image's top rows, on one thread: few enough to
/// take about 1 ms for gaussian on 4096-wide RGB, enough to hold a 31 x 31 window.
constexpr int kProbeRows = 64;
/// A probe still running after this long marks a heavy chain, whose device is then worth
/// starting at once (a light chain's probe takes a few ms).
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

/// The first `rows` rows of `input` as an image of their own.
Image top_rows(const Image& input, int rows) {
  Image top = Image::uninitialized(input.width(), rows, input.channels(), input.depth());
  std::memcpy(top.bytes(), input.bytes(), top.size_bytes());
  return top;
}

/// The chain on one input, with the CPU backends' kernels: each op's default CPU variant.
class HostShare {
 public:
  explicit HostShare(const OpChain& chain) : chain_(chain) {
    for (OpStep& step : chain_) step.params.variant.clear();  // the device's variant names
  }

  /// The chain's time on one thread for a whole image like `input`, estimated from its top
  /// rows run on their own (the result is dropped). A chain that fails there is left to fail
  /// on the whole image, as that image's own failure: its estimate is then 0.
  double estimate_one_thread_ms(const Image& input) {
    const int rows = std::min(input.height(), kProbeRows);
    CallingThreadScheduler one_thread;
    StageTimes times;
    const auto start = Clock::now();
    try {
      if (input.depth() == Depth::u8) {
        const ConstImageView top(input.data(), input.width(), rows, input.channels(),
                                 input.stride(), RowRange{0, rows});
        (void)run_cpu_chain(one_thread, chain_, top, times, outputs_);
      } else {
        (void)run_cpu_chain_16(one_thread, chain_, top_rows(input, rows), times);
      }
    } catch (const std::exception&) {
      return 0.0;
    }
    return ms_since(start) * static_cast<double>(input.height()) / static_cast<double>(rows);
  }

  /// Runs `item` on `scheduler`; returns its compute time.
  double run(RowScheduler& scheduler, BatchItem& item) {
    run_item(scheduler, item, [&](RowScheduler& s, const Image& input, StageTimes& t) {
      return input.depth() == Depth::u8 ? run_cpu_chain(s, chain_, input.view(), t, outputs_)
                                        : run_cpu_chain_16(s, chain_, input, t);
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
  if (!callbacks.host_parallel_for || !callbacks.host_submit || device.ended()) {
    device.begin();
    return false;
  }
  const int threads = std::max(callbacks.host_threads, 1);
  HostShare share(chain);
  ParallelForScheduler every_thread(callbacks.host_parallel_for, threads);
  std::optional<BatchInput> first = callbacks.next();
  if (!first) return true;
  // A heavy chain's device starts while its first rows still run.
  device.begin_after(kFirstImageDeadlineMs);
  const auto probe_start = Clock::now();
  if (share.estimate_one_thread_ms(first->image) <= kSideBySideBudgetMs) {
    device.hold();
    // Light images side by side, one task each, as a CPU backend's batch runs them.
    ImageTasks tasks(
        callbacks,
        [&share](RowScheduler& one_thread, BatchItem& item) { share.run(one_thread, item); },
        static_cast<std::size_t>(std::max(threads - 1, 1)));
    tasks.submit(std::move(*first));
    std::size_t taken = 1;
    const auto side_by_side_start = Clock::now();
    bool begun = false;
    for (;;) {
      tasks.report_and_make_room();
      // The pace includes the waits for decodes: the whole pipeline's, not the kernels'.
      const std::size_t finished = tasks.finished();
      if (!begun && finished >= static_cast<std::size_t>(threads) &&
          device_worth_starting(callbacks.size_hint, taken,
                                ms_since(side_by_side_start) / static_cast<double>(finished))) {
        device.begin();
        begun = true;
      }
      if (device.ended()) break;
      std::optional<BatchInput> input = tasks.take_next();
      if (!input) {
        tasks.report_all();
        return true;
      }
      ++taken;
      tasks.submit(std::move(*input));
    }
    tasks.report_all();
    return false;
  }
  device.begin();
  const auto device_begun =
      probe_start + ms_duration(std::min(ms_since(probe_start), kFirstImageDeadlineMs));
  for (std::optional<BatchInput> input = std::move(first); input; input = callbacks.next()) {
    BatchItem item{std::move(*input), {}, {}, {}};
    const double ms = share.run(every_thread, item);
    report_item(callbacks, item);
    if (device.ended() ||
        (ms >= kHostImageBudgetMs && ms_since(device_begun) + ms > kDeviceStartMs)) {
      return false;
    }
  }
  return true;
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
