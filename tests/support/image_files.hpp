// Builders of image files byte by byte, for tests of the loader on layouts no encoder writes:
// any PNG chunk sequence (stored deflate blocks), BMP and TGA headers with any field, EXIF
// orientation in a JPEG.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "parfilter/image_io.hpp"

namespace parfilter::test::files {

using Bytes = std::vector<std::uint8_t>;

/// LoadOptions with the size limit set, everything else default.
[[nodiscard]] inline LoadOptions limited_to(std::uint64_t max_bytes) {
  LoadOptions options;
  options.max_bytes = max_bytes;
  return options;
}

void write_bytes(const std::filesystem::path& path, const Bytes& bytes);
void write_text(const std::filesystem::path& path, const std::string& text);
[[nodiscard]] Bytes read_bytes(const std::filesystem::path& path);

void put_le16(Bytes& out, std::uint32_t v);
void put_le32(Bytes& out, std::uint32_t v);
void put_be32(Bytes& out, std::uint32_t v);

/// CRC-32 as PNG chunks use it.
[[nodiscard]] std::uint32_t crc32(const Bytes& bytes);
/// A zlib stream of stored (uncompressed) deflate blocks.
[[nodiscard]] Bytes zlib_stored(const Bytes& raw);
/// Appends length, type, data and CRC.
void put_chunk(Bytes& png, const std::string& type, const Bytes& data);

enum PngColor : std::uint8_t { kGray = 0, kRgb = 2, kPalette = 3, kGrayAlpha = 4, kRgba = 6 };

/// A PNG: IHDR, PLTE and tRNS when given, one IDAT (when `rows` is not empty), IEND. `rows`
/// holds each row's packed samples; filter bytes (none) are added here.
[[nodiscard]] Bytes make_png(std::uint32_t width, std::uint32_t height, int bit_depth,
                             PngColor color, const std::vector<Bytes>& rows,
                             const Bytes& palette = {}, const Bytes& trns = {});

/// A 24-bit bottom-up BMP header (BITMAPINFOHEADER), optionally followed by pixel bytes.
[[nodiscard]] Bytes make_bmp(std::int32_t width, std::int32_t height, const Bytes& pixels = {});

/// An uncompressed true-colour TGA (type 2), origin at the top left when `top_down`.
[[nodiscard]] Bytes make_tga(std::uint16_t width, std::uint16_t height, int bits, bool top_down,
                             const Bytes& pixels);

/// A gray 8-bit JPEG whose every block codes the largest DC difference, +32767 (category 15,
/// which both libjpeg-turbo and stb_image accept), with a DC quantizer of 255: the DC predictor
/// passes INT_MAX after 65539 blocks (the CVE-2022-28041 class of stb_image 2.27). Baseline
/// (SOF0: a DC and an AC table, every block ending at once), or progressive (SOF2: a single
/// first DC scan, no AC scan).
[[nodiscard]] Bytes make_dc_overflow_jpeg(std::uint16_t width, std::uint16_t height,
                                          bool progressive);

/// `jpeg` with an APP1 Exif segment right after SOI whose TIFF IFD0 holds one entry, the
/// orientation tag (0x0112, SHORT) with `value`; `type` and `count` may be made wrong.
[[nodiscard]] Bytes with_exif_orientation(const Bytes& jpeg, int value, bool big_endian = false,
                                          std::uint16_t type = 3, std::uint32_t count = 1);

}  // namespace parfilter::test::files
