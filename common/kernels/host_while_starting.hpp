// A device backend's batch while its device starts: the inputs that are ready run on the
// host's cores, through the shared row kernels, instead of waiting for a GPU driver's start
// (about 0.3 s, longer than a whole batch of light images on 16 cores); a batch the host
// finishes sooner than a device would start never starts it.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <functional>
#include <future>
#include <mutex>

#include "parfilter/backend.hpp"

namespace parfilter {

/// What the host's share needs of a device's start (BackgroundStart; a test's fake).
class DeviceStart {
 public:
  DeviceStart() = default;
  DeviceStart(const DeviceStart&) = delete;
  DeviceStart& operator=(const DeviceStart&) = delete;
  virtual ~DeviceStart() = default;
  /// Begins the start now, if not begun yet.
  virtual void begin() = 0;
  /// Begins the start once `delay_ms` have passed, unless hold() withdraws it first.
  virtual void begin_after(double delay_ms) = 0;
  /// Withdraws begin_after's deadline, if the start has not begun (begin() is never undone).
  virtual void hold() = 0;
  /// Whether the start has run to its end, well or not (false while it has not begun).
  [[nodiscard]] virtual bool ended() = 0;
};

/// Whether a light batch's device is worth starting: the host, at its measured pace of
/// `host_ms_per_image`, would still be busy with the batch's remaining inputs (`size_hint`
/// less `taken`) for longer than a device takes to start and to be torn down at the exit.
/// A batch of unknown size (size_hint 0) starts it.
[[nodiscard]] bool device_worth_starting(std::size_t size_hint, std::size_t taken,
                                         double host_ms_per_image);

/// Takes inputs from callbacks.next and runs `chain` on each with the CPU backends' kernels
/// (each op's default CPU variant: every variant gives the same bytes), on the threads lent by
/// callbacks.host_parallel_for and host_submit, and begins the device's start where it pays,
/// until the start has ended.
/// - The chain is first timed on the first input's top rows, on one thread; the device's start
///   begins if that takes over 20 ms (a heavy chain).
/// - A light chain (a whole image on one thread estimated within a GPU's start) runs side by
///   side, one image per host_submit task (holding fewer than host_threads inputs), and the
///   start begins once device_worth_starting says so, judged by the pace of the first
///   host_threads images: a short light batch never starts the device.
/// - A heavy chain starts the device at once and runs one image at a time over every thread,
///   while the next image would end before the device is likely ready (the device is then
///   left the rest, rather than wait for the host's image).
/// Results go to callbacks.done with StageTimes::on_host set, failures to callbacks.failed,
/// each as soon as it is done (in any order, one call at a time, from the calling thread).
/// Returns true when the batch ended on the host (callbacks.next gave nullopt); false when the
/// device should run the rest (its start then begun), at once when the caller lent no threads
/// (host_parallel_for or host_submit empty).
bool run_on_host_while_starting(const OpChain& chain, const BatchCallbacks& callbacks,
                                DeviceStart& device);

/// A device's start (its driver and context) run once on another thread, so that it overlaps
/// the reading of the inputs, or the host's own work on a batch. Declare it after every member
/// the start uses: its destructor waits for a start under way (one still waiting for its
/// deadline is called off). A failure in the start is the start's to keep, for the thread
/// that needs the device to meet again.
class BackgroundStart final : public DeviceStart {
 public:
  explicit BackgroundStart(std::function<void()> start) : start_(std::move(start)) {}
  BackgroundStart(const BackgroundStart&) = delete;
  BackgroundStart& operator=(const BackgroundStart&) = delete;
  ~BackgroundStart() override;

  void begin() override;
  void begin_after(double delay_ms) override;
  void hold() override;
  [[nodiscard]] bool ended() override;
  /// Begins the start if need be and waits for its end (a run about to use the device).
  void wait();
  /// A run needs the device from now on (the start then no longer runs alone).
  void mark_used() { used_ = true; }
  /// Whether the start is under way and no run has needed the device yet: a process that is
  /// done may exit without waiting for it (Backend::start_still_running).
  [[nodiscard]] bool still_running() const;

 private:
  using Clock = std::chrono::steady_clock;
  /// Sets the deadline (earlier only) and launches the start's thread, the first time.
  void schedule(Clock::time_point deadline);
  void wait_then_start();

  std::function<void()> start_;
  std::mutex mutex_;
  std::condition_variable wake_;
  Clock::time_point deadline_ = Clock::time_point::max();  ///< under mutex_
  bool now_ = false;                                       ///< begin() was called; under mutex_
  bool called_off_ = false;                                ///< under mutex_
  std::once_flag launched_;
  std::future<void> done_;
  std::atomic<bool> has_launched_{false};  ///< done_ is set: still_running may read it
  std::atomic<bool> starting_{false};      ///< start_ was called
  std::atomic<bool> used_{false};
};

}  // namespace parfilter
