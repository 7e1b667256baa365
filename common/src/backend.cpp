#include "parfilter/backend.hpp"

#include <algorithm>
#include <chrono>
#include <thread>

#include "parfilter/error.hpp"

namespace parfilter {

std::string Backend::describe_devices() const {
  return "* cpu: " + std::to_string(std::thread::hardware_concurrency()) +
         " hardware thread(s), using " + std::to_string(threads()) + "\n";
}

void Backend::run_batch(Op op, const OpParams& params, std::size_t count,
                        const BatchCallbacks& callbacks) {
  for (std::size_t i = 0; i < count; ++i) {
    const std::optional<Image> input = callbacks.load(i);
    if (!input) continue;
    StageTimes times;
    OpOutput output;
    try {
      const auto start = std::chrono::steady_clock::now();
      output = run(op, input->view(), params, &times);
      if (times.compute_ms <= 0.0) {  // a backend that does not time itself: the wall time
        times.compute_ms =
            std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
                .count();
      }
    } catch (...) {
      callbacks.failed(i, std::current_exception());
      continue;
    }
    callbacks.done(i, std::move(output), times);
  }
}

std::string resolve_variant(const Backend& backend, Op op, const std::string& requested) {
  const auto variants = backend.variants(op);
  if (requested.empty()) return variants.front();
  if (std::find(variants.begin(), variants.end(), requested) != variants.end()) return requested;
  std::string valid;
  for (const auto& v : variants) valid += (valid.empty() ? "" : ", ") + v;
  throw UsageError("unknown variant '" + requested + "' for " + std::string(op_name(op)) +
                   " on the " + std::string(backend.name()) + " backend (valid: " + valid + ")");
}

}  // namespace parfilter
