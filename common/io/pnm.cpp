// PNM (binary PGM P5 and PPM P6) is decoded here: the format is a short text header and raw
// samples, and stb_image 2.27 reads 16-bit samples in the wrong byte order and ignores maxval.
#include <algorithm>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "codecs.hpp"

namespace parfilter::io {
namespace {

struct PnmHeader {
  std::uint64_t width = 0;
  std::uint64_t height = 0;
  int channels = 0;  // 1 (P5) or 3 (P6)
  std::uint32_t max_value = 0;
  int bytes_per_sample = 0;  // 1, or 2 (big-endian) when maxval > 255
  std::uint64_t data_offset = 0;
};

/// Parses a binary PNM (P5/P6) header: magic, then width, height and maxval separated by
/// whitespace or '#' comments, then one whitespace byte. Returns the header or the cause.
[[nodiscard]] std::optional<std::string> parse_pnm_header(std::span<const std::uint8_t> bytes,
                                                          PnmHeader& header) {
  constexpr std::uint64_t kMagicSize = 2;
  constexpr std::uint64_t kMaxValue = 65535;
  constexpr std::uint64_t kLargestByteSample = 255;
  constexpr std::uint64_t kTooManyDigits = std::uint64_t{1} << 40;
  header.channels = bytes[1] == '5' ? 1 : 3;
  std::uint64_t at = kMagicSize;
  auto is_space = [](std::uint8_t c) {
    return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r';
  };
  auto read_number = [&](std::uint64_t& value) -> bool {
    while (at < bytes.size() && (is_space(bytes[at]) || bytes[at] == '#')) {
      if (bytes[at] == '#') {
        while (at < bytes.size() && bytes[at] != '\n' && bytes[at] != '\r') ++at;
      } else {
        ++at;
      }
    }
    if (at >= bytes.size() || bytes[at] < '0' || bytes[at] > '9') return false;
    value = 0;
    while (at < bytes.size() && bytes[at] >= '0' && bytes[at] <= '9') {
      value = value * 10 + (bytes[at++] - '0');
      if (value > kTooManyDigits) return false;
    }
    return true;
  };
  std::uint64_t max_value = 0;
  if (!read_number(header.width) || !read_number(header.height) || !read_number(max_value)) {
    return std::string(at >= bytes.size() ? "truncated PNM header" : "invalid PNM header");
  }
  if (max_value == 0 || max_value > kMaxValue) {
    return "invalid PNM maximum value " + std::to_string(max_value);
  }
  if (at >= bytes.size() || !is_space(bytes[at])) return std::string("truncated PNM header");
  header.data_offset = at + 1;
  header.max_value = static_cast<std::uint32_t>(max_value);
  header.bytes_per_sample = max_value > kLargestByteSample ? 2 : 1;
  return std::nullopt;
}

constexpr std::uint32_t kByteMax = 255;
constexpr std::uint32_t kWordMax = 65535;
constexpr int kBitsPerByte = 8;

/// Decodes the samples of a PNM whose header parsed, whose size was checked and whose data is
/// complete. maxval up to 255 gives an 8-bit image, its samples scaled to 0..255 (255 as is,
/// any other maxval as round(255 v / maxval)); a larger maxval gives a 16-bit image of the
/// samples as stored (12-bit data stays 0..4095). v is clamped to maxval.
[[nodiscard]] Image decode_pnm(std::span<const std::uint8_t> bytes, const PnmHeader& header) {
  const bool wide = header.bytes_per_sample == 2;
  Image image = Image::uninitialized(static_cast<int>(header.width),
                                     static_cast<int>(header.height), header.channels,
                                     wide ? Depth::u16 : Depth::u8);
  const std::uint8_t* in = bytes.data() + header.data_offset;
  const std::size_t count = image.size_bytes() / header.bytes_per_sample;
  if (wide) {
    std::uint16_t* out = image.samples<std::uint16_t>();
    for (std::size_t i = 0; i < count; ++i, in += 2) {
      const std::uint32_t v = (std::uint32_t{in[0]} << kBitsPerByte) | in[1];
      out[i] = static_cast<std::uint16_t>(std::min(v, header.max_value));
    }
    return image;
  }
  for (std::size_t i = 0; i < count; ++i) {
    std::uint32_t v = std::min<std::uint32_t>(*in++, header.max_value);
    if (header.max_value != kByteMax) {
      v = (v * kByteMax + header.max_value / 2) / header.max_value;
    }
    image.data()[i] = static_cast<std::uint8_t>(v);
  }
  return image;
}

}  // namespace

Image decode_pnm_file(std::span<const std::uint8_t> bytes, const std::string& name,
                      const LoadOptions& options) {
  PnmHeader header;
  if (auto cause = parse_pnm_header(bytes, header)) fail(name, *cause);
  check_image_size(name, static_cast<std::int64_t>(header.width),
                   static_cast<std::int64_t>(header.height), header.channels, options.max_bytes,
                   header.bytes_per_sample == 2 ? Depth::u16 : Depth::u8);
  const std::uint64_t needed =
      header.width * header.height * header.channels * header.bytes_per_sample;
  if (header.data_offset + needed > bytes.size()) {
    fail(name, "truncated file: the PNM pixel data needs " + std::to_string(needed) +
                   " bytes, the file has " + std::to_string(bytes.size() - header.data_offset));
  }
  return decode_pnm(bytes, header);
}

void encode_pnm(const Image& image, const std::string& name, const ByteSink& sink) {
  if (image.channels() == 4) {
    fail(name, "PNM has no alpha channel: save an RGBA image as .png or .tif");
  }
  const bool wide = image.depth() == Depth::u16;
  const std::string header = std::string(image.channels() == 1 ? "P5" : "P6") + "\n" +
                             std::to_string(image.width()) + " " + std::to_string(image.height()) +
                             "\n" + std::to_string(wide ? kWordMax : kByteMax) + "\n";
  sink(std::span(reinterpret_cast<const std::uint8_t*>(header.data()), header.size()));
  if (!wide) {
    sink(std::span(image.bytes(), image.size_bytes()));
    return;
  }
  // Big-endian samples, a row at a time.
  const ConstImageView16 in = image.view_of<std::uint16_t>();
  std::vector<std::uint8_t> row(static_cast<std::size_t>(in.row_samples()) * 2);
  for (int y = 0; y < image.height(); ++y) {
    const std::uint16_t* samples = in.row(y);
    for (std::ptrdiff_t i = 0; i < in.row_samples(); ++i) {
      row[2 * i] = static_cast<std::uint8_t>(samples[i] >> kBitsPerByte);
      row[2 * i + 1] = static_cast<std::uint8_t>(samples[i]);
    }
    sink(row);
  }
}

}  // namespace parfilter::io
