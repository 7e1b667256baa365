// The seam between the CPU backends. serial, pthread, OpenMP (and MPI inside a rank) run
// the same row-range kernels (row_kernels.hpp) composed into ops here; they differ only in
// the RowScheduler (row_scheduler.hpp) that splits an image's rows into blocks and runs them.
#pragma once

#include <memory>
#include <string>

#include "parfilter/backend.hpp"
#include "parfilter/image.hpp"
#include "row_scheduler.hpp"

namespace parfilter {

/// The op variants every CPU backend offers, the default first.
[[nodiscard]] std::vector<std::string> cpu_variants(Op op);

/// Runs `op` with the shared row kernels, scheduled by `scheduler`. Its output image and
/// intermediates come from `outputs` (the backends pass their BufferPool), or the heap.
[[nodiscard]] OpOutput run_cpu_op(RowScheduler& scheduler, Op op, const ConstImageView& input,
                                  const OpParams& params,
                                  const std::shared_ptr<SampleAllocator>& outputs = {});

/// Runs a resolved chain's steps in turn on `scheduler`, each reading the previous one's image,
/// and returns the last one's output; `times` sums the steps' compute times.
[[nodiscard]] OpOutput run_cpu_chain(RowScheduler& scheduler, const OpChain& resolved,
                                     const ConstImageView& input, StageTimes& times,
                                     const std::shared_ptr<SampleAllocator>& outputs = {});

/// run_cpu_chain for a 16-bit image.
[[nodiscard]] OpOutput run_cpu_chain_16(RowScheduler& scheduler, const OpChain& resolved,
                                        const Image& input, StageTimes& times);

/// A Backend over a scheduler: what serial, pthread and OpenMP each register.
/// `takes_threads`: whether BackendOptions::threads sets its worker count (not so for serial).
[[nodiscard]] std::unique_ptr<Backend> make_cpu_backend(std::string name,
                                                        std::unique_ptr<RowScheduler> scheduler,
                                                        int threads, bool takes_threads = true);

/// make_cpu_backend for a threaded backend (pthread, OpenMP): over make_scheduler(n) for n
/// workers, BackendOptions::threads or `every_hardware_thread` for 0; UsageError for a
/// negative count.
[[nodiscard]] std::unique_ptr<Backend> make_threaded_cpu_backend(
    std::string name, const BackendOptions& options, int every_hardware_thread,
    std::unique_ptr<RowScheduler> (*make_scheduler)(int threads));

}  // namespace parfilter
