// One image through a node backend: each rank runs the node backend on its slab, the rows of
// its block plus every row the chain's steps read around them (band_input_rows, strip_plan.hpp),
// as an image of its own, and keeps its block's rows; at either depth. Not installed.
#pragma once

#include <vector>

#include "mpi_comm.hpp"
#include "parfilter/backend.hpp"
#include "parfilter/strip_plan.hpp"

namespace parfilter::mpi_detail {

/// Runs `segment` collectively with `node` on every rank: the root's `input` (ignored
/// elsewhere; 8 or 16 bits, Sample) scattered by slabs (band_input_rows), the node's run_chain (or
/// run_chain_16) on each slab as an image of its own, each block gathered on the root (and
/// broadcast with `result_on_every_rank`). Fills `times` as run_distributed does. Throws the
/// same error on every rank when any rank fails.
template <typename Sample>
[[nodiscard]] OpOutput run_slabs(const Comm& comm, Backend& node, const OpChain& segment,
                                 const BasicImageView<const Sample>& input,
                                 bool result_on_every_rank, StageTimes* times);

}  // namespace parfilter::mpi_detail
