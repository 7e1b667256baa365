// Row-range kernels shared by every CPU backend (serial, pthread, OpenMP, MPI).
//
// Each kernel computes output rows `rows` of `dst`. `src` must address the rows the op reads
// for them: `rows` widened by the op's halo (kernel_halo) and clipped to the image. Views
// address rows by their index in the full image, so borders are applied against the true
// image edges whatever slice a scheduler hands out.
#pragma once

#include <cstdint>
#include <span>

#include "filter_math.hpp"
#include "parfilter/image.hpp"
#include "parfilter/op_set.hpp"

namespace parfilter::kernels {

/// Rows above and below an output row that a one-pass kernel reads.
inline constexpr int kGaussianHalo = kGaussianRadius;
inline constexpr int kSobelHalo = 1;
inline constexpr int kSharpenHalo = 1;

/// Which inner loops a kernel runs. All give the same bytes: the SIMD loops (Google Highway,
/// simd_kernels.hpp) compute the leading part of each row and the plain C++ loops, the
/// reference, the rest; Loops::plain runs the plain loops alone (the CPU variant "scalar").
enum class Loops : std::uint8_t {
  simd,
  /// The SIMD loops, and the kernel's output rows written with streaming stores where the
  /// loops can: for an output larger than the caches that nothing reads soon (cpu_backend
  /// chooses it for a large op output, never for an intermediate read back).
  simd_stream,
  plain,
};

[[nodiscard]] constexpr bool uses_simd(Loops loops) { return loops != Loops::plain; }

/// The loops of a pass whose output is read back soon: no streaming.
[[nodiscard]] constexpr Loops cached(Loops loops) {
  return loops == Loops::simd_stream ? Loops::simd : loops;
}

/// The input rows needed to compute `rows` with a kernel of the given halo.
[[nodiscard]] constexpr RowRange widen(RowRange rows, int halo, int height) {
  return {rows.begin - halo < 0 ? 0 : rows.begin - halo,
          rows.end + halo > height ? height : rows.end + halo};
}

// Point ops --------------------------------------------------------------------------------
/// dst (1 channel) = gray of src (1, 3 or 4 channels; gray input is copied).
void gray_rows(const ConstImageView& src, const ImageView& dst, RowRange rows,
               Loops loops = Loops::simd);

/// gray_rows, and the counts of the gray values written added to `hist`: each row is
/// counted while it is still in cache.
void gray_rows_counted(const ConstImageView& src, const ImageView& dst, RowRange rows,
                       HistogramBins& hist, Loops loops = Loops::simd);

/// dst = 255 where src > threshold, else 0 (src and dst 1 channel).
void threshold_rows(const ConstImageView& src, const ImageView& dst, RowRange rows, int threshold,
                    Loops loops = Loops::simd);

/// dst = lut[src] (1 channel).
void apply_lut_rows(const ConstImageView& src, const ImageView& dst, RowRange rows,
                    const std::array<std::uint8_t, 256>& lut, Loops loops = Loops::simd);

// Histograms -------------------------------------------------------------------------------
/// Adds the counts of channel `channel` of `src` over `rows` to `hist`.
void histogram_rows(const ConstImageView& src, RowRange rows, int channel, HistogramBins& hist);

/// Adds the counts of the gray values (gray_rows) of `src` over `rows` to `hist`, with no
/// gray image: each row is converted into a one-row buffer and counted there.
void gray_histogram_rows(const ConstImageView& src, RowRange rows, HistogramBins& hist,
                         Loops loops = Loops::simd);

/// Adds the counts of the YCrCb luma of an RGB(A) `src` over `rows` to `hist`.
void luma_histogram_rows(const ConstImageView& src, RowRange rows, HistogramBins& hist,
                         Loops loops = Loops::simd);

/// Colour equalization: Y of YCrCb through `lut`, converted back; alpha copied.
void equalize_color_rows(const ConstImageView& src, const ImageView& dst, RowRange rows,
                         const std::array<std::uint8_t, 256>& lut, Loops loops = Loops::simd);

// Neighbourhood filters --------------------------------------------------------------------
// Variants: direct (25 taps per sample) and lut (25 table look-ups) are the simple ones;
// separable (a 16-bit row pass, then a column pass over a ring of five rows) is the fast one.
// `loops`: separable's row and column loops (direct and lut have plain loops only).
// weights must come from gaussian_weights (non-negative, summing to 256).
void gaussian5x5_direct_rows(const ConstImageView& src, const ImageView& dst, RowRange rows,
                             const GaussianWeights& weights, BorderMode border);
void gaussian5x5_lut_rows(const ConstImageView& src, const ImageView& dst, RowRange rows,
                          const GaussianLut& lut, BorderMode border);
void gaussian5x5_separable_rows(const ConstImageView& src, const ImageView& dst, RowRange rows,
                                const GaussianWeights& weights, BorderMode border,
                                Loops loops = Loops::simd);

/// src and dst 1 channel. The fast version: a branch-free interior loop, the first and last
/// column apart.
void sobel_rows(const ConstImageView& src, const ImageView& dst, RowRange rows, BorderMode border,
                SobelOutput output, Loops loops = Loops::simd);
/// The simple version (padded row copies, every pixel alike), kept as variant "naive".
void sobel_naive_rows(const ConstImageView& src, const ImageView& dst, RowRange rows,
                      BorderMode border, SobelOutput output);

/// The fast version, like sobel_rows.
void sharpen_rows(const ConstImageView& src, const ImageView& dst, RowRange rows, BorderMode border,
                  Loops loops = Loops::simd);
/// The simple version, kept as variant "naive".
void sharpen_naive_rows(const ConstImageView& src, const ImageView& dst, RowRange rows,
                        BorderMode border);

// Morphology -------------------------------------------------------------------------------
using parfilter::MorphOp;  // the spec's, filter_math.hpp

/// How morphology_rows computes. Every method gives the same bytes.
enum class MorphMethod : std::uint8_t {
  naive,      ///< every element pixel for every output pixel
  separable,  ///< a column pass then a row pass, each a plain min/max over its window
  vhgw,       ///< van Herk/Gil-Werman passes: about three min/max per sample, any size
  fastest,    ///< per pass, the cheaper of the two above for its window length
};

/// One erosion or dilation with `se`; pixels outside the image are ignored. Alpha of a
/// 4-channel image is copied. src must address rows widened by the element's anchor offsets.
/// separable, vhgw and fastest split a non-rect element into rectangles (the rows of each
/// distinct span, see docs/CPU_KERNELS.md) and combine their results.
void morphology_rows(const ConstImageView& src, const ImageView& dst, RowRange rows,
                     const StructuringElement& se, MorphOp op, MorphMethod method,
                     Loops loops = Loops::simd);

/// morphology_rows with MorphMethod::fastest.
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
void pool2x2_rows(const ConstImageView& src, const ImageView& dst, RowRange rows,
                  Loops loops = Loops::simd);

}  // namespace parfilter::kernels
