#include "host_while_starting.hpp"

#include <exception>
#include <memory>
#include <optional>
#include <utility>

#include "cpu_backend.hpp"

namespace parfilter {
namespace {

/// The host takes no more inputs once one took longer than this: an image the device would
/// finish far sooner (a heavy op) must not hold back the device's take-over by as much, once
/// the device is ready (its start takes about 300 ms); light ops take a few milliseconds.
constexpr double kHostImageBudgetMs = 50.0;

}  // namespace

bool run_on_host_while_starting(const OpChain& chain, const BatchCallbacks& callbacks,
                                const std::function<bool()>& device_ready) {
  if (!callbacks.host_parallel_for || device_ready()) return false;
  const int threads = callbacks.host_threads;
  const std::unique_ptr<Backend> host = make_cpu_backend(
      "host", std::make_unique<ParallelForScheduler>(callbacks.host_parallel_for, threads),
      threads);
  OpChain host_chain = chain;
  for (OpStep& step : host_chain) step.params.variant.clear();  // the device's variant names
  double last_ms = 0.0;
  while (last_ms < kHostImageBudgetMs && !device_ready()) {
    std::optional<BatchInput> input = callbacks.next();
    if (!input) return true;
    const auto start = StageClock::now();
    StageTimes times;
    OpOutput output;
    try {
      output = host->run_chain(host_chain, input->image.view(), &times);
    } catch (...) {
      callbacks.failed(input->index, std::current_exception());
      continue;
    }
    last_ms = elapsed_ms(start);
    input->image = Image{};  // its memory back before the encode
    times.on_host = true;
    callbacks.done(input->index, std::move(output), times);
  }
  return false;
}

}  // namespace parfilter
