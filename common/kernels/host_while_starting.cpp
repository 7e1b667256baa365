// The host's share of a device backend's batch while its device starts. The first input runs
// over every lent thread and times the chain; if one image per thread then stays within a
// round's budget (light ops), the next inputs run in rounds of one image per thread, side by
// side, as the CPU backends run a batch; otherwise (heavy ops) each runs over every thread,
// and the host stops after an image over its budget, leaving the rest to the device. Results
// are reported as each is done, so within a round in any order.
#include "host_while_starting.hpp"

#include <algorithm>
#include <exception>
#include <memory>
#include <mutex>
#include <optional>
#include <utility>
#include <vector>

#include "buffer_pool.hpp"
#include "cpu_backend.hpp"

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

/// One input and what became of it.
struct HostItem {
  BatchInput input;
  OpOutput output;
  StageTimes times;
  std::exception_ptr failure;
};

class HostShare {
 public:
  HostShare(const OpChain& chain, const BatchCallbacks& callbacks)
      : chain_(chain), callbacks_(callbacks) {
    for (OpStep& step : chain_) step.params.variant.clear();  // the device's variant names
  }

  /// Runs `item` on `scheduler`; returns its compute time.
  double run(RowScheduler& scheduler, HostItem& item) {
    const auto start = StageClock::now();
    try {
      OpOutput output;
      for (std::size_t i = 0; i < chain_.size(); ++i) {
        const ConstImageView input =
            i == 0 ? ConstImageView(item.input.image.view()) : ConstImageView(output.image.view());
        output = run_cpu_op(scheduler, chain_[i].op, input, chain_[i].params, outputs_);
      }
      item.output = std::move(output);
    } catch (...) {
      item.failure = std::current_exception();
    }
    item.input.image = Image{};  // its memory back before the encode
    item.times.compute_ms = elapsed_ms(start);
    item.times.on_host = true;
    return item.times.compute_ms;
  }

  void report(HostItem& item) const {
    if (item.failure) {
      callbacks_.failed(item.input.index, item.failure);
    } else {
      callbacks_.done(item.input.index, std::move(item.output), item.times);
    }
  }

 private:
  OpChain chain_;
  const BatchCallbacks& callbacks_;
  std::shared_ptr<BufferPool> outputs_ = make_buffer_pool();
};

}  // namespace

bool run_on_host_while_starting(const OpChain& chain, const BatchCallbacks& callbacks,
                                const std::function<bool()>& device_ready) {
  if (!callbacks.host_parallel_for || device_ready()) return false;
  const int threads = std::max(callbacks.host_threads, 1);
  HostShare share(chain, callbacks);
  ParallelForScheduler every_thread(callbacks.host_parallel_for, threads);
  std::optional<BatchInput> first = callbacks.next();
  if (!first) return true;
  HostItem calibration{std::move(*first), {}, {}, {}};
  const double first_ms = share.run(every_thread, calibration);
  share.report(calibration);

  if (first_ms * threads <= kRoundBudgetMs) {
    while (!device_ready()) {
      std::vector<HostItem> round;
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
        share.report(round[i]);
      });
      if (round.size() < static_cast<std::size_t>(threads)) return true;  // next gave nullopt
    }
    return false;
  }
  double last_ms = first_ms;
  while (last_ms < kHostImageBudgetMs && !device_ready()) {
    std::optional<BatchInput> input = callbacks.next();
    if (!input) return true;
    HostItem item{std::move(*input), {}, {}, {}};
    last_ms = share.run(every_thread, item);
    share.report(item);
  }
  return false;
}

}  // namespace parfilter
