// The schedule of the CPU backends: how an image's rows are split into blocks and run. The
// kernels (row_kernels.hpp) say what a block computes; a RowScheduler says where and when.
#pragma once

#include <functional>
#include <utility>

#include "parfilter/image.hpp"
#include "parfilter/image_io.hpp"

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

  /// The caller has no blocks for a while (a batch is over, its last encodes still running):
  /// threads that would otherwise spin, waiting for the next call, may stop now.
  virtual void release_idle_threads() {}
};

/// Every row as one block on the calling thread: the serial backend's schedule, an MPI rank's
/// with one thread, and each image's in a CPU backend's batch of images side by side.
class CallingThreadScheduler final : public RowScheduler {
 public:
  [[nodiscard]] int max_blocks() const override { return 1; }
  void for_each_block(int rows, const std::function<void(RowRange, int)>& fn) override {
    if (rows > 0) fn(RowRange{0, rows}, 0);
  }
};

/// Blocks spread by a ParallelFor: a borrowed pool of threads (a batch pipeline's workers).
class ParallelForScheduler final : public RowScheduler {
 public:
  ParallelForScheduler(ParallelFor parallel_for, int blocks)
      : parallel_for_(std::move(parallel_for)), blocks_(blocks < 1 ? 1 : blocks) {}
  [[nodiscard]] int max_blocks() const override { return blocks_; }
  void for_each_block(int rows, const std::function<void(RowRange, int)>& fn) override;

 private:
  ParallelFor parallel_for_;
  int blocks_;
};

/// Splits [0, rows) into `blocks` contiguous near-equal ranges and returns range `index`.
/// The first rows % blocks ranges are one row longer. Ranges past `rows` are empty.
[[nodiscard]] RowRange block_range(int rows, int blocks, int index);

}  // namespace parfilter
