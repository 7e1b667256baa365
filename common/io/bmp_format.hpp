// Internal: the BMP header parser (bmp_format.cpp) and the general decoder (bmp_decode.cpp):
// every bit depth, RLE8/RLE4, bit fields, palettes in any file, V2 to V5 and OS/2 headers.
// bmp.cpp takes the common layouts (24 and 32 bits, 8-bit palettes) by faster paths. Every read
// is bounds-checked against the file's bytes.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <variant>
#include <vector>

#include "codecs.hpp"
#include "parfilter/image.hpp"

namespace parfilter::io {

/// The compression field of a Windows BMP info header.
enum class BmpCompression : std::uint32_t {
  rgb = 0,
  rle8 = 1,
  rle4 = 2,
  bitfields = 3,
  alpha_bitfields = 6,
};

/// Bit masks of a 16- or 32-bit BMP, in the order red, green, blue, alpha (0: absent).
using BmpMasks = std::array<std::uint32_t, 4>;

struct BmpColor {
  std::uint8_t red = 0;
  std::uint8_t green = 0;
  std::uint8_t blue = 0;
};

/// Everything needed to decode a BMP, validated against the file's size.
struct BmpLayout {
  int width = 0;
  int height = 0;
  bool top_down = false;
  int bits_per_pixel = 0;
  BmpCompression compression = BmpCompression::rgb;
  std::uint64_t pixel_offset = 0;
  BmpMasks masks{};
  std::vector<BmpColor> palette;  // for 1/2/4/8 bits per pixel; at most 2^bits entries

  /// 4 when the file has an alpha mask, else 3 (palettes and the unused byte of a 32-bit
  /// BI_RGB file carry no alpha).
  [[nodiscard]] int channels() const { return masks[3] != 0 ? 4 : 3; }
  [[nodiscard]] bool run_length_encoded() const {
    return compression == BmpCompression::rle8 || compression == BmpCompression::rle4;
  }
};

/// Bytes per stored row of an uncompressed BMP: rows are padded to a multiple of 4 bytes.
[[nodiscard]] std::uint64_t bmp_row_stride(const BmpLayout& layout);
/// Bytes of a stored row's pixels alone, without its padding (which the last row may lack).
[[nodiscard]] std::uint64_t bmp_row_pixel_bytes(const BmpLayout& layout);

/// Parses and validates the headers, palette and masks. Returns the layout or the cause of
/// rejection (a short phrase without the file name).
[[nodiscard]] std::variant<BmpLayout, std::string> parse_bmp(std::span<const std::uint8_t> bytes);

/// Checks that the pixel data is present: every row of an uncompressed file (the last row's
/// padding may be missing), at least one byte of an RLE stream. Returns the cause of a failure.
[[nodiscard]] std::optional<std::string> check_bmp_pixel_data(std::uint64_t file_size,
                                                              const BmpLayout& layout);

/// Decodes the pixels described by `layout` (which check_bmp_pixel_data accepted) into an image
/// with layout.channels() channels. Pixels an RLE stream never writes get palette index 0; palette
/// indices past the end of the palette give black. The caller has checked the size limit. Returns
/// the image or the cause.
[[nodiscard]] std::variant<Image, std::string> decode_bmp(std::span<const std::uint8_t> bytes,
                                                          const BmpLayout& layout);

}  // namespace parfilter::io
