// Morphology internals shared by row_kernels_morphology.cpp (the pass pipeline, the naive and
// plain separable passes) and row_kernels_morphology_vhgw.cpp (the van Herk/Gil-Werman
// passes). docs/CPU_KERNELS.md describes the design.
#pragma once

#include <cstdint>
#include <vector>

#include "filter_math.hpp"
#include "parfilter/image.hpp"
#include "row_kernels.hpp"
#include "simd_kernels.hpp"

namespace parfilter::kernels::detail {

/// Erosion's combine and the value an ignored (outside) pixel stands for.
struct MinOp {
  static constexpr MorphOp kOp = MorphOp::erode;
  static constexpr std::uint8_t kNeutral = 255;
  static std::uint8_t apply(std::uint8_t a, std::uint8_t b) { return a < b ? a : b; }
};
/// Dilation's.
struct MaxOp {
  static constexpr MorphOp kOp = MorphOp::dilate;
  static constexpr std::uint8_t kNeutral = 0;
  static std::uint8_t apply(std::uint8_t a, std::uint8_t b) { return a > b ? a : b; }
};

/// out[i] = op(a[i], b[i]) for i < n; out may be a or b. One whole-row vector loop: the SIMD
/// one over the leading part (Loops::simd), then the plain one. `store`: how the SIMD loop
/// stores (a final output row: alpha put back, streaming), alpha put back by both.
template <typename Op>
void combine(const std::uint8_t* a, const std::uint8_t* b, std::uint8_t* out, std::size_t n,
             Loops loops, const simd::RowStore& store = {});

/// out[i] = op(a[i], b[i], c[i]) for i < n; out may be a, b or c. Two combines in one pass:
/// half the loads and stores of combine twice.
template <typename Op>
void combine3(const std::uint8_t* a, const std::uint8_t* b, const std::uint8_t* c,
              std::uint8_t* out, std::size_t n, Loops loops, const simd::RowStore& store = {});

/// Rows a horizontal van Herk/Gil-Werman batch handles at once: one vector lane per row
/// after a byte transpose.
inline constexpr int kVhgwLanes = 16;

/// The source rows of a column pass: src's rows restricted to `bytes` samples from sample
/// `first`, or a row of the neutral value for rows outside the image (ignored pixels).
class SourceRows {
 public:
  SourceRows(const ConstImageView& src, std::ptrdiff_t first, std::size_t bytes,
             std::uint8_t neutral)
      : src_(src), first_(first), neutral_row_(bytes, neutral) {}

  [[nodiscard]] const std::uint8_t* row(int y) const {
    if (y < 0 || y >= src_.height()) return neutral_row_.data();
    return src_.row(y) + first_;
  }
  [[nodiscard]] std::size_t bytes() const { return neutral_row_.size(); }

 private:
  ConstImageView src_;
  std::ptrdiff_t first_;
  std::vector<std::uint8_t> neutral_row_;
};

/// The column pass by van Herk/Gil-Werman: for consecutive output rows y = first_row, ...,
/// next() gives op over source rows [y + dy, y + dy + height). Rows are grouped in segments
/// of `height` window starts; a window is the suffix of one segment and the prefix of the
/// next, so each output row costs one suffix row (amortized), one prefix row and one combine.
template <typename Op>
class ColumnVhgw {
 public:
  ColumnVhgw(const SourceRows& rows, int first_row, int dy, int height, Loops loops);
  void next(std::uint8_t* out);

 private:
  const SourceRows& rows_;
  int first_start_;  ///< source row of the first window's start
  int height_;
  Loops loops_;
  int index_ = 0;                             ///< output rows produced so far
  std::vector<std::uint8_t> suffix_;          ///< height - 1 rows: suffix op of the current segment
  std::vector<std::uint8_t> prefix_;          ///< running prefix op of the next segment
  const std::uint8_t* last_row_ = nullptr;    ///< the segment's last row: its own suffix
  const std::uint8_t* prefix_row_ = nullptr;  ///< the prefix: prefix_ or a source row
};

/// The row pass by van Herk/Gil-Werman over kVhgwLanes rows at once: out[lane] pixel x =
/// op over padded pixels [x, x + window) of padded[lane], for x in [0, width). Each padded
/// row holds padded_pixels pixels, a multiple of window and at least width + window - 1.
/// The rows are byte-transposed so that the prefix/suffix recurrences, which run along a
/// row, become vector operations across the lanes. `scratch` is resized as needed.
template <typename Op>
void row_vhgw(const std::uint8_t* const* padded, std::uint8_t* const* out, int width, int channels,
              int window, int padded_pixels, std::vector<std::uint8_t>& scratch);

}  // namespace parfilter::kernels::detail
