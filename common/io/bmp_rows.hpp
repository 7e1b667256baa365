// Internal to bmp.cpp (whole images) and bmp_stream.cpp (rows): the common uncompressed
// layouts decoded row by row, and the rows and headers encode_bmp writes, one implementation
// for both paths.
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "bmp_format.hpp"

namespace parfilter::io {

/// The bytes read for the headers before the pixel rows: every header, mask and palette fits.
inline constexpr std::uint64_t kBmpHeadBytes = std::uint64_t{64} << 10;

/// Whether the row-by-row paths read this layout: uncompressed, 24-bit, 32-bit BGR(A) with
/// the standard masks, or 8 bits with every index inside the palette.
[[nodiscard]] bool direct_layout(const BmpLayout& layout);
[[nodiscard]] bool gray_palette(const BmpLayout& layout);
/// The channels a BMP decodes to: one for a palette of grays only.
[[nodiscard]] int decoded_channels(const BmpLayout& layout);
/// Rows of `row_bytes` read or written at once (at least one).
[[nodiscard]] int bmp_chunk_rows(std::uint64_t row_bytes);

/// Decodes stored rows of a direct layout into image rows of `channels` channels.
class BmpRowDecoder {
 public:
  BmpRowDecoder(const BmpLayout& layout, int channels);
  void decode(const std::uint8_t* in, std::uint8_t* out) const;

 private:
  static constexpr std::size_t kLookupBytes = 256 * 3;  // an 8-bit palette as RGB
  int width_;
  int bits_;
  int channels_;
  std::array<std::uint8_t, kLookupBytes> lookup_{};
};

/// What encode_bmp writes before the rows, and the stride of its (bottom-up) rows.
struct BmpHead {
  std::vector<std::uint8_t> bytes;
  std::uint64_t row_bytes = 0;
};
/// RuntimeError when the file would pass 4 GiB.
[[nodiscard]] BmpHead bmp_head(int width, int height, int channels);
/// An image row as encode_bmp stores it (`out`'s padding is left as it is).
void encode_bmp_row(const std::uint8_t* in, int width, int channels, std::uint8_t* out);

}  // namespace parfilter::io
