// The BMP parser (see bmp_format.hpp): the headers, the bit masks and the palette, validated
// against the file's bytes; bmp_decode.cpp decodes the pixels. Field offsets follow the
// Windows BITMAPFILEHEADER / BITMAPINFOHEADER (V1 to V5) and OS/2 1.x / 2.x layouts.
#include <algorithm>
#include <bit>
#include <optional>

#include "bmp_bytes.hpp"
#include "bmp_format.hpp"

namespace parfilter::io {
namespace {

using bmp::kBitsPerByte;
using bmp::kMaxPaletteBits;
using bmp::LittleEndianBytes;

constexpr std::uint64_t kFileHeaderSize = 14;
constexpr std::uint64_t kPixelOffsetField = 10;
constexpr std::uint64_t kHeaderSizeField = 14;

constexpr std::uint32_t kOs2CoreHeaderSize = 12;  // BITMAPCOREHEADER: 16-bit dimensions
constexpr std::uint32_t kOs2V2MinHeaderSize = 16;
constexpr std::uint32_t kOs2V2HeaderSize = 64;
constexpr std::uint32_t kInfoHeaderSize = 40;  // BITMAPINFOHEADER
constexpr std::uint32_t kV2HeaderSize = 52;    // + RGB masks
constexpr std::uint32_t kV3HeaderSize = 56;    // + alpha mask
constexpr std::uint32_t kV4HeaderSize = 108;
constexpr std::uint32_t kV5HeaderSize = 124;

// Offsets from the start of the file (after the 14-byte file header).
constexpr std::uint64_t kWidthField = 18;
constexpr std::uint64_t kHeightField = 22;
constexpr std::uint64_t kPlanesField = 26;
constexpr std::uint64_t kBitsField = 28;
constexpr std::uint64_t kCompressionField = 30;
constexpr std::uint64_t kColorsUsedField = 46;
constexpr std::uint64_t kMasksField = 54;  // in V2+ headers, or right after a 40-byte header
constexpr std::uint64_t kCoreWidthField = 18;
constexpr std::uint64_t kCoreHeightField = 20;
constexpr std::uint64_t kCorePlanesField = 22;
constexpr std::uint64_t kCoreBitsField = 24;

constexpr std::uint64_t kMaskBytes = 4;
constexpr std::uint64_t kCorePaletteEntryBytes = 3;  // RGBTRIPLE
constexpr std::uint64_t kPaletteEntryBytes = 4;      // RGBQUAD
constexpr std::uint64_t kRowAlignmentBits = 32;
constexpr int kUnsupportedDeepBits = 64;

constexpr BmpMasks kDefault16BitMasks{0x7c00, 0x03e0, 0x001f, 0};        // 5-5-5
constexpr BmpMasks kDefault32BitMasks{0xff0000, 0x00ff00, 0x0000ff, 0};  // top byte unused

std::string compression_name(std::uint32_t compression) {
  switch (compression) {
    case 4:
      return "JPEG";
    case 5:
      return "PNG";
    case 11:
    case 12:
    case 13:
      return "CMYK";
    default:
      return "number " + std::to_string(compression);
  }
}

bool is_os2_v2_header(std::uint32_t header_size) {
  return header_size >= kOs2V2MinHeaderSize && header_size <= kOs2V2HeaderSize &&
         header_size != kInfoHeaderSize && header_size != kV2HeaderSize &&
         header_size != kV3HeaderSize;
}

// Masks must be contiguous runs of bits, inside the pixel, and must not overlap.
std::optional<std::string> check_masks(const BmpMasks& masks, int bits_per_pixel) {
  const std::uint64_t pixel_bits = (std::uint64_t{1} << bits_per_pixel) - 1;
  std::uint32_t seen = 0;
  for (std::uint32_t mask : masks) {
    if (mask == 0) continue;
    const std::uint32_t run = mask >> std::countr_zero(mask);
    if ((run & (run + 1)) != 0) return "non-contiguous bit mask";
    if ((mask & ~pixel_bits) != 0) return "bit mask outside the pixel";
    if ((mask & seen) != 0) return "overlapping bit masks";
    seen |= mask;
  }
  if ((masks[0] | masks[1] | masks[2]) == 0) return "all colour bit masks are zero";
  return std::nullopt;
}

std::variant<BmpLayout, std::string> parse_headers(const LittleEndianBytes& in) {
  if (!in.has(0, kFileHeaderSize + 4) || in.u8(0) != 'B' || in.u8(1) != 'M') {
    return std::string(in.has(0, 2) && in.u8(0) == 'B' && in.u8(1) == 'M'
                           ? "truncated BMP header"
                           : "not a BMP file (wrong magic)");
  }
  BmpLayout layout;
  layout.pixel_offset = in.u32(kPixelOffsetField);
  const std::uint32_t header_size = in.u32(kHeaderSizeField);
  const bool core = header_size == kOs2CoreHeaderSize;
  const bool os2_v2 = is_os2_v2_header(header_size);
  if (!core && !os2_v2 && header_size != kInfoHeaderSize && header_size != kV2HeaderSize &&
      header_size != kV3HeaderSize && header_size != kV4HeaderSize &&
      header_size != kV5HeaderSize) {
    return "unsupported BMP header size " + std::to_string(header_size);
  }
  if (!in.has(kFileHeaderSize, header_size)) return std::string("truncated BMP header");

  std::int64_t width = 0;
  std::int64_t height = 0;
  std::uint32_t planes = 0;
  std::uint32_t compression = 0;
  if (core) {
    width = in.u16(kCoreWidthField);
    height = in.u16(kCoreHeightField);
    planes = in.u16(kCorePlanesField);
    layout.bits_per_pixel = in.u16(kCoreBitsField);
  } else {
    width = static_cast<std::int32_t>(in.u32(kWidthField));
    height = static_cast<std::int32_t>(in.u32(kHeightField));
    planes = in.u16(kPlanesField);
    layout.bits_per_pixel = in.u16(kBitsField);
    if (kFileHeaderSize + header_size >= kCompressionField + 4) {
      compression = in.u32(kCompressionField);
    }
  }
  if (planes != 1) return "invalid planes count " + std::to_string(planes) + " (must be 1)";
  if (width == 0 || height == 0) {
    return "zero dimension (" + std::to_string(width) + "x" + std::to_string(height) + ")";
  }
  if (width < 0) return "negative width " + std::to_string(width);
  layout.top_down = height < 0;
  height = height < 0 ? -height : height;
  if (width > kMaxImageDimension || height > kMaxImageDimension) {
    return "dimensions " + std::to_string(width) + "x" + std::to_string(height) +
           " exceed the maximum of " + std::to_string(kMaxImageDimension);
  }
  layout.width = static_cast<int>(width);
  layout.height = static_cast<int>(height);

  const int bits = layout.bits_per_pixel;
  const bool os2_special = os2_v2 && compression > static_cast<std::uint32_t>(BmpCompression::rle4);
  if (os2_special) return "unsupported OS/2 BMP compression " + std::to_string(compression);
  switch (static_cast<BmpCompression>(compression)) {
    case BmpCompression::rgb:
      if (bits == kUnsupportedDeepBits) return std::string("64-bit BMP is not supported");
      if (bits != 1 && bits != 2 && bits != 4 && bits != 8 && bits != 16 && bits != 24 &&
          bits != 32) {
        return "invalid bits per pixel " + std::to_string(bits);
      }
      break;
    case BmpCompression::rle8:
    case BmpCompression::rle4: {
      const int needed = compression == static_cast<std::uint32_t>(BmpCompression::rle8) ? 8 : 4;
      if (bits != needed) {
        return "RLE" + std::to_string(needed) + " with " + std::to_string(bits) + " bits per pixel";
      }
      if (layout.top_down) return std::string("top-down BMP cannot be RLE-compressed");
      break;
    }
    case BmpCompression::bitfields:
    case BmpCompression::alpha_bitfields:
      if (bits != 16 && bits != 32) {
        return "bit fields with " + std::to_string(bits) + " bits per pixel";
      }
      break;
    default:
      return "unsupported BMP compression " + compression_name(compression);
  }
  layout.compression = static_cast<BmpCompression>(compression);
  return layout;
}

// Reads the masks (16/32 bits) or the palette (1 to 8 bits) and checks the pixel offset.
std::optional<std::string> parse_colors(const LittleEndianBytes& in, BmpLayout& layout,
                                        std::uint32_t header_size, std::uint32_t colors_used) {
  std::uint64_t headers_end = kFileHeaderSize + header_size;
  const int bits = layout.bits_per_pixel;
  if (bits == 16 || bits == 32) {
    if (layout.compression == BmpCompression::rgb) {
      layout.masks = bits == 16 ? kDefault16BitMasks : kDefault32BitMasks;
    } else {
      // A V3+ header holds an alpha mask even for BI_BITFIELDS; a 40-byte header is followed
      // by 3 masks (BI_BITFIELDS) or 4 (BI_ALPHABITFIELDS).
      const int in_header = header_size >= kV3HeaderSize ? 4 : header_size >= kV2HeaderSize ? 3 : 0;
      const int needed = layout.compression == BmpCompression::alpha_bitfields ? 4 : 3;
      const int count = std::max(needed, in_header);
      headers_end = std::max(headers_end, kMasksField + kMaskBytes * count);
      if (!in.has(kMasksField, kMaskBytes * count)) return "truncated bit masks";
      for (int i = 0; i < count; ++i) layout.masks[i] = in.u32(kMasksField + kMaskBytes * i);
      if (auto error = check_masks(layout.masks, bits)) return error;
    }
  }
  if (layout.pixel_offset < headers_end) {
    return "pixel data offset " + std::to_string(layout.pixel_offset) + " lies inside the headers";
  }
  if (bits <= kMaxPaletteBits) {
    const std::uint64_t entry_bytes =
        header_size == kOs2CoreHeaderSize ? kCorePaletteEntryBytes : kPaletteEntryBytes;
    const std::uint64_t max_entries = std::uint64_t{1} << bits;
    std::uint64_t entries =
        colors_used != 0 ? std::min<std::uint64_t>(colors_used, max_entries) : max_entries;
    // A palette never overlaps the pixels: trust the offset over a too-large count.
    entries = std::min(entries, (layout.pixel_offset - headers_end) / entry_bytes);
    if (entries == 0) return "missing palette";
    if (!in.has(headers_end, entries * entry_bytes)) return "truncated palette";
    layout.palette.resize(entries);
    for (std::uint64_t i = 0; i < entries; ++i) {
      const std::uint64_t at = headers_end + i * entry_bytes;
      layout.palette[i] = BmpColor{in.u8(at + 2), in.u8(at + 1), in.u8(at)};
    }
  }
  return std::nullopt;
}

}  // namespace

std::uint64_t bmp_row_stride(const BmpLayout& layout) {
  const std::uint64_t row_bits = static_cast<std::uint64_t>(layout.width) * layout.bits_per_pixel;
  return (row_bits + kRowAlignmentBits - 1) / kRowAlignmentBits *
         (kRowAlignmentBits / kBitsPerByte);
}

std::uint64_t bmp_row_pixel_bytes(const BmpLayout& layout) {
  const std::uint64_t row_bits = static_cast<std::uint64_t>(layout.width) * layout.bits_per_pixel;
  return (row_bits + kBitsPerByte - 1) / kBitsPerByte;
}

std::variant<BmpLayout, std::string> parse_bmp(std::span<const std::uint8_t> bytes) {
  const LittleEndianBytes in(bytes);
  auto parsed = parse_headers(in);
  if (auto* error = std::get_if<std::string>(&parsed)) return *error;
  auto& layout = std::get<BmpLayout>(parsed);
  const std::uint32_t header_size = in.u32(kHeaderSizeField);
  const std::uint32_t colors_used =
      header_size != kOs2CoreHeaderSize && kFileHeaderSize + header_size >= kColorsUsedField + 4
          ? in.u32(kColorsUsedField)
          : 0;
  if (auto error = parse_colors(in, layout, header_size, colors_used)) return *error;
  return parsed;
}

std::optional<std::string> check_bmp_pixel_data(std::uint64_t file_size, const BmpLayout& layout) {
  if (layout.pixel_offset >= file_size) return "truncated file: no pixel data";
  if (!layout.run_length_encoded()) {
    // The last row's padding may be missing; its pixels may not.
    const std::uint64_t needed =
        bmp_row_stride(layout) * (static_cast<std::uint64_t>(layout.height) - 1) +
        bmp_row_pixel_bytes(layout);
    if (needed > file_size - layout.pixel_offset) {
      return "truncated file: the pixel rows need " + std::to_string(needed) +
             " bytes from offset " + std::to_string(layout.pixel_offset) + ", the file has " +
             std::to_string(file_size);
    }
  }
  return std::nullopt;
}

}  // namespace parfilter::io
