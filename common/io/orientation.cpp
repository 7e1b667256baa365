#include "orientation.hpp"

#include <algorithm>
#include <array>
#include <cstring>
#include <string_view>

namespace parfilter::io {
namespace {

constexpr std::string_view kExifHeader{"Exif\0\0", 6};
constexpr std::uint16_t kOrientationTag = 0x0112;
constexpr std::uint16_t kTypeShort = 3;
constexpr std::size_t kTiffHeaderSize = 8;
constexpr std::size_t kEntrySize = 12;
constexpr std::uint16_t kTiffMagic = 42;

class TiffReader {
 public:
  TiffReader(std::span<const std::uint8_t> tiff, bool big_endian)
      : tiff_(tiff), big_endian_(big_endian) {}
  [[nodiscard]] bool has(std::size_t at, std::size_t count) const {
    return at <= tiff_.size() && count <= tiff_.size() - at;
  }
  [[nodiscard]] std::uint16_t u16(std::size_t at) const {
    const std::uint16_t a = tiff_[at];
    const std::uint16_t b = tiff_[at + 1];
    return static_cast<std::uint16_t>(big_endian_ ? (a << 8) | b : (b << 8) | a);
  }
  [[nodiscard]] std::uint32_t u32(std::size_t at) const {
    const std::uint32_t a = u16(at);
    const std::uint32_t b = u16(at + 2);
    return big_endian_ ? (a << 16) | b : (b << 16) | a;
  }

 private:
  std::span<const std::uint8_t> tiff_;
  bool big_endian_;
};

/// Where source pixel (x, y) of a w x h image goes for each orientation, as a function of
/// the output's width.
struct Mapping {
  int out_x;
  int out_y;
};

Mapping destination(int orientation, int x, int y, int w, int h) {
  switch (orientation) {
    case 2:
      return {w - 1 - x, y};
    case 3:
      return {w - 1 - x, h - 1 - y};
    case 4:
      return {x, h - 1 - y};
    case 5:
      return {y, x};
    case 6:
      return {h - 1 - y, x};
    case 7:
      return {h - 1 - y, w - 1 - x};
    case 8:
      return {y, w - 1 - x};
    default:
      return {x, y};
  }
}

}  // namespace

int exif_orientation(std::span<const std::uint8_t> app1) {
  if (app1.size() < kExifHeader.size() + kTiffHeaderSize ||
      std::memcmp(app1.data(), kExifHeader.data(), kExifHeader.size()) != 0) {
    return kOrientationUpright;
  }
  const auto tiff = app1.subspan(kExifHeader.size());
  const bool big_endian = tiff[0] == 'M' && tiff[1] == 'M';
  if (!big_endian && !(tiff[0] == 'I' && tiff[1] == 'I')) return kOrientationUpright;
  const TiffReader in(tiff, big_endian);
  if (in.u16(2) != kTiffMagic) return kOrientationUpright;
  const std::size_t ifd = in.u32(4);
  if (!in.has(ifd, 2)) return kOrientationUpright;
  const std::size_t entries = in.u16(ifd);
  for (std::size_t i = 0; i < entries; ++i) {
    const std::size_t entry = ifd + 2 + i * kEntrySize;
    if (!in.has(entry, kEntrySize)) break;
    if (in.u16(entry) != kOrientationTag) continue;
    if (in.u16(entry + 2) != kTypeShort || in.u32(entry + 4) != 1) return kOrientationUpright;
    const int value = in.u16(entry + 8);
    return value >= kOrientationUpright && value <= kOrientationLast ? value : kOrientationUpright;
  }
  return kOrientationUpright;
}

int jpeg_exif_orientation(std::span<const std::uint8_t> jpeg) {
  constexpr std::uint8_t kMarkerPrefix = 0xff;
  constexpr std::uint8_t kApp1 = 0xe1;
  constexpr std::uint8_t kStartOfScan = 0xda;
  constexpr std::uint8_t kEndOfImage = 0xd9;
  constexpr std::uint8_t kFirstStandalone = 0xd0;  // RST0..RST7, SOI: no length field
  constexpr std::uint8_t kLastStandalone = 0xd8;
  constexpr std::uint8_t kTemporary = 0x01;
  constexpr std::size_t kLengthBytes = 2;
  std::size_t at = 2;  // after SOI
  while (at + 1 < jpeg.size() && jpeg[at] == kMarkerPrefix) {
    const std::uint8_t marker = jpeg[at + 1];
    at += 2;
    if (marker == kMarkerPrefix) {  // fill byte
      --at;
      continue;
    }
    if (marker == kStartOfScan || marker == kEndOfImage) break;
    if ((marker >= kFirstStandalone && marker <= kLastStandalone) || marker == kTemporary) continue;
    if (at + kLengthBytes > jpeg.size()) break;
    const std::size_t length = (std::size_t{jpeg[at]} << 8) | jpeg[at + 1];
    if (length < kLengthBytes || at + length > jpeg.size()) break;
    if (marker == kApp1) {
      const int orientation =
          exif_orientation(jpeg.subspan(at + kLengthBytes, length - kLengthBytes));
      if (orientation != kOrientationUpright) return orientation;
    }
    at += length;
  }
  return kOrientationUpright;
}

Image apply_orientation(Image image, int orientation) {
  if (orientation <= kOrientationUpright || orientation > kOrientationLast) return image;
  const int w = image.width();
  const int h = image.height();
  const int c = image.channels();
  Image out =
      swaps_sides(orientation) ? Image::uninitialized(h, w, c) : Image::uninitialized(w, h, c);
  for (int y = 0; y < h; ++y) {
    const std::uint8_t* row = image.row(y);
    for (int x = 0; x < w; ++x) {
      const Mapping to = destination(orientation, x, y, w, h);
      std::copy_n(row + static_cast<std::ptrdiff_t>(x) * c, c,
                  out.row(to.out_y) + static_cast<std::ptrdiff_t>(to.out_x) * c);
    }
  }
  return out;
}

}  // namespace parfilter::io
