// The spec's loops (docs/FILTERS.md) in row-range form, templated on the sample type: plain
// per-pixel code, written for obviousness. reference::run runs them over every row at once;
// a CPU backend at a depth its tuned kernels lack runs the same loops over its own row
// blocks (run_scheduled), so that the algorithm is written once and only the schedule
// differs. Each function computes output rows `rows`; inputs address the rows it reads.
#pragma once

#include <algorithm>
#include <cstdint>
#include <functional>
#include <span>
#include <utility>
#include <vector>

#include "filter_math.hpp"
#include "parfilter/image.hpp"
#include "parfilter/op_set.hpp"

namespace parfilter::reference {

template <typename Sample>
using In = BasicImageView<const Sample>;
template <typename Sample>
using Out = BasicImageView<Sample>;

/// The levels of a sample type: 256 or 65536.
template <typename Sample>
inline constexpr int kLevels = 1 << (8 * sizeof(Sample));

/// `histograms` (kLevels<Sample> bins each) as an op's histogram result: HistogramBins at
/// 8 bits, the counts as they are (OpOutput::wide_histogram) at 16.
template <typename Sample>
void set_histograms(OpOutput& output, std::vector<std::vector<std::uint64_t>> histograms) {
  if constexpr (kDepthOf<Sample> == Depth::u8) {
    for (const std::vector<std::uint64_t>& hist : histograms) {
      HistogramBins bins{};
      std::copy(hist.begin(), hist.end(), bins.begin());
      output.histogram.push_back(bins);
    }
  } else {
    output.wide_histogram = std::move(histograms);
  }
}

template <typename Sample>
void gray_rows(In<Sample> in, Out<Sample> out, RowRange rows);
template <typename Sample>
void gaussian_rows(In<Sample> in, Out<Sample> out, RowRange rows, const GaussianWeights& weights,
                   BorderMode border);
template <typename Sample>
void sobel_rows(In<Sample> gray, Out<Sample> out, RowRange rows, BorderMode border,
                SobelOutput output);
template <typename Sample>
void sharpen_rows(In<Sample> in, Out<Sample> out, RowRange rows, BorderMode border);

/// Adds the counts of channel `channel` over `rows` to `hist` (kLevels bins).
template <typename Sample>
void histogram_rows(In<Sample> in, int channel, RowRange rows, std::span<std::uint64_t> hist);
/// Adds the counts of the YCrCb luma of an RGB(A) image.
template <typename Sample>
void luma_histogram_rows(In<Sample> in, RowRange rows, std::span<std::uint64_t> hist);
/// out = lut[in] (1 channel).
template <typename Sample>
void lut_rows(In<Sample> in, Out<Sample> out, RowRange rows, std::span<const std::uint16_t> lut);
/// Y of YCrCb through `lut`, converted back; alpha copied.
template <typename Sample>
void equalize_color_rows(In<Sample> in, Out<Sample> out, RowRange rows,
                         std::span<const std::uint16_t> lut);
/// out = T where gray > t, else 0.
template <typename Sample>
void threshold_rows(In<Sample> gray, Out<Sample> out, RowRange rows, int t);
/// Each pixel against the isodata threshold of its window (clipped to the image), or against
/// `global_t` where the window's max - min < min_contrast. gray addresses rows widened by
/// window / 2.
template <typename Sample>
void adaptive_segment_rows(In<Sample> gray, Out<Sample> out, RowRange rows, int window,
                           int min_contrast, int global_t);
/// One erosion or dilation: min (max) over the set element pixels inside the image.
template <typename Sample>
void morphology_rows(In<Sample> in, Out<Sample> out, RowRange rows, const StructuringElement& se,
                     MorphOp morph);
/// Output rows `rows` of the 2x2 max pool.
template <typename Sample>
void pool_rows(In<Sample> in, Out<Sample> out, RowRange rows);

/// Runs fn(range, block) on disjoint ranges covering [0, rows), block < blocks, and returns
/// when all have: a backend's scheduler, or one block on the calling thread.
struct RowBlocks {
  int blocks = 1;
  std::function<void(int rows, const std::function<void(RowRange, int)>& fn)> for_each;
};

/// The blocks of the reference: every row at once, on the calling thread.
[[nodiscard]] RowBlocks one_block();

/// Faster loops a backend puts in place of the spec's own for 16-bit images, each computing
/// the same output rows from the same inputs, bit for bit (null: the spec's loop).
struct TunedRows {
  void (*gaussian)(In<std::uint16_t>, Out<std::uint16_t>, RowRange, const GaussianWeights&,
                   BorderMode) = nullptr;
  void (*morphology)(In<std::uint16_t>, Out<std::uint16_t>, RowRange, const StructuringElement&,
                     MorphOp) = nullptr;
  void (*sobel)(In<std::uint16_t>, Out<std::uint16_t>, RowRange, BorderMode, SobelOutput) = nullptr;
  void (*sharpen)(In<std::uint16_t>, Out<std::uint16_t>, RowRange, BorderMode) = nullptr;
};

/// `op` on `input` (either depth) by the loops above over `schedule`'s blocks, with `tuned`'s
/// loops in place of theirs at 16 bits. Every op's output has the input's depth.
[[nodiscard]] OpOutput run_scheduled(Op op, const Image& input, const OpParams& params,
                                     const RowBlocks& schedule, const TunedRows& tuned = {});

}  // namespace parfilter::reference
