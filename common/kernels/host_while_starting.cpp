// The host's share of a device backend's batch while its device starts. The first input runs
// over every lent thread and times the chain; if one image per thread then stays within a
// round's budget (light ops), the next inputs run in rounds of one image per thread, side by
// side, as the CPU backends run a batch; otherwise (heavy ops) each runs over every thread,
// and the host stops after an image over its budget, leaving the rest to the device. Results
// are reported as each is done, so within a round in any order.
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

/// A round of images side by side lasts about as long as one image on one thread, at most the
/// first image's time over every thread times the threads (an estimate several times too high:
/// that first image also maps its output's pages). Rounds are run only where that bound stays
/// within a GPU's start (about 300 ms), so that a device ready meanwhile waits for the round in
/// progress at most about as long as it took to start; a light op's round takes a few tens of
/// milliseconds.
constexpr double kRoundBudgetMs = 300.0;
/// Over every thread, the host takes no more inputs once one took longer than this: an image
/// the device would finish far sooner (a heavy op) must not hold back its take-over as long.
constexpr double kHostImageBudgetMs = 50.0;

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

bool run_on_host_while_starting(const OpChain& chain, const BatchCallbacks& callbacks,
                                const std::function<bool()>& device_ready) {
  if (!callbacks.host_parallel_for || device_ready()) return false;
  const int threads = std::max(callbacks.host_threads, 1);
  HostShare share(chain);
  ParallelForScheduler every_thread(callbacks.host_parallel_for, threads);
  std::optional<BatchInput> first = callbacks.next();
  if (!first) return true;
  BatchItem calibration{std::move(*first), {}, {}, {}};
  const double first_ms = share.run(every_thread, calibration);
  report_item(callbacks, calibration);

  if (first_ms * threads <= kRoundBudgetMs) {
    while (!device_ready()) {
      std::vector<BatchItem> round;
      while (round.size() < static_cast<std::size_t>(threads)) {
        std::optional<BatchInput> input = callbacks.next();
        if (!input) break;
        round.push_back({std::move(*input), {}, {}, {}});
      }
      if (round.empty()) return true;
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
    }
    return false;
  }
  double last_ms = first_ms;
  while (last_ms < kHostImageBudgetMs && !device_ready()) {
    std::optional<BatchInput> input = callbacks.next();
    if (!input) return true;
    BatchItem item{std::move(*input), {}, {}, {}};
    last_ms = share.run(every_thread, item);
    report_item(callbacks, item);
  }
  return false;
}

BackgroundStart::~BackgroundStart() {
  if (has_begun_) done_.wait();
}

void BackgroundStart::begin() {
  std::call_once(begun_, [this] {
    done_ = std::async(std::launch::async, start_);
    has_begun_ = true;
  });
}

bool BackgroundStart::ended() {
  begin();
  return done_.wait_for(std::chrono::seconds(0)) == std::future_status::ready;
}

bool BackgroundStart::still_running() const {
  return has_begun_ && !used_ &&
         done_.wait_for(std::chrono::seconds(0)) != std::future_status::ready;
}

}  // namespace parfilter
