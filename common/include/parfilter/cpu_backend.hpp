// The seam between the CPU backends. serial, pthread, OpenMP (and MPI inside a rank) run
// the same row-range kernels (row_kernels.hpp); they differ only in the RowScheduler that
// splits an image's rows into blocks and runs them.
#pragma once

#include <functional>
#include <memory>
#include <string>

#include "parfilter/backend.hpp"
#include "parfilter/image.hpp"

namespace parfilter {

/// Splits rows into blocks and runs a function on each.
class RowScheduler {
 public:
  RowScheduler() = default;
  RowScheduler(const RowScheduler&) = delete;
  RowScheduler& operator=(const RowScheduler&) = delete;
  virtual ~RowScheduler() = default;

  /// Upper bound on the number of blocks for_each_block hands out, so that callers can give
  /// each block its own scratch (a per-block histogram) with no shared counters.
  [[nodiscard]] virtual int max_blocks() const = 0;

  /// Calls fn(range, block) for disjoint blocks that together cover [0, rows), block in
  /// [0, max_blocks()). Returns when every call has returned: that return is the barrier
  /// between the phases of a multi-phase op.
  virtual void for_each_block(int rows, const std::function<void(RowRange, int)>& fn) = 0;
};

/// Splits [0, rows) into `blocks` contiguous near-equal ranges and returns range `index`.
/// The first rows % blocks ranges are one row longer. Ranges past `rows` are empty.
[[nodiscard]] RowRange block_range(int rows, int blocks, int index);

/// The op variants every CPU backend offers, the default first.
[[nodiscard]] std::vector<std::string> cpu_variants(Op op);

/// Runs `op` with the shared row kernels, scheduled by `scheduler`.
[[nodiscard]] OpOutput run_cpu_op(RowScheduler& scheduler, Op op, const ConstImageView& input,
                                  const OpParams& params);

/// A Backend over a scheduler: what serial, pthread and OpenMP each register.
/// `takes_threads`: whether BackendOptions::threads sets its worker count (not so for serial).
[[nodiscard]] std::unique_ptr<Backend> make_cpu_backend(std::string name,
                                                        std::unique_ptr<RowScheduler> scheduler,
                                                        int threads, bool takes_threads = true);

}  // namespace parfilter
