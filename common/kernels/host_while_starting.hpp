// A device backend's batch while its device starts: the inputs that are ready run on the
// host's cores, through the shared row kernels, instead of waiting for a GPU driver's start
// (about 0.3 s, longer than a whole batch of light images on 16 cores).
#pragma once

#include <atomic>
#include <functional>
#include <future>
#include <mutex>

#include "parfilter/backend.hpp"

namespace parfilter {

/// Takes inputs from callbacks.next and runs `chain` on each with the CPU backends' kernels
/// (each op's default CPU variant: every variant gives the same bytes), on the threads lent by
/// callbacks.host_parallel_for, until device_ready() says the device can take over. The first
/// input runs over every thread; light ops then run in rounds of one image per thread (holding
/// up to host_threads inputs), heavy ones one at a time over every thread until one takes over
/// 50 ms (the device is then left the rest, rather than wait for the host's next image once it
/// is ready). Results go to callbacks.done with StageTimes::on_host set, failures to
/// callbacks.failed, each as soon as it is done (in any order, one call at a time, from the
/// lent threads too).
/// Returns true when the batch ended on the host (callbacks.next gave nullopt); false when the
/// device should run the rest, or at once when the caller lent no threads
/// (host_parallel_for empty).
bool run_on_host_while_starting(const OpChain& chain, const BatchCallbacks& callbacks,
                                const std::function<bool()>& device_ready);

/// A device's start (its driver and context) run once on another thread, so that it overlaps
/// the reading of the inputs. Declare it after every member the start uses: its destructor
/// waits for a start under way. A failure in the start is the start's to keep, for the thread
/// that needs the device to meet again.
class BackgroundStart {
 public:
  explicit BackgroundStart(std::function<void()> start) : start_(std::move(start)) {}
  BackgroundStart(const BackgroundStart&) = delete;
  BackgroundStart& operator=(const BackgroundStart&) = delete;
  ~BackgroundStart();

  /// Begins the start, the first time only.
  void begin();
  /// Whether the start has ended, well or not (begins it first).
  [[nodiscard]] bool ended();
  /// A run needs the device from now on (the start then no longer runs alone).
  void mark_used() { used_ = true; }
  /// Whether the start is under way and no run has needed the device yet: a process that is
  /// done may exit without waiting for it (Backend::start_still_running).
  [[nodiscard]] bool still_running() const;

 private:
  std::function<void()> start_;
  std::once_flag begun_;
  std::future<void> done_;
  std::atomic<bool> has_begun_{false};  ///< done_ is set: still_running may read it
  std::atomic<bool> used_{false};
};

}  // namespace parfilter
