#include "parfilter/backend.hpp"

#include <algorithm>
#include <chrono>
#include <memory>
#include <thread>

#include "parfilter/error.hpp"

namespace parfilter {

std::string Backend::describe_devices() const {
  return "* cpu: " + std::to_string(std::thread::hardware_concurrency()) +
         " hardware thread(s), using " + std::to_string(threads()) + "\n";
}

std::function<std::optional<BatchInput>()> indexed_inputs(
    std::size_t count, std::function<std::optional<Image>(std::size_t index)> load) {
  auto next = std::make_shared<std::size_t>(0);
  return [count, load = std::move(load), next]() -> std::optional<BatchInput> {
    while (*next < count) {
      const std::size_t index = (*next)++;
      if (std::optional<Image> image = load(index)) return BatchInput{index, std::move(*image)};
    }
    return std::nullopt;
  };
}

void Backend::run_batch(Op op, const OpParams& params, const BatchCallbacks& callbacks) {
  for (std::optional<BatchInput> input = callbacks.next(); input; input = callbacks.next()) {
    StageTimes times;
    OpOutput output;
    try {
      const auto start = std::chrono::steady_clock::now();
      output = run(op, input->image.view(), params, &times);
      if (times.compute_ms <= 0.0) {  // a backend that does not time itself: the wall time
        times.compute_ms =
            std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
                .count();
      }
    } catch (...) {
      callbacks.failed(input->index, std::current_exception());
      continue;
    }
    callbacks.done(input->index, std::move(output), times);
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
