// TIFF files for the tests, in every layout the loader reads: written through libtiff itself
// (a second implementation would test only itself), and raw IFDs for the hostile cases.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "parfilter/image.hpp"

namespace parfilter::test {

/// How write_tiff lays an image out.
struct TiffLayout {
  std::string name;
  bool tiled = false;  ///< 16x16 tiles, else strips of `rows_per_strip`
  bool planar = false;
  bool big_endian = false;
  bool big_tiff = false;
  std::uint16_t compression = 1;  ///< libtiff's COMPRESSION_* value
  bool predictor = false;         ///< horizontal differencing
  std::uint32_t rows_per_strip = 3;
  int pages = 1;  ///< more: copies of the image as further pages
  bool gray_alpha = false;  ///< a 4-channel image stored as gray+alpha (its red and alpha)
};

/// Every layout above: strips and tiles, contiguous and planar, both byte orders, BigTIFF,
/// uncompressed, LZW with predictor, Deflate with predictor, PackBits and (where this libtiff
/// encodes it) ZSTD, and a multi-page file.
[[nodiscard]] std::vector<TiffLayout> tiff_layouts();

/// Writes `image` to `path` in `layout` with libtiff; false where this build has no libtiff.
bool write_tiff(const std::filesystem::path& path, const Image& image, const TiffLayout& layout);

/// One IFD entry of a hand-made TIFF: tag, type (3 SHORT, 4 LONG) and its one value, or
/// SHORTs stored after the IFD (a colormap).
struct RawTag {
  std::uint16_t tag;
  std::uint16_t type;
  std::uint32_t value;
  std::vector<std::uint16_t> shorts{};
};

/// A little-endian classic TIFF: header, `pixels` at offset 8, then one IFD of `tags`.
[[nodiscard]] std::vector<std::uint8_t> raw_tiff(const std::vector<RawTag>& tags,
                                                 const std::vector<std::uint8_t>& pixels);

}  // namespace parfilter::test
