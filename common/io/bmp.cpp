// BMP at memory speed. Loading: the headers are validated (bmp_format.cpp), then the common
// layouts go row by row (24-bit BGR and 32-bit BGRA swapped into RGB(A), 8-bit palettes by a
// lookup); every other layout takes the general decoder. A palette of grays only gives a gray
// image, so a gray BMP (as parfilter writes one) loads with one channel. Saving: gray as 8-bit
// with a gray palette, RGB as 24-bit, RGBA as 32-bit with a V4 header's alpha mask; rows
// bottom-up, as every reader expects.
#include <algorithm>
#include <array>
#include <climits>
#include <cstring>
#include <functional>
#include <optional>

#include "bmp_format.hpp"
#include "bmp_rows.hpp"
#include "channel_order.hpp"
#include "codecs.hpp"
#include "file_io.hpp"
#include "parfilter/error.hpp"

namespace parfilter::io {
namespace {

constexpr int kPaletteBits = 8;
constexpr int kRgbBits = 24;
constexpr int kRgbaBits = 32;
constexpr std::uint32_t kRedMask = 0x00ff0000;
constexpr std::uint32_t kGreenMask = 0x0000ff00;
constexpr std::uint32_t kBlueMask = 0x000000ff;
constexpr std::uint32_t kAlphaMask = 0xff000000;
constexpr std::size_t kPaletteEntries = 256;
constexpr int kBgrBlue = 0;
constexpr int kBgrRed = 2;
/// Rows read or written at once: a chunk that stays in cache.
constexpr std::size_t kChunkBytes = std::size_t{1} << 20;

}  // namespace

bool gray_palette(const BmpLayout& layout) {
  return !layout.palette.empty() &&
         std::all_of(layout.palette.begin(), layout.palette.end(),
                     [](const BmpColor& c) { return c.red == c.green && c.green == c.blue; });
}

int decoded_channels(const BmpLayout& layout) {
  return gray_palette(layout) ? 1 : layout.channels();
}

int bmp_chunk_rows(std::uint64_t row_bytes) {
  return static_cast<int>(std::max<std::uint64_t>(1, kChunkBytes / row_bytes));
}

BmpRowDecoder::BmpRowDecoder(const BmpLayout& layout, int channels)
    : width_(layout.width), bits_(layout.bits_per_pixel), channels_(channels) {
  for (std::size_t i = 0; i < layout.palette.size(); ++i) {
    lookup_[3 * i] = layout.palette[i].red;
    lookup_[3 * i + 1] = layout.palette[i].green;
    lookup_[3 * i + 2] = layout.palette[i].blue;
  }
}

void BmpRowDecoder::decode(const std::uint8_t* in, std::uint8_t* out) const {
  const auto pixels = static_cast<std::size_t>(width_);
  if (bits_ == kPaletteBits && channels_ == 1) {
    for (int x = 0; x < width_; ++x) out[x] = lookup_[3 * std::size_t{in[x]}];
  } else if (bits_ == kPaletteBits) {
    for (int x = 0; x < width_; ++x) std::memcpy(out + 3 * x, &lookup_[3 * std::size_t{in[x]}], 3);
  } else if (bits_ == kRgbBits) {
    swap_red_blue_3(in, out, pixels);
  } else if (channels_ == 4) {
    swap_red_blue_4(in, out, pixels);
  } else {
    bgrx_to_rgb(in, out, pixels);
  }
}

namespace {

/// The image row that stored row `stored` fills.
int image_row(const BmpLayout& layout, int stored) {
  return layout.top_down ? stored : layout.height - 1 - stored;
}

/// Stored rows [first, first + count) of the pixel data, back to back at the layout's stride
/// (the last row's padding may be missing): a view of the whole file's bytes, or a chunk read
/// from the file.
using StoredRows = std::function<const std::uint8_t*(int first, int count)>;

Image decode_rows(const StoredRows& stored_rows, const BmpLayout& layout, int channels,
                  const LoadOptions& options) {
  const Checkpoint& checkpoint = options.checkpoint;
  Image image = decoder_image(layout.width, layout.height, channels, options.allocator,
                              options.map_pages_first);
  const std::uint64_t stride = bmp_row_stride(layout);
  const BmpRowDecoder decoder(layout, channels);
  const int rows_per_chunk = bmp_chunk_rows(stride);
  for (int first = 0; first < layout.height; first += rows_per_chunk) {
    const int count = std::min(rows_per_chunk, layout.height - first);
    const std::uint8_t* chunk = stored_rows(first, count);
    for (int stored = first; stored < first + count; ++stored) {
      decoder.decode(chunk + (stored - first) * stride, image.row(image_row(layout, stored)));
      checkpoint_every(checkpoint, stored);
    }
  }
  return image;
}

}  // namespace

bool direct_layout(const BmpLayout& layout) {
  if (layout.run_length_encoded()) return false;
  switch (layout.bits_per_pixel) {
    case kRgbBits:
      return true;
    case kRgbaBits:
      return layout.masks[0] == kRedMask && layout.masks[1] == kGreenMask &&
             layout.masks[2] == kBlueMask &&
             (layout.masks[3] == 0 || layout.masks[3] == kAlphaMask);
    case kPaletteBits:
      return true;  // indices past a short palette read the zeroed lookup: black, as decode_bmp
    default:
      return false;
  }
}

namespace {

void put_u16(std::uint8_t*& at, std::uint32_t value) {
  at[0] = static_cast<std::uint8_t>(value);
  at[1] = static_cast<std::uint8_t>(value >> CHAR_BIT);
  at += 2;
}

void put_u32(std::uint8_t*& at, std::uint32_t value) {
  put_u16(at, value & 0xffff);
  put_u16(at, value >> (2 * CHAR_BIT));
}

}  // namespace

Image decode_bmp_file(std::span<const std::uint8_t> bytes, const std::string& name,
                      const LoadOptions& options) {
  auto parsed = parse_bmp(bytes);
  if (const auto* cause = std::get_if<std::string>(&parsed)) fail(name, *cause);
  const auto& layout = std::get<BmpLayout>(parsed);
  const int channels = decoded_channels(layout);
  check_image_size(name, layout.width, layout.height, channels, options.max_bytes);
  if (auto cause = check_bmp_pixel_data(bytes.size(), layout)) fail(name, *cause);
  if (direct_layout(layout)) {
    const std::uint8_t* pixels = bytes.data() + layout.pixel_offset;
    const std::uint64_t stride = bmp_row_stride(layout);
    return decode_rows([&](int first, int) { return pixels + first * stride; }, layout, channels,
                       options);
  }
  auto decoded = decode_bmp(bytes, layout);
  if (const auto* cause = std::get_if<std::string>(&decoded)) fail(name, *cause);
  Image rgb = std::move(std::get<Image>(decoded));
  if (channels != 1) return rgb;
  Image out = Image::uninitialized(rgb.width(), rgb.height(), 1);
  for (std::size_t i = 0; i < out.size_bytes(); ++i) out.data()[i] = rgb.data()[3 * i];
  return out;
}

std::optional<Image> load_bmp_rows(const InputFile& file, const LoadOptions& options) {
  FileBytes head(static_cast<std::size_t>(std::min<std::uint64_t>(file.size(), kBmpHeadBytes)));
  head.resize(file.read_at(0, head));
  if (head.size() >= file.size()) return std::nullopt;  // all read already: decode it whole
  const auto parsed = parse_bmp(head);
  const auto* layout = std::get_if<BmpLayout>(&parsed);
  // Anything unusual, an error included, takes the whole-file path and its messages.
  if (layout == nullptr || !direct_layout(*layout) ||
      check_bmp_pixel_data(file.size(), *layout).has_value()) {
    return std::nullopt;
  }
  const int channels = decoded_channels(*layout);
  check_image_size(file.name(), layout->width, layout->height, channels, options.max_bytes);
  const std::uint64_t stride = bmp_row_stride(*layout);
  FileBytes chunk(static_cast<std::size_t>(bmp_chunk_rows(stride) * stride));
  const auto read_rows = [&](int first, int count) {
    const std::uint64_t offset = layout->pixel_offset + first * stride;
    // The last row's padding may be missing from the file (check_bmp_pixel_data allows it).
    const std::uint64_t wanted = std::min(count * stride, file.size() - offset);
    const std::uint64_t pixels_needed = (count - 1) * stride + bmp_row_pixel_bytes(*layout);
    if (file.read_at(offset, {chunk.data(), static_cast<std::size_t>(wanted)}) < pixels_needed) {
      fail(file.name(), "truncated file: it shrank while being read");
    }
    return chunk.data();
  };
  return decode_rows(read_rows, *layout, channels, options);
}

BmpHead bmp_head(int width, int height, int channels) {
  constexpr std::uint32_t kFileHeaderBytes = 14;
  constexpr std::uint32_t kInfoHeaderBytes = 40;
  constexpr std::uint32_t kV4HeaderBytes = 108;
  constexpr std::uint32_t kBitfields = 3;
  constexpr std::uint32_t kSrgb = 0x73524742;      // 'sRGB': the V4 header's colour space
  constexpr std::uint32_t kPixelsPerMetre = 2835;  // 72 dpi
  const int bits = channels == 1 ? kPaletteBits : channels == 3 ? kRgbBits : kRgbaBits;
  const std::uint32_t header_bytes = channels == 4 ? kV4HeaderBytes : kInfoHeaderBytes;
  const std::uint32_t palette_bytes = channels == 1 ? kPaletteEntries * 4 : 0;
  const std::uint64_t row_bytes = (static_cast<std::uint64_t>(width) * bits + 31) / 32 * 4;
  const std::uint64_t offset = kFileHeaderBytes + header_bytes + palette_bytes;
  const std::uint64_t total = offset + row_bytes * static_cast<std::uint64_t>(height);
  if (total > UINT32_MAX) {
    throw RuntimeError(std::to_string(width) + "x" + std::to_string(height) +
                       " is too large for BMP (4 GiB at most)");
  }
  BmpHead head{std::vector<std::uint8_t>(offset, 0), row_bytes};
  std::uint8_t* at = head.bytes.data();
  *at++ = 'B';
  *at++ = 'M';
  put_u32(at, static_cast<std::uint32_t>(total));
  put_u32(at, 0);  // reserved
  put_u32(at, static_cast<std::uint32_t>(offset));
  put_u32(at, header_bytes);
  put_u32(at, static_cast<std::uint32_t>(width));
  put_u32(at, static_cast<std::uint32_t>(height));  // positive: bottom-up rows
  put_u16(at, 1);                                   // planes
  put_u16(at, static_cast<std::uint32_t>(bits));
  put_u32(at, channels == 4 ? kBitfields : 0);
  put_u32(at, static_cast<std::uint32_t>(row_bytes * static_cast<std::uint64_t>(height)));
  put_u32(at, kPixelsPerMetre);
  put_u32(at, kPixelsPerMetre);
  put_u32(at, channels == 1 ? kPaletteEntries : 0);  // colours used
  put_u32(at, 0);                                    // colours important
  if (channels == 4) {
    for (std::uint32_t mask : {kRedMask, kGreenMask, kBlueMask, kAlphaMask}) put_u32(at, mask);
    put_u32(at, kSrgb);
    at += kV4HeaderBytes - kInfoHeaderBytes - 5 * 4;  // endpoints and gamma: zero
  }
  if (channels == 1) {
    for (std::uint32_t i = 0; i < kPaletteEntries; ++i) put_u32(at, i * 0x010101);
  }
  return head;
}

void encode_bmp_row(const std::uint8_t* in, int width, int channels, std::uint8_t* out) {
  const auto pixels = static_cast<std::size_t>(width);
  if (channels == 1) {
    std::memcpy(out, in, pixels);
  } else if (channels == 3) {
    swap_red_blue_3(in, out, pixels);
  } else {
    swap_red_blue_4(in, out, pixels);
  }
}

void encode_bmp(const ConstImageView& image, const ByteSink& sink) {
  const BmpHead head = bmp_head(image.width(), image.height(), image.channels());
  sink(head.bytes);
  // Bottom-up rows, converted a chunk at a time (padding bytes zero).
  const std::uint64_t row_bytes = head.row_bytes;
  const auto rows_per_chunk = static_cast<std::size_t>(bmp_chunk_rows(row_bytes));
  std::vector<std::uint8_t> chunk(rows_per_chunk * row_bytes, 0);
  for (int first = 0; first < image.height(); first += static_cast<int>(rows_per_chunk)) {
    const int count = std::min(static_cast<int>(rows_per_chunk), image.height() - first);
    for (int i = 0; i < count; ++i) {
      encode_bmp_row(image.row(image.height() - 1 - (first + i)), image.width(), image.channels(),
                     chunk.data() + static_cast<std::size_t>(i) * row_bytes);
    }
    sink({chunk.data(), static_cast<std::size_t>(count) * row_bytes});
  }
}

}  // namespace parfilter::io
