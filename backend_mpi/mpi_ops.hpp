// Every op distributed over the ranks of a communicator. Not installed.
#pragma once

#include <optional>
#include <vector>

#include "cpu_backend.hpp"
#include "mpi_comm.hpp"
#include "parfilter/backend.hpp"

namespace parfilter::mpi_detail {

/// The root's input geometry, checked on the root (an image, a view of every row) and
/// broadcast. Collective.
[[nodiscard]] Geometry broadcast_geometry(const Comm& comm, const ConstImageView& input);

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
[[nodiscard]] OpOutput run_distributed(const Comm& comm, RowScheduler& scheduler, Op op,
                                       const ConstImageView& input, const OpParams& params,
                                       bool result_on_every_rank, StageTimes* times);

}  // namespace parfilter::mpi_detail
