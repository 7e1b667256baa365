// Which rows of its input a run of ops needs for a band of its output rows: the plan both of
// MPI's slabs (each rank's band) and of the strip pipeline (each strip) follow. A band is run
// as an image of its own, so a backend treats its first and last rows as image edges; the
// rows that this makes wrong lie within the halo of those edges, and each step's halo is added
// to the band (last step first), so that the band's kept rows are exactly the whole image's.
// Where a band's edge is the image's edge, the borders are the image's own.
#pragma once

#include <vector>

#include "parfilter/image.hpp"
#include "parfilter/op_set.hpp"

namespace parfilter {

/// Whether an output row of `op` depends only on the input rows within its halo (gray,
/// gaussian, sobel, sharpen, erode, dilate, open and close), or on two rows (pool): not so
/// for histogram, equalize, otsu and segment, which need the whole image's histogram first.
[[nodiscard]] bool runs_on_bands(Op op);

/// The chain cut into the pieces run one after another: runs of steps that runs_on_bands
/// accepts (a pool starts a new one, so that a band always starts on an even row), and every
/// other step alone.
[[nodiscard]] std::vector<OpChain> band_segments(const OpChain& chain);

/// The input rows that output rows `band` of `segment` (steps that runs_on_bands accepts, a
/// pool only first) need, on an input of `height` rows and `channels`: the band widened by
/// each step's halo (row_halo_of), last step first, and doubled through a pool; empty for an
/// empty band.
[[nodiscard]] RowRange band_input_rows(const OpChain& segment, int height, int channels,
                                       RowRange band);

/// The rows above and below any output row of `segment` that it reads, all its steps
/// together (the overlap two neighbouring bands share), counted in its input's rows.
[[nodiscard]] int segment_halo(const OpChain& segment);

}  // namespace parfilter
