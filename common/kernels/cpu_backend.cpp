// The CPU backend seam: each op (ops/<op>.cpp, found through cpu_op) runs over a
// RowScheduler. Each block gets only the input rows its kernel may read (its rows widened by
// the halo), so a kernel that strays outside them trips the view's bounds assertion in debug
// builds.
#include "cpu_backend.hpp"

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <stdexcept>
#include <utility>
#include <vector>

#include "buffer_pool.hpp"
#include "cpu_batch.hpp"
#include "cpu_op_steps.hpp"
#include "parfilter/error.hpp"
#include "reference_rows.hpp"
#include "row_kernels_deep.hpp"

namespace parfilter {
namespace {

/// A Backend that runs every op through run_cpu_op on its scheduler.
class CpuBackend final : public Backend {
 public:
  CpuBackend(std::string name, std::unique_ptr<RowScheduler> scheduler, int threads,
             bool takes_threads)
      : name_(std::move(name)),
        scheduler_(std::move(scheduler)),
        threads_(threads),
        takes_threads_(takes_threads) {}

  [[nodiscard]] std::string_view name() const override { return name_; }
  [[nodiscard]] std::vector<std::string> variants(Op op) const override { return cpu_variants(op); }
  [[nodiscard]] Availability availability() const override { return {}; }
  [[nodiscard]] int threads() const override { return threads_; }
  [[nodiscard]] bool takes_threads() const override { return takes_threads_; }
  [[nodiscard]] bool runs_16_bit() const override { return true; }

  OpOutput run_chain_16(const OpChain& chain, const Image& input, StageTimes* times) override {
    StageTimes total;
    OpOutput output = run_cpu_chain_16(*scheduler_, resolve_chain(*this, chain), input, total);
    if (times != nullptr) *times = total;
    return output;
  }

  OpOutput run(Op op, const ConstImageView& input, const OpParams& params,
               StageTimes* times) override {
    validate_params(op, params);
    // run_cpu_op takes an empty variant as the default; an unknown one gets resolve_variant's
    // message. No list of the variants is built per call (a tiny image's cost is per call).
    const auto variants = cpu_op(op).variants;
    if (!params.variant.empty() &&
        std::find(variants.begin(), variants.end(), params.variant) == variants.end()) {
      (void)resolve_variant(*this, op, params.variant);
    }
    return timed_op(*scheduler_, op, input, params, times);
  }

  void run_batch(const OpChain& chain, const BatchCallbacks& callbacks) override {
    if (threads_ <= 1) {
      Backend::run_batch(chain, callbacks);
      return;
    }
    run_batch_on_threads(chain, callbacks);
    // The batch's last encodes run after this returns: the scheduler's threads leave them the
    // cores.
    scheduler_->release_idle_threads();
  }

 private:
  void run_batch_on_threads(const OpChain& chain, const BatchCallbacks& callbacks) {
    OpChain resolved;
    try {
      resolved = resolve_chain(*this, chain);
    } catch (const UsageError&) {
      Backend::run_batch(chain, callbacks);  // each image's failure, as one at a time gives it
      return;
    }
    run_images_side_by_side(*scheduler_, callbacks,
                            [&](RowScheduler& scheduler, const Image& input, StageTimes& times) {
                              return input.depth() == Depth::u8
                                         ? run_steps(scheduler, resolved, input.view(), times)
                                         : run_cpu_chain_16(scheduler, resolved, input, times);
                            });
  }

  OpOutput timed_op(RowScheduler& scheduler, Op op, const ConstImageView& input,
                    const OpParams& resolved, StageTimes* times) {
    const auto start = std::chrono::steady_clock::now();
    OpOutput output = run_cpu_op(scheduler, op, input, resolved, outputs_);
    if (times != nullptr) times->compute_ms = elapsed_ms(start);
    return output;
  }

  /// A resolved chain's steps in turn on `scheduler`, each reading the previous one's image.
  OpOutput run_steps(RowScheduler& scheduler, const OpChain& resolved, const ConstImageView& input,
                     StageTimes& times) {
    return run_cpu_chain(scheduler, resolved, input, times, outputs_);
  }

