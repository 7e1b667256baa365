// The luma row of RGB(A) pixels, shared by gray, the histograms and colour equalization
// (row_kernels_luma.cpp): the one kernel behind gray's conversion and the YCrCb Y.
#pragma once

#include <cstdint>

#include "filter_math.hpp"

namespace parfilter::kernels::detail {

/// A luma (wr R + wg G + wb B + 2^(shift-1)) >> shift of RGB(A) pixels: gray (Q15) and the
/// Y of YCrCb (Q14). Every weight is below 2^15 (the vector paths multiply signed 16-bit).
struct LumaWeights {
  int r, g, b, shift;
};
inline constexpr LumaWeights kGrayWeights{kGrayR, kGrayG, kGrayB, kGrayShift};
inline constexpr LumaWeights kYcrcbWeights{ycrcb::kR2Y, ycrcb::kG2Y, ycrcb::kB2Y, ycrcb::kShift};

/// out[x] = the luma of pixel x of a row of `channels` (3 or 4) interleaved channels.
void rgb_luma_row(const std::uint8_t* in, std::uint8_t* out, int width, int channels,
                  LumaWeights w);

/// Colour equalization of the first pixels of an RGB row (3 channels), given each pixel's
/// YCrCb luma and its equalized luma: the exact round trip of equalize_color_rows, vectorized
/// where the CPU has AVX2 (row_kernels_ycrcb.cpp). Returns how many pixels it wrote (a
/// multiple of the vector width, 0 without AVX2); the caller finishes the row.
int equalize_rgb_vector(const std::uint8_t* in, const std::uint8_t* luma,
                        const std::uint8_t* new_luma, std::uint8_t* out, int width);

}  // namespace parfilter::kernels::detail
