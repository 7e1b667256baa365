// The host's share of a device backend's batch while its device starts. The first input runs
// over every lent thread and times the chain; if one image per thread then stays within a
// GPU's start (light ops), the next inputs run side by side, one task each on the caller's
// workers, and the device starts only if the host's pace leaves it enough of the batch;
// otherwise (heavy ops) the device starts at once, each image runs over every thread, and the
// host stops when its next image would outlast the device's start. Results are reported as
// each is done, so side by side in any order.
#include "host_while_starting.hpp"

#include <algorithm>
#include <chrono>
#include <condition_variable>
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
/// Images side by side take about as long as one image on one thread each, at most the first
/// image's time over every thread times the threads (an estimate several times too high: that
/// first image also maps its output's pages). They run side by side only where that bound
/// stays within a GPU's start, so that a device ready meanwhile waits for the images in
/// progress at most about as long as it took to start; a light op's take a few tens of
/// milliseconds.
constexpr double kSideBySideBudgetMs = kDeviceStartMs;
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

/// Light images side by side, one task each on the caller's queue (BatchCallbacks::
/// host_submit), each taken as soon as it is decoded. At most `most_held` are held (running,
/// or done and not yet reported), and the batch's thread reports the finished ones before it
/// takes another: the callbacks stay on that thread, one call at a time, and the workers
/// decode and encode between images as they would around a CPU backend's batch.
class HostTasks {
 public:
  HostTasks(HostShare& share, const BatchCallbacks& callbacks, std::size_t most_held)
      : share_(share), callbacks_(callbacks), most_held_(most_held) {}
  HostTasks(const HostTasks&) = delete;
  HostTasks& operator=(const HostTasks&) = delete;
  /// Waits for the tasks still running (a batch ended by a throwing callback).
  ~HostTasks() {
    std::unique_lock lock(mutex_);
    changed_.wait(lock, [&] { return running_ == 0; });
  }

  /// Reports the finished images until fewer than most_held are running.
  void report_and_make_room() {
    report_until([&] { return running_ < most_held_; });
  }
  /// Reports every image, waiting for those still running.
  void report_all() {
    report_until([&] { return running_ == 0; });
  }

  void submit(BatchInput input) {
    auto item = std::make_shared<BatchItem>(BatchItem{std::move(input), {}, {}, {}});
    {
      const std::scoped_lock lock(mutex_);
      ++running_;
    }
    callbacks_.host_submit([this, item] {
      CallingThreadScheduler one_thread;
      share_.run(one_thread, *item);
      const std::scoped_lock lock(mutex_);
      done_.push_back(std::move(*item));
      --running_;
      ++finished_;
      changed_.notify_all();
    });
  }

  /// Images finished so far.
  [[nodiscard]] std::size_t finished() {
    const std::scoped_lock lock(mutex_);
    return finished_;
  }

 private:
  void report_until(const std::function<bool()>& enough) {
    std::unique_lock lock(mutex_);
    for (;;) {
      if (!done_.empty()) {
        std::vector<BatchItem> done;
        done.swap(done_);
        lock.unlock();
        for (BatchItem& item : done) report_item(callbacks_, item);
        lock.lock();
      } else if (enough()) {
        return;
      } else {
        changed_.wait(lock);
      }
    }
  }

  HostShare& share_;
  const BatchCallbacks& callbacks_;
  const std::size_t most_held_;
  std::mutex mutex_;
  std::condition_variable changed_;
  std::vector<BatchItem> done_;  ///< finished, not yet reported
  std::size_t running_ = 0;
  std::size_t finished_ = 0;
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
  std::size_t taken = 1;
  // A heavy chain's device starts while its first image still runs.
  device.begin_after(kFirstImageDeadlineMs);
  const auto calibration_start = Clock::now();
  BatchItem calibration{std::move(*first), {}, {}, {}};
  const double first_ms = share.run(every_thread, calibration);
  report_item(callbacks, calibration);

  if (first_ms * threads <= kSideBySideBudgetMs) {
    device.hold();
    HostTasks tasks(share, callbacks, static_cast<std::size_t>(std::max(threads - 1, 1)));
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
      std::optional<BatchInput> input = callbacks.next();
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
