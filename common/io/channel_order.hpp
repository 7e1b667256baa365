// Internal: BMP's blue-first pixel order to and from Image's red-first, a row at a time. Each
// loop is compiled for AVX2 and for the baseline and picked by the loader (an ifunc), as the
// CPU kernels are: the byte shuffles vectorize only with SSSE3 and up.
#pragma once

#include <cstddef>
#include <cstdint>

namespace parfilter::io {

/// Swaps bytes 0 and 2 of each 3-byte pixel: BGR to RGB and back.
void swap_red_blue_3(const std::uint8_t* in, std::uint8_t* out, std::size_t pixels);
/// Swaps bytes 0 and 2 of each 4-byte pixel, keeping byte 3 (alpha).
void swap_red_blue_4(const std::uint8_t* in, std::uint8_t* out, std::size_t pixels);
/// 4-byte BGRX pixels to 3-byte RGB (the unused or alpha byte dropped).
void bgrx_to_rgb(const std::uint8_t* in, std::uint8_t* out, std::size_t pixels);

}  // namespace parfilter::io
