// Every op distributed over the ranks of a communicator. Not installed.
#pragma once

#include "mpi_comm.hpp"
#include "parfilter/backend.hpp"
#include "cpu_backend.hpp"

namespace parfilter::mpi_detail {

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
