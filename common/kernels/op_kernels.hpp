// One pass of an op over a range of rows, shared by every CPU backend: the row kernel an op
// (and its variant) runs, its prepared tables, and the rows it reads around its output rows.
// cpu_backend.cpp runs passes over the whole image split by its scheduler; the MPI backend
// runs the same passes over each rank's block, whose input view addresses only that block
// and its halo.
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <string_view>
#include <vector>

#include "filter_math.hpp"
#include "parfilter/image.hpp"
#include "parfilter/op_set.hpp"
#include "row_kernels.hpp"
#include "row_scheduler.hpp"

namespace parfilter {

/// The CPU variant names (cpu_variants lists them per op, the default first).
inline constexpr std::string_view kDefaultVariant = "default";
inline constexpr std::string_view kGaussianDirect = "direct";
inline constexpr std::string_view kGaussianLut = "lut";
inline constexpr std::string_view kGaussianSeparable = "separable";
/// The simple version of an op whose default is a fast kernel (sobel, sharpen, morphology).
inline constexpr std::string_view kNaiveVariant = "naive";
/// Every op: the default's kernels with their plain C++ loops alone, no SIMD loops (the
/// reference the SIMD loops are checked against; gaussian: the separable kernel's).
inline constexpr std::string_view kScalarVariant = "scalar";
/// Morphology: a row pass, then a column pass (non-rect elements: their row decomposition).
inline constexpr std::string_view kMorphologySeparable = "separable";
/// Morphology: van Herk/Gil-Werman passes, whose cost does not grow with the element.
inline constexpr std::string_view kMorphologyVhgw = "vhgw";

/// How a pass writes its output rows (the same bytes either way).
enum class Writes : std::uint8_t {
  cached,    ///< ordinary stores: the rows are read again soon (an intermediate, a band)
  streamed,  ///< streaming stores where the SIMD loops can: a large output (Loops::simd_stream)
};

/// `loops` with streaming output stores where `writes` asks for them.
[[nodiscard]] constexpr kernels::Loops streamed(kernels::Loops loops, Writes writes) {
  return loops == kernels::Loops::simd && writes == Writes::streamed ? kernels::Loops::simd_stream
                                                                     : loops;
}

/// Rows above and below an output row that a pass reads.
struct RowHalo {
  int above = 0;
  int below = 0;
};

/// The loops a variant runs: the plain ones for kScalarVariant, else the SIMD ones.
[[nodiscard]] constexpr kernels::Loops loops_for(std::string_view variant) {
  return variant == kScalarVariant ? kernels::Loops::plain : kernels::Loops::simd;
}

/// `rows` widened by `halo`, clipped to [0, height).
[[nodiscard]] RowRange widen(RowRange rows, RowHalo halo, int height);

/// One pass of an op: output rows computed from the input rows around them.
struct RowPass {
  RowHalo halo;
  /// Computes output rows `rows` of dst; src addresses at least widen(rows, halo, height).
  std::function<void(const ConstImageView& src, const ImageView& dst, RowRange rows, Writes writes)>
      kernel;

  /// Runs the kernel over `rows` split into the scheduler's blocks; each block's kernel sees
  /// only its rows and their halo, so one that strays trips the view's bounds assertion.
  void run(RowScheduler& scheduler, const ConstImageView& src, const ImageView& dst, RowRange rows,
           Writes writes = Writes::cached) const;
};

// Point passes (no halo) -------------------------------------------------------------------
// `variant` (empty: the default): kScalarVariant runs the plain loops alone.
/// dst (1 channel) = gray of src.
[[nodiscard]] RowPass gray_pass(std::string_view variant = {});
/// dst = 255 where src (gray) > threshold, else 0.
[[nodiscard]] RowPass threshold_pass(int threshold, std::string_view variant = {});
/// equalize: lut applied to a gray src, or to the YCrCb luma of a colour src (alpha copied).
[[nodiscard]] RowPass equalize_pass(int channels, const std::array<std::uint8_t, 256>& lut,
                                    std::string_view variant = {});

// Neighbourhood passes ---------------------------------------------------------------------
/// gaussian with params.sigma, params.border and params.variant (empty: the default);
/// throws UsageError for a variant cpu_variants(Op::gaussian) does not list.
[[nodiscard]] RowPass gaussian_pass(const OpParams& params);
/// sobel gradients of a gray plane, with params.border, params.sobel_output and
/// params.variant (empty or "default": the fast kernel; "naive").
[[nodiscard]] RowPass sobel_pass(const OpParams& params);
/// sharpen with params.border and params.variant, like sobel_pass.
[[nodiscard]] RowPass sharpen_pass(const OpParams& params);
/// One erosion or dilation with `se`, by `variant` (empty: the default; see cpu_variants).
[[nodiscard]] RowPass morphology_pass(const StructuringElement& se, kernels::MorphOp step,
                                      std::string_view variant = {});
/// segment --adaptive on a gray plane: params.window, params.min_contrast, and the global
/// threshold that flat windows use.
[[nodiscard]] RowPass adaptive_segment_pass(const OpParams& params, int global_threshold);

// Histograms -------------------------------------------------------------------------------
/// Adds the counts of `rows` to `hist`.
using HistogramCount = std::function<void(RowRange rows, HistogramBins& hist)>;

/// The counts of `rows`, one histogram per scheduler block (no shared counters), merged.
[[nodiscard]] HistogramBins count_rows(RowScheduler& scheduler, RowRange rows,
                                       const HistogramCount& count);

/// What equalize histograms: the gray values of a gray src, the YCrCb luma of a colour one.
[[nodiscard]] HistogramCount equalize_count(const ConstImageView& src,
                                            std::string_view variant = {});

/// Adds histogram `from` into `into`.
void add_histogram(HistogramBins& into, const HistogramBins& from);

}  // namespace parfilter
