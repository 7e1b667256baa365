// Steps that several CPU ops share (ops/<op>.cpp): a pass over the whole image into a new one,
// the gray plane of an input, the thresholding ops' phases, morphology's chain of passes.
// A multi-phase op runs one for_each_block per phase; its return is the barrier between them.
#pragma once

#include <array>
#include <utility>

#include "cpu_op.hpp"
#include "filter_math.hpp"

namespace parfilter {

/// An op's output that is an image alone.
[[nodiscard]] inline OpOutput image_output(Image image) {
  OpOutput output;
  output.image = std::move(image);
  return output;
}

/// Every row of `input`.
[[nodiscard]] RowRange all_rows(const ConstImageView& input);

/// How a pass writes `out`, an op's output (not an intermediate read back): streamed from
/// kStreamMinBytes (or PARFILTER_STREAM_MIN_BYTES) on.
[[nodiscard]] Writes output_writes(const Image& out);

/// An image of `channels` the input's size, with `pass` run over all its rows. Every pass
/// writes every sample of its rows, so the output starts uninitialized: no serial zero-fill,
/// and each block first-touches its own rows' pages.
[[nodiscard]] Image run_pass(const CpuOpContext& context, const RowPass& pass,
                             const ConstImageView& src, int channels);

/// The gray plane of an input: the input itself when it is gray, else a converted copy.
/// With `hist`, also counts the gray values, fused into the same pass.
struct GrayPlane {
  Image storage;
  ConstImageView view;
};
[[nodiscard]] GrayPlane gray_plane(const CpuOpContext& context, const ConstImageView& input,
                                   std::string_view variant, HistogramBins* hist = nullptr);

/// A single-pass op (CpuOp::single_pass) over the whole image.
[[nodiscard]] OpOutput run_single_pass(const CpuOpContext& context, Op op,
                                       const ConstImageView& input, const OpParams& params);

/// otsu and segment: gray and its histogram, a global threshold, then global or adaptive.
[[nodiscard]] OpOutput run_thresholding(const CpuOpContext& context, Op op,
                                        const ConstImageView& input, const OpParams& params);

/// erode, dilate, open, close: morphology_steps(op) in turn (a pair fused band by band).
[[nodiscard]] Image run_morphology(const CpuOpContext& context, Op op, const ConstImageView& input,
                                   const OpParams& params);
/// A morphology op's halo: every step's in turn.
[[nodiscard]] RowHalo morphology_halo(Op op, const OpParams& params);

/// The variants of an op with only its SIMD default and the plain loops.
inline constexpr std::array kDefaultAndScalar{kDefaultVariant, kScalarVariant};
/// sobel's and sharpen's: their fast default, the plain loops, the direct 3x3 loop.
inline constexpr std::array kFilterVariants{kDefaultVariant, kScalarVariant, kNaiveVariant};
/// The morphology ops'.
inline constexpr std::array kMorphologyVariants{kDefaultVariant, kScalarVariant, kMorphologyVhgw,
                                                kMorphologySeparable, kNaiveVariant};

/// The CpuOp of a thresholding op, `op` (otsu, segment): run_thresholding.
template <Op op>
[[nodiscard]] constexpr CpuOp thresholding_cpu_op(std::string_view name) {
  return {
      .name = name,
      .variants = kDefaultAndScalar,
      .run = [](const CpuOpContext& context, const ConstImageView& input, const OpParams& params) {
        return run_thresholding(context, op, input, params);
      }};
}

/// The CpuOp of a morphology op, `op` (erode, dilate, open, close): run_morphology, with
/// morphology_halo.
template <Op op>
[[nodiscard]] constexpr CpuOp morphology_cpu_op(std::string_view name) {
  return {.name = name,
          .variants = kMorphologyVariants,
          .run =
              [](const CpuOpContext& context, const ConstImageView& input, const OpParams& params) {
                return image_output(run_morphology(context, op, input, params));
              },
          .halo = [](const OpParams& params) { return morphology_halo(op, params); }};
}

}  // namespace parfilter
