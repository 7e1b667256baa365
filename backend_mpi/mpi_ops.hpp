// Every op distributed over the ranks of a communicator. Not installed.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <vector>

#include "cpu_backend.hpp"
#include "filter_math.hpp"
#include "mpi_comm.hpp"
#include "parfilter/backend.hpp"

namespace parfilter::mpi_detail {

/// The root's input geometry, checked on the root (an image, a view of every row) and
/// broadcast; its depth is the sample type's. Collective.
template <typename Sample>
[[nodiscard]] Geometry broadcast_geometry(const Comm& comm,
                                          const BasicImageView<const Sample>& input);

/// The root's depth on every rank: the first collective of a run, so that every rank takes
/// the same path whatever image (or none) it was given. Collective.
[[nodiscard]] Depth agree_on_depth(const Comm& comm, Depth root_depth);

/// How an op splits over the ranks: rank r computes output rows blocks[r] from input rows
/// needs[r]. `out` is absent for histogram, which produces no image.
struct Plan {
  std::optional<Geometry> out;
  std::vector<RowRange> blocks;
  std::vector<RowRange> needs;
};

/// What one rank computes with: its input rows, the output rows it fills, and its block.
template <typename Sample>
struct LocalRowsOf {
  const Comm& comm;
  RowScheduler& scheduler;
  Geometry in_geometry;
  BasicImageView<const Sample> in;  ///< rows needs[rank] of the input
  BasicImageView<Sample> out;       ///< rows blocks[rank] of the output
  RowRange block;
};

/// The per-op work of one rank; it returns what the output carries besides the image.
template <typename Sample>
using Compute = std::function<OpOutput(const LocalRowsOf<Sample>&)>;

/// The erosions and dilations `steps` in turn on this rank's rows: each reads the previous
/// one's rows plus a halo, the ranks exchanging the halo rows between steps; the last writes
/// local.out. step(morph, src, dst) computes this rank's block. Collective.
template <typename Sample, typename Step>
void run_morphology_steps(const LocalRowsOf<Sample>& local, const Plan& plan,
                          const std::vector<MorphOp>& steps, Step&& step) {
  const RowRange need = local.in.rows();
  LocalRows buffers[2];
  on_every_rank(local.comm, [&] {
    if (steps.size() > 1) buffers[0] = LocalRows(local.in_geometry, need);
    if (steps.size() > 2) buffers[1] = LocalRows(local.in_geometry, need);
  });
  BasicImageView<const Sample> src = local.in;
  for (std::size_t i = 0; i < steps.size(); ++i) {
    const bool last = i + 1 == steps.size();
    const BasicImageView<Sample> dst = last ? local.out : buffers[i % 2].template view_as<Sample>();
    on_every_rank(local.comm, [&] { step(steps[i], src, dst); });
    if (!last) {
      exchange_halos(local.comm, local.in_geometry, buffers[i % 2], plan.blocks, plan.needs);
    }
    src = dst;
  }
}

/// The split of `op` over `ranks` (the same at both depths: the halos are the spec's).
[[nodiscard]] Plan plan_rows(Op op, const OpParams& params, const Geometry& in, int ranks);

/// The per-rank work of `op` on 16-bit rows: the spec's loops (reference_rows.hpp) on each
/// block, with the histograms summed and the halos exchanged between the ranks.
/// params must be validated at 16 bits.
[[nodiscard]] Compute<std::uint16_t> spec_compute_16(Op op, const OpParams& params,
                                                     const Plan& plan);

/// Where a rank's output rows go: on the root, rows of the full output image (gathered in
/// place); elsewhere, a buffer of its block.
struct ResultRows {
  Image image;
  LocalRows rows;
};

/// The output buffers of a run whose output is `out` (none when absent: histogram), for this
/// rank's `block`. Collective (agreed: out of memory anywhere fails every rank).
[[nodiscard]] ResultRows allocate_result(const Comm& comm, const std::optional<Geometry>& out,
                                         RowRange block);

/// Gathers every rank's block into the root's image (and broadcasts it when
/// `result_on_every_rank`), then moves it into output.image where it is whole. Collective.
void gather_result(const Comm& comm, const Geometry& out, const std::vector<RowRange>& blocks,
                   bool result_on_every_rank, ResultRows& result, OpOutput& output);

/// `times` on every rank: the root's scatter (upload) and gather (download), the slowest
/// rank's compute. Collective.
void agree_on_times(const Comm& comm, double scatter_ms, double compute_ms, double gather_ms,
                    StageTimes* times);

/// Runs `op` collectively: the root's `input` (ignored elsewhere) is scattered by rows, each
/// rank runs the shared passes on its block with `scheduler`, and the output image is
/// gathered on the root (and broadcast when `result_on_every_rank`); histograms and
/// thresholds reach every rank. params.variant must be resolved. Fills `times` on every rank
/// with compute = the slowest rank's time between scatter and gather, upload = the scatter,
/// download = the gather (as the root timed them). Throws the same error on every rank when
/// any rank fails.
/// At 16 bits (Sample = uint16_t) the ranks run spec_compute_16.
template <typename Sample>
[[nodiscard]] OpOutput run_distributed(const Comm& comm, RowScheduler& scheduler, Op op,
                                       const BasicImageView<const Sample>& input,
                                       const OpParams& params, bool result_on_every_rank,
                                       StageTimes* times);

}  // namespace parfilter::mpi_detail
