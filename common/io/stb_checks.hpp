// Internal to stb_codec.cpp (and png_spng.cpp, which runs the same PNG chunk walk): what
// parfilter reads of a PNG or TGA container before stb_image decodes it. stb reads zeros (or
// nothing) past the end of a truncated PNG or TGA and decodes it "successfully", so the data
// must be shown complete first; PNG headers are read here so that the size limit is reported
// before stb's own smaller cap.
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <initializer_list>
#include <optional>
#include <span>
#include <string>

#include "parfilter/image.hpp"

namespace parfilter::io {

inline constexpr std::size_t kPngSignatureSize = 8;

struct PngInfo {
  std::uint64_t width = 0;
  std::uint64_t height = 0;
  int channels = 0;  // as parfilter loads it: gray 1, RGB and palette 3, with alpha 4
  int samples = 1;   // stored per pixel: 1 to 4 (a palette index is 1)
  bool palette = false;
  bool transparency = false;  // a tRNS chunk
  int bit_depth = 0;
  std::optional<std::string> incomplete;  // why the chunks are cut short or unusable, if so
};

/// The product of `factors`, or UINT64_MAX where it overflows.
[[nodiscard]] inline std::uint64_t saturating_product(
    std::initializer_list<std::uint64_t> factors) {
  std::uint64_t product = 1;
  for (std::uint64_t factor : factors) {
    if (__builtin_mul_overflow(product, factor, &product)) return UINT64_MAX;
  }
  return product;
}

/// stb_image 2.27's own limits on a PNG, below parfilter's default limit: IHDR is refused when
/// width x height x samples exceeds 2^30 (a palette image counting 4 samples, its expansion),
/// and every buffer is sized in int.
inline constexpr std::uint64_t kStbPngSampleCap = std::uint64_t{1} << 30;
inline constexpr std::uint64_t kStbPaletteSamples = 4;

/// The samples stb_image's IHDR check counts.
[[nodiscard]] inline std::uint64_t stb_png_header_samples(const PngInfo& info) {
  const auto samples = info.palette ? kStbPaletteSamples : static_cast<std::uint64_t>(info.samples);
  return saturating_product({info.width, info.height, samples});
}

/// The largest buffer stb_image allocates for a PNG decoded to `channels`: the inflated rows
/// (a filter byte each), the image at the file's depth (tRNS adds an alpha sample, a palette
/// expands to RGB or RGBA), and the conversion to `channels` 8-bit samples.
[[nodiscard]] inline std::uint64_t stb_png_buffer_bytes(const PngInfo& info, int channels) {
  constexpr int kSixteenBits = 16;
  constexpr std::uint64_t kBitsPerByte = 8;
  const std::uint64_t alpha = info.transparency ? 1 : 0;
  const std::uint64_t out_samples = info.palette ? 3 + alpha : info.samples + alpha;
  const std::uint64_t sample_bytes = info.bit_depth == kSixteenBits ? 2 : 1;
  // After check_image_size: sides are at most 2^24, so nothing below overflows.
  const std::uint64_t plane_row_bytes =
      (info.width * static_cast<std::uint64_t>(info.bit_depth) + kBitsPerByte - 1) / kBitsPerByte;
  const std::uint64_t row_bytes = plane_row_bytes * static_cast<std::uint64_t>(info.samples) + 1;
  return std::max(
      {saturating_product({info.height, row_bytes}),
       saturating_product({info.width, info.height, out_samples, sample_bytes}),
       saturating_product({info.width, info.height, static_cast<std::uint64_t>(channels)})});
}

/// Deflate codes at most 258 bytes (one length-258 match) in 2 bits (a length code and a
/// distance code of 1 bit each): no zlib stream inflates more than 1032 bytes per byte.
inline constexpr std::uint64_t kMaxInflateRatio = 1032;

/// Reads IHDR and walks the chunks: every chunk must lie inside the file, IEND must be present
/// and the IDAT chunks must be long enough to inflate to the pixels IHDR claims (else
/// `incomplete` says why). Returns the cause when there is no valid IHDR.
[[nodiscard]] inline std::optional<std::string> parse_png(std::span<const std::uint8_t> bytes,
                                                          PngInfo& info) {
  constexpr std::uint64_t kLengthAndType = 8;
  constexpr std::uint64_t kCrcSize = 4;
  constexpr std::uint64_t kHeaderLength = 13;
  constexpr std::uint64_t kBitDepthOffset = 8;  // within IHDR's data
  constexpr std::uint64_t kColorTypeOffset = 9;
  constexpr std::uint64_t kBitsPerByte = 8;
  auto big_endian = [&](std::uint64_t at) {
    return (std::uint32_t{bytes[at]} << 24) | (std::uint32_t{bytes[at + 1]} << 16) |
           (std::uint32_t{bytes[at + 2]} << 8) | std::uint32_t{bytes[at + 3]};
  };
  auto type_at = [&](std::uint64_t at) {
    return std::string(reinterpret_cast<const char*>(bytes.data() + at + 4), 4);
  };
  std::uint64_t at = kPngSignatureSize;
  if (at + kLengthAndType + kHeaderLength > bytes.size()) return "truncated PNG header";
  if (type_at(at) != "IHDR" || big_endian(at) != kHeaderLength) {
    return "corrupt PNG: the first chunk is not IHDR";
  }
  const std::uint64_t data = at + kLengthAndType;
  info.width = big_endian(data);
  info.height = big_endian(data + 4);
  // Color types: 0 gray, 2 RGB, 3 palette, 4 gray+alpha, 6 RGBA; tRNS adds alpha.
  const int color_type = bytes[data + kColorTypeOffset];
  const bool has_alpha = color_type == 4 || color_type == 6;
  info.channels = has_alpha ? 4 : color_type == 0 ? 1 : 3;
  // The fewest bytes the pixels inflate to: width x height samples of bit_depth bits (filter
  // bytes and interlacing only add). Unknown colour types count 1 sample: stb refuses them.
  constexpr std::array<std::uint64_t, 7> kSamplesOfColorType{1, 1, 3, 1, 2, 1, 4};
  const std::uint64_t samples = color_type < static_cast<int>(kSamplesOfColorType.size())
                                    ? kSamplesOfColorType[color_type]
                                    : 1;
  const std::uint64_t bit_depth = std::max<std::uint64_t>(bytes[data + kBitDepthOffset], 1);
  info.samples = static_cast<int>(samples);
  constexpr int kColorTypePalette = 3;
  info.palette = color_type == kColorTypePalette;
  info.bit_depth = static_cast<int>(bit_depth);
  const std::uint64_t min_pixel_bytes =
      saturating_product({info.width, info.height, samples, bit_depth}) / kBitsPerByte;
  std::uint64_t compressed_bytes = 0;
  // A chunk type is 4 ASCII letters; anything else would be raw file bytes in the error line.
  auto is_chunk_type = [](const std::string& type) {
    return std::all_of(type.begin(), type.end(),
                       [](char c) { return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z'); });
  };
  while (at + kLengthAndType <= bytes.size()) {
    const std::uint64_t length = big_endian(at);
    const std::string type = type_at(at);
    if (!is_chunk_type(type)) {
      info.incomplete = "corrupt PNG: invalid chunk type at offset " + std::to_string(at);
      return std::nullopt;
    }
    const std::uint64_t chunk_end = at + kLengthAndType + length + kCrcSize;
    if (chunk_end > bytes.size()) {
      info.incomplete = "truncated file: PNG chunk " + type + " needs " +
                        std::to_string(chunk_end - at) + " bytes at offset " + std::to_string(at) +
                        ", the file has " + std::to_string(bytes.size());
      return std::nullopt;
    }
    if (type == "tRNS" && !has_alpha) {
      info.channels = 4;  // a palette alpha or colour key
      info.transparency = true;
    }
    if (type == "IDAT") compressed_bytes += length;
    if (type == "IEND") {
      if (compressed_bytes * kMaxInflateRatio < min_pixel_bytes) {
        info.incomplete = "truncated or corrupt PNG: " + std::to_string(compressed_bytes) +
                          " bytes of image data cannot hold " + std::to_string(info.width) + "x" +
                          std::to_string(info.height) + " pixels (" +
                          std::to_string(min_pixel_bytes) + " bytes)";
      }
      return std::nullopt;
    }
    at = chunk_end;
  }
  info.incomplete = "truncated file: the PNG ends without an IEND chunk";
  return std::nullopt;
}

/// Checks that a TGA's pixel data is all present: raw data, or RLE packets covering every
/// pixel. Returns the cause of a failure.
[[nodiscard]] inline std::optional<std::string> check_tga_data(
    std::span<const std::uint8_t> bytes) {
  constexpr std::uint64_t kHeaderSize = 18;
  constexpr int kFirstRleType = 9;
  constexpr std::uint8_t kRlePacketFlag = 0x80;
  constexpr std::uint8_t kPacketCountMask = 0x7f;
  if (bytes.size() < kHeaderSize) return std::string("truncated TGA header");
  auto u16 = [&](std::uint64_t at) {
    return std::uint64_t{bytes[at]} | (std::uint64_t{bytes[at + 1]} << 8);
  };
  const std::uint64_t id_length = bytes[0];
  const bool has_color_map = bytes[1] != 0;
  const int image_type = bytes[2];
  const std::uint64_t color_map_bytes = has_color_map ? u16(5) * ((bytes[7] + 7u) / 8) : 0;
  const std::uint64_t pixels = u16(12) * u16(14);
  const std::uint64_t pixel_bytes = (bytes[16] + 7u) / 8;
  std::uint64_t at = kHeaderSize + id_length + color_map_bytes;
  const auto truncated = std::string("truncated file: the TGA pixel data is incomplete");
  if (image_type < kFirstRleType) {
    return at + pixels * pixel_bytes <= bytes.size() ? std::nullopt : std::optional(truncated);
  }
  for (std::uint64_t covered = 0; covered < pixels;) {
    if (at >= bytes.size()) return truncated;
    const std::uint8_t packet = bytes[at++];
    const std::uint64_t count = (packet & kPacketCountMask) + 1u;
    at += (packet & kRlePacketFlag) != 0 ? pixel_bytes : count * pixel_bytes;
    covered += count;
  }
  return at <= bytes.size() ? std::nullopt : std::optional(truncated);
}

}  // namespace parfilter::io
