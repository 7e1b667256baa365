// Tuned row kernels at any depth, templated on the sample type: the separable Gaussian, Sobel
// and sharpen over padded rows, and the van Herk/Gil-Werman morphology over an element's
// rectangles. The CPU backends run them at 16
// bits in place of the spec's per-pixel loops (reference::TunedRows); they give the same bytes
// (test_row_kernels_deep checks them against the spec's loops at both depths).
#pragma once

#include <cstdint>

#include "filter_math.hpp"
#include "parfilter/image.hpp"
#include "parfilter/op_set.hpp"
#include "reference_rows.hpp"

namespace parfilter::kernels {

/// Output rows `rows` of the 5x5 Gaussian: a row pass into 32-bit sums (at most 256 * T), then
/// a column pass over a ring of five of them. sum_ij q_i q_j s <= 65536 * T < 2^32 at 16 bits,
/// so both passes are exact and the result is the 2-D sum's.
template <typename Sample>
void gaussian_separable_deep_rows(BasicImageView<const Sample> in, BasicImageView<Sample> out,
                                  RowRange rows, const GaussianWeights& weights, BorderMode border);

/// Output rows `rows` of one erosion or dilation: the minimum (maximum) over the element's
/// rectangles (structuring_element_rects) of each rectangle's, separable, by van Herk/Gil-Werman
/// (three comparisons per sample whatever the rectangle's size). Pixels outside the image are
/// the neutral value (T for erosion, 0 for dilation): they are ignored, as the spec says.
template <typename Sample>
void morphology_deep_rows(BasicImageView<const Sample> in, BasicImageView<Sample> out,
                          RowRange rows, const StructuringElement& se, MorphOp morph);

/// Output rows `rows` of Sobel on a gray image: the 3x3 gradients over padded rows, the
/// magnitude rounded from a double square root (exact: below 2^37 the root's error is far
/// under the 1/(8 sqrt(n)) by which sqrt(n) must miss a half to round the other way).
template <typename Sample>
void sobel_deep_rows(BasicImageView<const Sample> gray, BasicImageView<Sample> out, RowRange rows,
                     BorderMode border, SobelOutput output);

/// Output rows `rows` of sharpen (5 v minus the four neighbours, clamped), alpha copied.
template <typename Sample>
void sharpen_deep_rows(BasicImageView<const Sample> in, BasicImageView<Sample> out, RowRange rows,
                       BorderMode border);

/// These kernels as the reference's 16-bit substitutes.
[[nodiscard]] const reference::TunedRows& tuned_rows_16();

}  // namespace parfilter::kernels
