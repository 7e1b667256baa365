// Internal to pnm.cpp (whole images) and pnm_stream.cpp (rows): the binary PNM (P5/P6) header
// and samples, one implementation for both.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>

#include "parfilter/image.hpp"

namespace parfilter::io {

struct PnmHeader {
  std::uint64_t width = 0;
  std::uint64_t height = 0;
  int channels = 0;  // 1 (P5) or 3 (P6)
  std::uint32_t max_value = 0;
  int bytes_per_sample = 0;  // 1, or 2 (big-endian) when maxval > 255
  std::uint64_t data_offset = 0;
};

/// Parses a binary PNM (P5/P6) header: magic, then width, height and maxval separated by
/// whitespace or '#' comments, then one whitespace byte. Returns the header or the cause
/// ("truncated PNM header" when `bytes` ends inside it).
[[nodiscard]] std::optional<std::string> parse_pnm_header(std::span<const std::uint8_t> bytes,
                                                          PnmHeader& header);

/// Why a file of `file_size` bytes cannot hold the header's pixels, if so.
[[nodiscard]] std::optional<std::string> check_pnm_data(const PnmHeader& header,
                                                        std::uint64_t file_size);

/// Converts `count` samples as stored to the image's: maxval up to 255 gives 8-bit samples
/// scaled to 0..255 (255 as is, any other maxval as round(255 v / maxval)); a larger maxval
/// gives 16-bit host-order samples as stored (12-bit data stays 0..4095). v is clamped to
/// maxval.
void convert_pnm_samples(const std::uint8_t* in, std::size_t count, const PnmHeader& header,
                         std::uint8_t* out);

/// The header encode_pnm writes: P5 (gray) or P6 (RGB), maxval 255 or 65535 by the depth.
[[nodiscard]] std::string pnm_header_text(int width, int height, int channels, Depth depth);
/// InputError for an RGBA image, which PNM cannot hold.
void check_pnm_channels(int channels, const std::string& name);
/// `count` 16-bit samples as PNM stores them, big-endian, into `out` (2 count bytes).
void pnm_big_endian_row(const std::uint16_t* samples, std::ptrdiff_t count, std::uint8_t* out);

}  // namespace parfilter::io
