// stb_image and stb_image_write: TGA always, PNG and JPEG where libspng or libjpeg-turbo is
// missing (codecs.hpp's fallback path). stb trusts its input more than the fast libraries do,
// so each format is checked first: PNG's chunks (stb_checks.hpp), JPEG's segments
// (stb_jpeg_checks.hpp), TGA's data length and colour map. This file is compiled with
// wrapping signed arithmetic (-fwrapv, common/CMakeLists.txt): corrupt coefficients that overflow
// its int arithmetic (the CVE-2022-28041 class) give wrong pixels, never undefined behaviour.
#include <algorithm>
#include <climits>
#include <cstdint>
#include <memory>
#include <stdexcept>
#include <vector>

#include "codecs.hpp"
#include "orientation.hpp"
#include "parfilter/error.hpp"
#include "stb_checks.hpp"
#include "stb_jpeg_checks.hpp"

// stb is compiled into this file alone, every function static (internal linkage): none of its
// symbols leave the library, so a program with its own stb links beside it. Configuration,
// chosen for untrusted input: only PNG, JPEG and TGA (BMP and PNM are parfilter's own; GIF,
// PSD, HDR and PIC are refused as unsupported), no stdio (files are read and written by
// file_io.cpp), and STBI_MAX_DIMENSIONS equal to kMaxImageDimension.
#define STBI_NO_STDIO
#define STBI_ONLY_PNG
#define STBI_ONLY_JPEG
#define STBI_ONLY_TGA
#define STBI_MAX_DIMENSIONS (1 << 24)
#define STBI_WRITE_NO_STDIO
#define STB_IMAGE_STATIC
#define STB_IMAGE_WRITE_STATIC
#define STB_IMAGE_IMPLEMENTATION
#define STB_IMAGE_WRITE_IMPLEMENTATION
// Third-party C-style code: its warnings are not ours to fix. stb 2.27 with GCC 12 raises
// only -Wmissing-field-initializers; the others cover nearby versions.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"
#pragma GCC diagnostic ignored "-Wsign-compare"
#pragma GCC diagnostic ignored "-Wunused-function"
#pragma GCC diagnostic ignored "-Wunused-parameter"
#pragma GCC diagnostic ignored "-Wimplicit-fallthrough"
#pragma GCC diagnostic ignored "-Wtype-limits"
#include <stb_image.h>
#include <stb_image_write.h>
#pragma GCC diagnostic pop

static_assert(STBI_MAX_DIMENSIONS == parfilter::io::kMaxImageDimension);

