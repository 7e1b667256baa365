// The luma row of RGB(A) pixels, shared by gray, the histograms and colour equalization
// (row_kernels_luma.cpp): the one kernel behind gray's conversion and the YCrCb Y.
#pragma once

#include <cstdint>

#include "filter_math.hpp"
#include "row_kernels.hpp"

namespace parfilter::kernels::detail {

/// A luma (wr R + wg G + wb B + 2^(shift-1)) >> shift of RGB(A) pixels: gray (Q15) and the
/// Y of YCrCb (Q14). Every weight is below 2^15 (the vector paths multiply signed 16-bit).
struct LumaWeights {
  int r, g, b, shift;
};
inline constexpr LumaWeights kGrayWeights{kGrayR, kGrayG, kGrayB, kGrayShift};
inline constexpr LumaWeights kYcrcbWeights{ycrcb::kR2Y, ycrcb::kG2Y, ycrcb::kB2Y, ycrcb::kShift};

/// out[x] = the luma of pixel x of a row of `channels` (3 or 4) interleaved channels.
void rgb_luma_row(const std::uint8_t* in, std::uint8_t* out, int width, int channels, LumaWeights w,
                  Loops loops);

}  // namespace parfilter::kernels::detail
