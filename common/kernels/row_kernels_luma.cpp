// The luma row of RGB(A) pixels (row_kernels_luma.hpp): the SIMD loop (simd_point.cpp) over
// the leading pixels, then the plain loop, the reference, over the rest (all of the row for
// Loops::plain). Both compute the same integer expression, so both give the same bytes.
#include "row_kernels_luma.hpp"

#include <cstddef>

#include "row_kernels_internal.hpp"
#include "simd_kernels.hpp"

namespace parfilter::kernels::detail {
namespace {

/// out[x] = the luma of pixel x of an RGB(A) row of C channels, from pixel `x` on. GCC
/// vectorizes the RGBA loop (a whole-pixel stride); RGB's stride of 3 it does not.
template <int C>
PARFILTER_VECTOR_CLONES void luma_row(const std::uint8_t* in, std::uint8_t* out, int x, int width,
                                      LumaWeights w) {
  const int round = 1 << (w.shift - 1);
  for (; x < width; ++x) {
    const std::uint8_t* px = in + static_cast<std::ptrdiff_t>(x) * C;
    out[x] =
        static_cast<std::uint8_t>((w.r * px[0] + w.g * px[1] + w.b * px[2] + round) >> w.shift);
  }
}

}  // namespace

void rgb_luma_row(const std::uint8_t* in, std::uint8_t* out, int width, int channels, LumaWeights w,
                  Loops loops) {
  const int x =
      uses_simd(loops) ? simd::luma_row(in, out, width, channels, w, output_store(loops)) : 0;
  if (channels == kRgbChannels) {
    luma_row<kRgbChannels>(in, out, x, width, w);
  } else {
    luma_row<kRgbChannels + 1>(in, out, x, width, w);
  }
}

}  // namespace parfilter::kernels::detail