namespace parfilter::io {
namespace {

constexpr std::size_t kTgaHeaderSize = 18;
constexpr int kTgaColorMapped = 1;
constexpr int kTgaColorMappedRle = 9;
constexpr std::size_t kTgaMapOrigin = 3;
constexpr std::size_t kTgaMapLength = 5;
constexpr std::size_t kTgaMapEntryBits = 7;
constexpr std::uint32_t kMaxTgaMapEntries = 0xffff;
constexpr int kMaxJpegOrTgaDimension = 65535;            // 16-bit size fields
constexpr std::size_t kMaxEncodableBytes = INT_MAX / 2;  // stb_image_write sizes in int
constexpr std::uint64_t kStbBufferCap = INT_MAX;         // stb_image sizes its buffers in int

using StbPixels = std::unique_ptr<stbi_uc, decltype(&stbi_image_free)>;

std::string stb_reason() {
  const char* reason = stbi_failure_reason();
  return reason != nullptr ? reason : "unknown error";
}

/// stb 2.27 skips a colour map's origin (its first entry index) as if it were bytes before the
/// map, and then indexes the map from 0: wrong colours, and reads past the end of a file the
/// completeness check (check_tga_data, which counts the map from the header) passed. A copy
/// whose map starts at entry 0 (the entries below the origin black) decodes right. Returns an
/// empty vector when the file needs no change; runs after stb's probe accepted the header.
std::vector<std::uint8_t> tga_with_map_from_zero(std::span<const std::uint8_t> bytes,
                                                 const std::string& name) {
  if (bytes.size() < kTgaHeaderSize || bytes[1] == 0) return {};
  const auto u16 = [&](std::size_t at) {
    return std::uint32_t{bytes[at]} | (std::uint32_t{bytes[at + 1]} << 8);
  };
  const std::uint32_t origin = u16(kTgaMapOrigin);
  const std::uint32_t length = u16(kTgaMapLength);
  if (origin == 0 || length == 0) return {};  // stb refuses an empty map itself
  if (origin + length > kMaxTgaMapEntries) fail(name, "TGA colour map runs past entry 65535");
  const std::size_t entry_bytes = (bytes[kTgaMapEntryBits] + 7u) / 8;
  const std::size_t map_at = kTgaHeaderSize + bytes[0];  // after the image id
  std::vector<std::uint8_t> copy(
      bytes.begin(), bytes.begin() + static_cast<std::ptrdiff_t>(std::min(map_at, bytes.size())));
  copy[kTgaMapOrigin] = 0;
  copy[kTgaMapOrigin + 1] = 0;
  copy[kTgaMapLength] = static_cast<std::uint8_t>(origin + length);
  copy[kTgaMapLength + 1] = static_cast<std::uint8_t>((origin + length) >> 8);
  copy.resize(copy.size() + origin * entry_bytes, 0);
  if (map_at < bytes.size())
    copy.insert(copy.end(), bytes.begin() + static_cast<std::ptrdiff_t>(map_at), bytes.end());
  return copy;
}

/// Refuses, naming stb's own limit, an image that parfilter's limit admits but stb cannot
/// decode: `needed` (bytes or samples, as stb counts them) over `cap`.
void check_stb_limit(const std::string& name, const std::string& format, std::uint64_t needed,
                     std::uint64_t cap) {
  if (needed <= cap) return;
  fail(name, "stb_image (the fallback decoder) cannot decode " + format + " images over " +
                 std::to_string(cap) + " bytes (this one needs " + std::to_string(needed) + ")");
}

Image copy_pixels(const stbi_uc* pixels, int width, int height, int channels) {
  Image image = Image::uninitialized(width, height, channels);
  std::copy_n(pixels, image.size_bytes(), image.data());
  return image;
}

Image decode_checked(std::span<const std::uint8_t> bytes, const std::string& name,
                     const std::string& container, int width, int height, int channels) {
  int decoded_width = 0;
  int decoded_height = 0;
  int file_channels = 0;
  const StbPixels pixels(
      stbi_load_from_memory(bytes.data(), static_cast<int>(bytes.size()), &decoded_width,
                            &decoded_height, &file_channels, channels),
      &stbi_image_free);
  const std::string format = container.empty() ? "TGA" : container;
  if (!pixels) fail(name, "corrupt or truncated " + format + " (stb_image: " + stb_reason() + ")");
  if (decoded_width != width || decoded_height != height) {
    fail(name, "inconsistent " + format + " dimensions");
  }
  return copy_pixels(pixels.get(), width, height, channels);
}

/// decode_checked for a 16-bit PNG: stb's 16-bit decoder, host-endian samples.
Image decode_checked_16(std::span<const std::uint8_t> bytes, const std::string& name, int width,
                        int height, int channels) {
  int decoded_width = 0;
  int decoded_height = 0;
  int file_channels = 0;
  const std::unique_ptr<stbi_us, void (*)(void*)> pixels(
      stbi_load_16_from_memory(bytes.data(), static_cast<int>(bytes.size()), &decoded_width,
                               &decoded_height, &file_channels, channels),
      &stbi_image_free);
  if (!pixels) fail(name, "corrupt or truncated PNG (stb_image: " + stb_reason() + ")");
  if (decoded_width != width || decoded_height != height) {
    fail(name, "inconsistent PNG dimensions");
  }
  Image image = Image::uninitialized(width, height, channels, Depth::u16);
  std::copy_n(pixels.get(), image.size_bytes() / 2, image.samples<std::uint16_t>());
  return image;
}

void append_to_buffer(void* context, void* data, int size) {
  auto* buffer = static_cast<std::vector<std::uint8_t>*>(context);
  const auto* bytes = static_cast<const std::uint8_t*>(data);
  buffer->insert(buffer->end(), bytes, bytes + size);
}

}  // namespace

Image decode_with_stb(std::span<const std::uint8_t> bytes, const std::string& name,
                      const LoadOptions& options, const std::string& container) {
  if (bytes.size() > static_cast<std::size_t>(INT_MAX)) {  // stb takes an int length
    fail(name, "file of " + std::to_string(bytes.size()) + " bytes is too large to decode");
  }
  if (container == "PNG") {
    // Dimensions and channels from IHDR (stb's probe refuses PNGs over 1 GiB before the limit
    // could be reported), then every chunk must be present.
    PngInfo info;
    if (auto cause = parse_png(bytes, info)) fail(name, *cause);
    check_image_size(name, static_cast<std::int64_t>(info.width),
                     static_cast<std::int64_t>(info.height), info.channels, options.max_bytes);
    check_stb_limit(name, "PNG", stb_png_header_samples(info), kStbPngSampleCap);
    check_stb_limit(name, "PNG", stb_png_buffer_bytes(info, info.channels), kStbBufferCap);
    if (info.incomplete) fail(name, *info.incomplete);
    constexpr int kSixteenBits = 16;
    if (info.bit_depth == kSixteenBits) {
      check_image_size(name, static_cast<std::int64_t>(info.width),
                       static_cast<std::int64_t>(info.height), info.channels, options.max_bytes,
                       Depth::u16);
      return decode_checked_16(bytes, name, static_cast<int>(info.width),
                               static_cast<int>(info.height), info.channels);
    }
    return decode_checked(bytes, name, container, static_cast<int>(info.width),
                          static_cast<int>(info.height), info.channels);
  }
  JpegCheck jpeg;
  if (container == "JPEG") jpeg = check_jpeg_segments(bytes);
  if (jpeg.corrupt) fail(name, *jpeg.corrupt);
  int width = 0;
  int height = 0;
  int file_channels = 0;
  if (stbi_info_from_memory(bytes.data(), static_cast<int>(bytes.size()), &width, &height,
                            &file_channels) == 0) {
    if (container.empty()) {
      fail(name,
           "not a recognized image file (wrong magic; parfilter reads BMP, PNG, JPEG, "
           "TGA and PNM)");
    }
    fail(name, "corrupt " + container + " header (stb_image: " + stb_reason() + ")");
  }
  // Gray stays gray; gray+alpha becomes RGBA, as Image has no 2-channel form.
  const int channels = file_channels == 2 ? 4 : file_channels;
  if (channels != 1 && channels != 3 && channels != 4) {
    fail(name, "unsupported channel count " + std::to_string(file_channels));
  }
  check_image_size(name, width, height, channels, options.max_bytes);
  // stb's largest buffer: a JPEG's from its frame; a TGA's is the image at the file's channels,
  // then converted to `channels`.
  const auto pixels = static_cast<std::uint64_t>(width) * static_cast<std::uint64_t>(height);
  const std::uint64_t stb_bytes =
      container == "JPEG" ? jpeg.stb_buffer_bytes
                          : pixels * static_cast<std::uint64_t>(std::max(file_channels, channels));
  check_stb_limit(name, container.empty() ? "TGA" : container, stb_bytes, kStbBufferCap);
  // stb reads zeros past the end of a truncated JPEG or TGA.
  const auto incomplete = container == "JPEG" ? jpeg.undecodable : check_tga_data(bytes);
  if (incomplete) fail(name, *incomplete);
  if (container == "JPEG") {
    Image image = decode_checked(bytes, name, container, width, height, channels);
    if (!options.apply_exif_orientation) return image;
    return apply_orientation(std::move(image), jpeg_exif_orientation(bytes));
  }
  const std::vector<std::uint8_t> tga_copy = tga_with_map_from_zero(bytes, name);
  return decode_checked(tga_copy.empty() ? bytes : tga_copy, name, container, width, height,
                        channels);
}

// PNG keeps stb's own compression level: it is a global of stb_image_write, which concurrent
// encodes must not change.
std::vector<std::uint8_t> encode_with_stb(const ConstImageView& image, ImageFormat format,
                                          const SaveOptions& options, const std::string& name) {
  const auto bytes = static_cast<std::size_t>(image.row_samples()) * image.height();
  if (bytes > kMaxEncodableBytes) {
    throw RuntimeError(name + ": image of " + std::to_string(bytes) +
                       " bytes is too large for the encoder");
  }
  const bool sixteen_bit_sizes = format == ImageFormat::jpeg || format == ImageFormat::tga;
  if (sixteen_bit_sizes &&
      (image.width() > kMaxJpegOrTgaDimension || image.height() > kMaxJpegOrTgaDimension)) {
    throw RuntimeError(name + ": " + std::to_string(image.width()) + "x" +
                       std::to_string(image.height()) + " is too large for this format (max " +
                       std::to_string(kMaxJpegOrTgaDimension) + " per side)");
  }
  // stb writes from one buffer without row padding: a view of a whole image is one.
  const Image contiguous = image.stride() == image.row_samples() ? Image{} : Image::copy_of(image);
  const void* pixels = contiguous.empty() ? image.first_row() : contiguous.data();
  std::vector<std::uint8_t> buffer;
  const int w = image.width();
  const int h = image.height();
  const int c = image.channels();
  int ok = 0;
  switch (format) {
    case ImageFormat::png:
      ok = stbi_write_png_to_func(append_to_buffer, &buffer, w, h, c, pixels,
                                  static_cast<int>(image.row_samples()));
      break;
    case ImageFormat::tga:
      ok = stbi_write_tga_to_func(append_to_buffer, &buffer, w, h, c, pixels);
      break;
    case ImageFormat::jpeg:
      ok = stbi_write_jpg_to_func(append_to_buffer, &buffer, w, h, c, pixels, options.jpeg_quality);
      break;
    case ImageFormat::bmp:
      encode_bmp(image, [&](std::span<const std::uint8_t> piece) {
        buffer.insert(buffer.end(), piece.begin(), piece.end());
      });
      return buffer;
    case ImageFormat::pnm:
    case ImageFormat::tiff:
      throw std::logic_error("encode_with_stb: PNM and TIFF are parfilter's and libtiff's");
  }
  if (ok == 0 || buffer.empty()) throw RuntimeError(name + ": encoding failed");
  return buffer;
}

}  // namespace parfilter::io