  std::string name_;
  std::unique_ptr<RowScheduler> scheduler_;
  int threads_;
  /// Outputs and intermediates are reused from one run to the next (buffer_pool.hpp); with
  /// one thread, a new one's pages are mapped at once.
  std::shared_ptr<BufferPool> outputs_ = make_buffer_pool(threads_ == 1);
  bool takes_threads_;
};

}  // namespace

RowRange block_range(int rows, int blocks, int index) {
  const int base = rows / blocks;
  const int longer = rows % blocks;  // the first `longer` blocks get one extra row
  const int begin = index * base + std::min(index, longer);
  const int end = begin + base + (index < longer ? 1 : 0);
  return {std::min(begin, rows), std::min(end, rows)};
}

void ParallelForScheduler::for_each_block(int rows, const std::function<void(RowRange, int)>& fn) {
  if (rows <= 0) return;
  const int blocks = std::min(blocks_, rows);
  parallel_for_(static_cast<std::size_t>(blocks), [&](std::size_t index) {
    const int block = static_cast<int>(index);
    fn(block_range(rows, blocks, block), block);
  });
}

std::vector<std::string> cpu_variants(Op op) {
  const auto variants = cpu_op(op).variants;
  return {variants.begin(), variants.end()};
}

OpOutput run_cpu_op(RowScheduler& scheduler, Op op, const ConstImageView& input,
                    const OpParams& params, const std::shared_ptr<SampleAllocator>& outputs) {
  if (input.rows() != RowRange{0, input.height()}) {
    throw std::invalid_argument("run_cpu_op: the input view must address every row");
  }
  const CpuOp& defined = cpu_op(op);
  OpParams resolved = params;
  if (resolved.variant.empty()) resolved.variant = defined.variants.front();
  if (std::find(defined.variants.begin(), defined.variants.end(), resolved.variant) ==
      defined.variants.end()) {
    throw UsageError("unknown variant '" + resolved.variant + "' for " + std::string(op_name(op)));
  }
  const CpuOpContext context{scheduler, outputs};
  return defined.single_pass != nullptr ? run_single_pass(context, op, input, resolved)
                                        : defined.run(context, input, resolved);
}

OpOutput run_cpu_chain(RowScheduler& scheduler, const OpChain& resolved,
                       const ConstImageView& input, StageTimes& times,
                       const std::shared_ptr<SampleAllocator>& outputs) {
  OpOutput output;
  times = {};
  for (std::size_t i = 0; i < resolved.size(); ++i) {
    const auto start = std::chrono::steady_clock::now();
    OpOutput next =
        run_cpu_op(scheduler, resolved[i].op, i == 0 ? input : ConstImageView(output.image.view()),
                   resolved[i].params, outputs);
    StageTimes step;
    step.compute_ms = elapsed_ms(start);
    add_stage_times(times, step);
    output = std::move(next);
  }
  return output;
}

OpOutput run_cpu_chain_16(RowScheduler& scheduler, const OpChain& resolved, const Image& input,
                          StageTimes& times) {
  // 16 bits run the spec's own loops (reference_rows.hpp) over the scheduler's blocks, with the
  // tuned kernels of row_kernels_deep.hpp in place of the Gaussian's and morphology's, whatever
  // the variant: every variant gives these bytes.
  const reference::RowBlocks blocks{
      scheduler.max_blocks(), [&scheduler](int rows, const std::function<void(RowRange, int)>& fn) {
        scheduler.for_each_block(rows, fn);
      }};
  OpOutput output;
  times = {};
  for (std::size_t i = 0; i < resolved.size(); ++i) {
    const auto start = std::chrono::steady_clock::now();
    OpOutput next = reference::run_scheduled(resolved[i].op, i == 0 ? input : output.image,
                                             resolved[i].params, blocks, kernels::tuned_rows_16());
    StageTimes step;
    step.compute_ms = elapsed_ms(start);
    add_stage_times(times, step);
    output = std::move(next);
  }
  return output;
}

std::unique_ptr<Backend> make_cpu_backend(std::string name, std::unique_ptr<RowScheduler> scheduler,
                                          int threads, bool takes_threads) {
  return std::make_unique<CpuBackend>(std::move(name), std::move(scheduler), threads,
                                      takes_threads);
}

std::unique_ptr<Backend> make_threaded_cpu_backend(
    std::string name, const BackendOptions& options, int every_hardware_thread,
    std::unique_ptr<RowScheduler> (*make_scheduler)(int threads)) {
  if (options.threads < 0) {
    throw UsageError("threads must be 0 (every hardware thread) or more, got " +
                     std::to_string(options.threads));
  }
  const int threads = options.threads == 0 ? every_hardware_thread : options.threads;
  return make_cpu_backend(std::move(name), make_scheduler(threads), threads);
}

}  // namespace parfilter
