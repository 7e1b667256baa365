// One op on the CPU backends, each defined in its own file, ops/<op>.cpp, whose stem is the
// op's name: CMake collects them into the table cpu_op() reads (cpu_op_table.cpp.in). The
// serial, pthread and OpenMP backends run each op over their scheduler (run_cpu_op); MPI runs
// an op that is a single row pass on each rank's slab, with its halo, and plans the others.
#pragma once

#include <memory>
#include <span>
#include <string_view>

#include "op_kernels.hpp"
#include "parfilter/backend.hpp"
#include "row_scheduler.hpp"

namespace parfilter {

/// What an op runs with: the scheduler that splits its rows, and where its output and
/// intermediates come from (a backend's BufferPool, or the heap when null).
struct CpuOpContext {
  RowScheduler& scheduler;
  const std::shared_ptr<SampleAllocator>& outputs;
};

struct CpuOp {
  std::string_view name;  ///< the op's name (op_set.hpp), and its file's stem
  /// The variants every CPU backend offers, the default first.
  std::span<const std::string_view> variants;
  /// An op that is one row pass over its input, its output the input's size (one channel for
  /// OpTraits::gray_result): that pass. It is all such an op defines: the backends run it over
  /// the whole image, MPI on each rank's slab, and its halo is the pass's. Null otherwise.
  RowPass (*single_pass)(const OpParams& params) = nullptr;
  /// Any other op: the whole image, `params.variant` resolved (one of `variants`).
  OpOutput (*run)(const CpuOpContext& context, const ConstImageView& input,
                  const OpParams& params) = nullptr;
  /// Any other op: the rows above and below an output row it reads, all its passes together
  /// (its default variant's when params.variant is empty); null for an op that reads the
  /// whole image (OpTraits::whole_image) or cuts its own rows (pool).
  RowHalo (*halo)(const OpParams& params) = nullptr;
};

/// The CPU definition of `op`; std::logic_error if ops/ has no file for it.
[[nodiscard]] const CpuOp& cpu_op(Op op);

/// The rows above and below an output row that `op` reads (its single pass's, or CpuOp::halo);
/// std::logic_error for an op without a halo of its own (it reads the whole image, or cuts
/// its own rows).
[[nodiscard]] RowHalo row_halo(Op op, const OpParams& params);

/// The channels of a single-pass op's output for an input of `input_channels`.
[[nodiscard]] int single_pass_channels(Op op, int input_channels);

}  // namespace parfilter
