#include "parfilter/backend.hpp"

#include <algorithm>
#include <chrono>
#include <memory>
#include <stdexcept>
#include <thread>

#include "parfilter/error.hpp"
#include "parfilter/in_flight_ring.hpp"

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

OpOutput Backend::run_chain(const OpChain& chain, const ConstImageView& input, StageTimes* times) {
  if (chain.empty()) throw UsageError("no op to run");
  OpOutput output;
  StageTimes total;
  for (std::size_t i = 0; i < chain.size(); ++i) {
    StageTimes step_times;
    const auto start = std::chrono::steady_clock::now();
    // Each step reads the previous step's image, which `output` keeps alive meanwhile.
    OpOutput next = run(chain[i].op, i == 0 ? input : ConstImageView(output.image.view()),
                        chain[i].params, &step_times);
    if (step_times.compute_ms <= 0.0) {  // a backend that does not time itself: the wall time
      step_times.compute_ms = elapsed_ms(start);
    }
    add_stage_times(total, step_times);
    output = std::move(next);
  }
  if (times != nullptr) *times = total;
  return output;
}

OpOutput Backend::run_chain_16(const OpChain& /*chain*/, const Image& /*input*/,
                               StageTimes* /*times*/) {
  check_depth(*this, Depth::u16);
  throw std::logic_error("run_chain_16: a backend that runs 16 bits must override it");
}

DeviceOutput Backend::run_chain_on_device(const OpChain& /*chain*/, const DeviceImageRef& /*input*/,
                                          std::uintptr_t /*stream*/) {
  throw UsageError("the " + std::string(name()) +
                   " backend filters host images only; GPU arrays need the cuda backend");
}

void check_depth(const Backend& backend, Depth depth) {
  if (depth == Depth::u8 || backend.runs_16_bit()) return;
  throw UsageError("a 16-bit image: the " + std::string(backend.name()) +
                   " backend runs 8-bit images only here; convert with --depth 8");
}

OpOutput run_chain_on(Backend& backend, const OpChain& chain, const Image& input,
                      StageTimes* times) {
  if (input.depth() == Depth::u8) return backend.run_chain(chain, input.view(), times);
  check_depth(backend, input.depth());
  return backend.run_chain_16(chain, input, times);
}

void Backend::run_batch(const OpChain& chain, const BatchCallbacks& callbacks) {
  for (std::optional<BatchInput> input = callbacks.next(); input; input = callbacks.next()) {
    report_run(callbacks, input->index,
               [&](StageTimes* times) { return run_chain_on(*this, chain, input->image, times); });
  }
}

void add_stage_times(StageTimes& total, const StageTimes& step) {
  total.compute_ms += step.compute_ms;
  const auto add = [](std::optional<double>& into, const std::optional<double>& value) {
    if (value) into = into.value_or(0.0) + *value;
  };
  add(total.upload_ms, step.upload_ms);
  add(total.download_ms, step.download_ms);
  add(total.build_ms, step.build_ms);
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

OpChain resolve_chain(const Backend& backend, OpChain chain) {
  validate_chain(chain);
  for (OpStep& step : chain)
    step.params.variant = resolve_variant(backend, step.op, step.params.variant);
  return chain;
}

}  // namespace parfilter
