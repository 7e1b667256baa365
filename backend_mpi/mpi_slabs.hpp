// One image through a node backend: each rank runs the node backend on its slab, the rows of
// its block plus every row the chain's steps read around them, as an image of its own, and
// keeps its block's rows; at either depth. Not installed.
#pragma once

#include <vector>

#include "mpi_comm.hpp"
#include "parfilter/backend.hpp"

namespace parfilter::mpi_detail {

/// Whether a node backend runs `op` on row slabs: an output row of gray, gaussian, sobel,
/// sharpen, erode, dilate, open and close depends only on the input rows within the op's
/// halo, and one of pool on two input rows. histogram, equalize, otsu and segment need the
/// whole image's histogram first: they run on the ranks' CPU kernels.
[[nodiscard]] bool runs_on_slabs(Op op);

/// The chain cut into the pieces run one after another: runs of steps that runs_on_slabs
/// accepts (a pool starts a new one, so that a slab always starts on an even row), and every
/// other step alone.
[[nodiscard]] std::vector<OpChain> slab_segments(const OpChain& chain);

/// The input rows rank r needs for output rows `block` of `segment` (steps that
/// runs_on_slabs accepts, a pool only first) on an input of `height` rows: the block widened
/// by each step's halo, last step first, and doubled through a pool; empty for an empty block.
/// The halos are symmetric (the larger side on both), which costs a row or two and holds
/// whichever way a backend anchors an even structuring element.
[[nodiscard]] RowRange slab_rows(const OpChain& segment, int height, int channels, RowRange block);

/// Runs `segment` collectively with `node` on every rank: the root's `input` (ignored
/// elsewhere; 8 or 16 bits, Sample) scattered by slabs (slab_rows), the node's run_chain (or
/// run_chain_16) on each slab as an image of its own, each block gathered on the root (and
/// broadcast with `result_on_every_rank`). Fills `times` as run_distributed does. Throws the
/// same error on every rank when any rank fails.
template <typename Sample>
[[nodiscard]] OpOutput run_slabs(const Comm& comm, Backend& node, const OpChain& segment,
                                 const BasicImageView<const Sample>& input,
                                 bool result_on_every_rank, StageTimes* times);

}  // namespace parfilter::mpi_detail
