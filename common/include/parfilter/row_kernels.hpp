// Row-range kernels shared by every CPU backend (serial, pthread, OpenMP, MPI).
//
// Each kernel computes output rows `rows` of `dst`. `src` must address the rows the op reads
// for them: `rows` widened by the op's halo (kernel_halo) and clipped to the image. Views
// address rows by their index in the full image, so borders are applied against the true
// image edges whatever slice a scheduler hands out.
#pragma once

#include <cstdint>
#include <span>

#include "parfilter/filter_math.hpp"
#include "parfilter/image.hpp"
#include "parfilter/op_set.hpp"

namespace parfilter::kernels {

/// Rows above and below an output row that a one-pass kernel reads.
inline constexpr int kGaussianHalo = kGaussianRadius;
inline constexpr int kSobelHalo = 1;
inline constexpr int kSharpenHalo = 1;

/// The input rows needed to compute `rows` with a kernel of the given halo.
[[nodiscard]] constexpr RowRange widen(RowRange rows, int halo, int height) {
  return {rows.begin - halo < 0 ? 0 : rows.begin - halo,
          rows.end + halo > height ? height : rows.end + halo};
}

// Point ops --------------------------------------------------------------------------------
/// dst (1 channel) = gray of src (1, 3 or 4 channels; gray input is copied).
void gray_rows(const ConstImageView& src, const ImageView& dst, RowRange rows);

/// dst = 255 where src > threshold, else 0 (src and dst 1 channel).
void threshold_rows(const ConstImageView& src, const ImageView& dst, RowRange rows,
                    int threshold);

/// dst = lut[src] (1 channel).
void apply_lut_rows(const ConstImageView& src, const ImageView& dst, RowRange rows,
                    const std::array<std::uint8_t, 256>& lut);

// Histograms -------------------------------------------------------------------------------
/// Adds the counts of channel `channel` of `src` over `rows` to `hist`.
void histogram_rows(const ConstImageView& src, RowRange rows, int channel, HistogramBins& hist);

/// Adds the counts of the YCrCb luma of an RGB(A) `src` over `rows` to `hist`.
void luma_histogram_rows(const ConstImageView& src, RowRange rows, HistogramBins& hist);

/// Colour equalization: Y of YCrCb through `lut`, converted back; alpha copied.
void equalize_color_rows(const ConstImageView& src, const ImageView& dst, RowRange rows,
                         const std::array<std::uint8_t, 256>& lut);

// Neighbourhood filters --------------------------------------------------------------------
void gaussian5x5_direct_rows(const ConstImageView& src, const ImageView& dst, RowRange rows,
                             const GaussianWeights& weights, BorderMode border);
void gaussian5x5_lut_rows(const ConstImageView& src, const ImageView& dst, RowRange rows,
                          const GaussianLut& lut, BorderMode border);
void gaussian5x5_separable_rows(const ConstImageView& src, const ImageView& dst, RowRange rows,
                                const GaussianWeights& weights, BorderMode border);

/// src and dst 1 channel.
void sobel_rows(const ConstImageView& src, const ImageView& dst, RowRange rows, BorderMode border,
                SobelOutput output);

void sharpen_rows(const ConstImageView& src, const ImageView& dst, RowRange rows,
                  BorderMode border);

// Morphology -------------------------------------------------------------------------------
enum class MorphOp : std::uint8_t { erode, dilate };

/// One erosion or dilation with `se`; pixels outside the image are ignored. Alpha of a
/// 4-channel image is copied. src must address rows widened by the element's anchor offsets.
void morphology_rows(const ConstImageView& src, const ImageView& dst, RowRange rows,
                     const StructuringElement& se, MorphOp op);

/// Rows above (first) and below (second) an output row that morphology_rows reads.
[[nodiscard]] constexpr int morphology_halo_above(const StructuringElement& se) {
  return se.anchor_y;
}
[[nodiscard]] constexpr int morphology_halo_below(const StructuringElement& se) {
  return se.height - 1 - se.anchor_y;
}

// Adaptive segmentation ---------------------------------------------------------------------
/// dst = 255 where gray > the pixel's local isodata threshold (window x window clipped to the
/// image), or > global_threshold where the window's max - min < min_contrast. src must address
/// rows widened by window / 2.
void adaptive_segment_rows(const ConstImageView& gray, const ImageView& dst, RowRange rows,
                           int window, int min_contrast, int global_threshold);

// Pooling ----------------------------------------------------------------------------------
/// Output rows `rows` of the ceil(W/2) x ceil(H/2) 2x2 max pool; src addresses input rows
/// [2 * rows.begin, min(2 * rows.end, H)).
void pool2x2_rows(const ConstImageView& src, const ImageView& dst, RowRange rows);

}  // namespace parfilter::kernels
