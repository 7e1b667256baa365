// The general BMP decoder (see bmp_format.hpp): every bit depth, palettes, bit fields, RLE8 and
// RLE4, for the layouts bmp.cpp's fast paths do not take. Every read is bounds-checked by
// check_bmp_pixel_data beforehand or, in an RLE stream, as it goes.
#include <algorithm>
#include <array>
#include <bit>
#include <cstddef>
#include <optional>

#include "bmp_bytes.hpp"
#include "bmp_format.hpp"

namespace parfilter::io {
namespace {

using bmp::kBitsPerByte;
using bmp::kMaxPaletteBits;
using bmp::LittleEndianBytes;

// Escape codes of the RLE8/RLE4 streams (after a zero count byte).
constexpr std::uint8_t kRleEndOfLine = 0;
constexpr std::uint8_t kRleEndOfBitmap = 1;
constexpr std::uint8_t kRleDelta = 2;

struct MaskChannel {
  int shift = 0;
  int bits = 0;  // at most 8: wider channels keep their top 8 bits
};

MaskChannel channel_of(std::uint32_t mask) {
  if (mask == 0) return {};
  MaskChannel channel{std::countr_zero(mask), std::popcount(mask)};
  if (channel.bits > kBitsPerByte) {
    channel.shift += channel.bits - kBitsPerByte;
    channel.bits = kBitsPerByte;
  }
  return channel;
}

// Widens an n-bit value to 8 bits by repeating its bits (31 -> 255, 16 -> 132 for 5 bits), the
// same expansion stb_image uses, so both decoders give the same bytes for the same picture.
std::uint8_t extract(std::uint32_t pixel, MaskChannel channel) {
  if (channel.bits == 0) return 0;
  const std::uint32_t value = (pixel >> channel.shift) & ((1u << channel.bits) - 1);
  std::uint32_t widened = 0;
  for (int position = kBitsPerByte - channel.bits;; position -= channel.bits) {
    widened |= position >= 0 ? value << position : value >> -position;
    if (position <= 0) break;
  }
  return static_cast<std::uint8_t>(widened);
}

void put_pixel(Image& image, int x, int y, BmpColor color, std::uint8_t alpha) {
  std::uint8_t* p = image.row(y) + static_cast<std::ptrdiff_t>(x) * image.channels();
  p[0] = color.red;
  p[1] = color.green;
  p[2] = color.blue;
  if (image.channels() == 4) p[3] = alpha;
}

constexpr std::uint8_t kOpaque = 255;

BmpColor palette_color(const BmpLayout& layout, unsigned index) {
  return index < layout.palette.size() ? layout.palette[index] : BmpColor{};
}

// Sets every pixel to palette entry 0, the colour of the pixels an RLE stream never writes.
// The image starts zero-filled, so black needs no pass.
void fill_with_first_palette_entry(Image& image, const BmpLayout& layout) {
  const BmpColor color = palette_color(layout, 0);
  if (color.red == 0 && color.green == 0 && color.blue == 0) return;
  for (int x = 0; x < image.width(); ++x) put_pixel(image, x, 0, color, kOpaque);
  const auto row_bytes = static_cast<std::size_t>(image.stride());
  for (int y = 1; y < image.height(); ++y) std::copy_n(image.row(0), row_bytes, image.row(y));
}

// RLE8 / RLE4 (stored bottom-up: stream row 0 is the image's last row) straight into the
// image, whose unwritten pixels keep palette entry 0. Runs past the right edge are clipped; a
// stream that ends without an end-of-bitmap code keeps what it wrote. Nothing else is
// allocated: a few bytes of stream may legitimately stand for an image up to the size limit.
std::optional<std::string> decode_rle(const LittleEndianBytes& in, const BmpLayout& layout,
                                      Image& image) {
  const bool four_bit = layout.compression == BmpCompression::rle4;
  const std::int64_t width = layout.width;
  const std::int64_t height = layout.height;
  std::int64_t x = 0;
  std::int64_t y = 0;
  fill_with_first_palette_entry(image, layout);
  auto put = [&](std::uint8_t index) {
    if (x < width && y < height) {
      put_pixel(image, static_cast<int>(x), static_cast<int>(height - 1 - y),
                palette_color(layout, index), kOpaque);
    }
    ++x;
  };
  std::uint64_t at = layout.pixel_offset;
  while (y < height && in.has(at, 2)) {
    const std::uint8_t count = in.u8(at);
    const std::uint8_t value = in.u8(at + 1);
    at += 2;
    if (count > 0) {
      for (int i = 0; i < count && x < width; ++i) {
        put(four_bit ? ((i % 2 == 0) ? value >> 4 : value & 0x0f) : value);
      }
      continue;
    }
    if (value == kRleEndOfLine) {
      x = 0;
      ++y;
    } else if (value == kRleEndOfBitmap) {
      break;
    } else if (value == kRleDelta) {
      if (!in.has(at, 2)) return "truncated RLE delta";
      x += in.u8(at);
      y += in.u8(at + 1);
      at += 2;
    } else {  // absolute run of `value` pixels, padded to a 16-bit boundary
      const std::uint64_t data_bytes = four_bit ? (value + 1u) / 2 : value;
      const std::uint64_t padded = (data_bytes + 1) / 2 * 2;
      if (!in.has(at, data_bytes)) return "truncated RLE absolute run";
      for (int i = 0; i < value && x < width; ++i) {
        const std::uint8_t byte = in.u8(at + (four_bit ? i / 2 : i));
        put(four_bit ? ((i % 2 == 0) ? byte >> 4 : byte & 0x0f) : byte);
      }
      at += padded;
    }
  }
  return std::nullopt;
}

}  // namespace
std::variant<Image, std::string> decode_bmp(std::span<const std::uint8_t> bytes,
                                            const BmpLayout& layout) {
  const LittleEndianBytes in(bytes);
  Image image(layout.width, layout.height, layout.channels());
  auto image_row = [&](std::int64_t stored_row) {
    return static_cast<int>(layout.top_down ? stored_row : layout.height - 1 - stored_row);
  };
  const int bits = layout.bits_per_pixel;
  if (layout.run_length_encoded()) {
    if (auto error = decode_rle(in, layout, image)) return *error;
    return image;
  }
  const std::uint64_t stride = bmp_row_stride(layout);
  const std::array<MaskChannel, 4> channels{
      channel_of(layout.masks[0]), channel_of(layout.masks[1]), channel_of(layout.masks[2]),
      channel_of(layout.masks[3])};
  for (std::int64_t stored = 0; stored < layout.height; ++stored) {
    const std::uint64_t row = layout.pixel_offset + static_cast<std::uint64_t>(stored) * stride;
    const int y = image_row(stored);
    for (int x = 0; x < layout.width; ++x) {
      if (bits <= kMaxPaletteBits) {
        const std::uint64_t bit = static_cast<std::uint64_t>(x) * bits;
        const int shift = kBitsPerByte - bits - static_cast<int>(bit % kBitsPerByte);
        const unsigned index = (in.u8(row + bit / kBitsPerByte) >> shift) & ((1u << bits) - 1);
        put_pixel(image, x, y, palette_color(layout, index), kOpaque);
      } else if (bits == 24) {
        const std::uint64_t at = row + static_cast<std::uint64_t>(x) * 3;
        put_pixel(image, x, y, BmpColor{in.u8(at + 2), in.u8(at + 1), in.u8(at)}, kOpaque);
      } else {
        const std::uint64_t at = row + static_cast<std::uint64_t>(x) * (bits / kBitsPerByte);
        const std::uint32_t pixel = bits == 16 ? in.u16(at) : in.u32(at);
        put_pixel(image, x, y,
                  BmpColor{extract(pixel, channels[0]), extract(pixel, channels[1]),
                           extract(pixel, channels[2])},
                  extract(pixel, channels[3]));
      }
    }
  }
  return image;
}

}  // namespace parfilter::io
