// Internal: the EXIF orientation of a JPEG (its APP1 "Exif" segment, TIFF tag 0x0112) and
// turning an image upright by it. One 16-bit field is all parfilter reads of EXIF, so a small
// bounds-checked reader does it rather than a whole EXIF library (docs/IO.md).
#pragma once

#include <cstdint>
#include <span>

#include "parfilter/image.hpp"

namespace parfilter::io {

/// EXIF orientations 1 to 8: how the stored pixels must be turned to be upright.
inline constexpr int kOrientationUpright = 1;
inline constexpr int kOrientationLast = 8;

/// The orientation in an APP1 segment's payload (starting "Exif\0\0"), or kOrientationUpright
/// when there is none or the payload is malformed.
[[nodiscard]] int exif_orientation(std::span<const std::uint8_t> app1);

/// The orientation of a JPEG file: that of its first APP1 segment before the first scan whose
/// payload gives one other than upright (as libjpeg-turbo's saved markers give it, for the
/// stb path); kOrientationUpright when there is none.
[[nodiscard]] int jpeg_exif_orientation(std::span<const std::uint8_t> jpeg);

/// Whether `orientation` swaps width and height (5 to 8: a quarter turn).
[[nodiscard]] constexpr bool swaps_sides(int orientation) { return orientation >= 5; }

/// `image` turned upright: 2 mirror, 3 half turn, 4 flip, 5 transpose, 6 quarter turn
/// clockwise, 7 transverse, 8 quarter turn counter-clockwise.
[[nodiscard]] Image apply_orientation(Image image, int orientation);

}  // namespace parfilter::io
