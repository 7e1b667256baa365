// PNM (binary PGM P5 and PPM P6) is decoded here: the format is a short text header and raw
// samples, and stb_image 2.27 reads 16-bit samples in the wrong byte order and ignores maxval.
#include <algorithm>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "codecs.hpp"
#include "pnm_format.hpp"

namespace parfilter::io {

std::optional<std::string> parse_pnm_header(std::span<const std::uint8_t> bytes,
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

namespace {

constexpr std::uint32_t kByteMax = 255;
constexpr std::uint32_t kWordMax = 65535;
constexpr int kBitsPerByte = 8;

}  // namespace

void convert_pnm_samples(const std::uint8_t* in, std::size_t count, const PnmHeader& header,
                         std::uint8_t* out) {
  if (header.bytes_per_sample == 2) {
    auto* to = reinterpret_cast<std::uint16_t*>(out);
    for (std::size_t i = 0; i < count; ++i, in += 2) {
      const std::uint32_t v = (std::uint32_t{in[0]} << kBitsPerByte) | in[1];
      to[i] = static_cast<std::uint16_t>(std::min(v, header.max_value));
    }
    return;
  }
  for (std::size_t i = 0; i < count; ++i) {
    std::uint32_t v = std::min<std::uint32_t>(*in++, header.max_value);
    if (header.max_value != kByteMax) {
      v = (v * kByteMax + header.max_value / 2) / header.max_value;
    }
    out[i] = static_cast<std::uint8_t>(v);
  }
}

std::string pnm_header_text(int width, int height, int channels, Depth depth) {
  return std::string(channels == 1 ? "P5" : "P6") + "\n" + std::to_string(width) + " " +
         std::to_string(height) + "\n" + std::to_string(depth == Depth::u16 ? kWordMax : kByteMax) +
         "\n";
}

void check_pnm_channels(int channels, const std::string& name) {
  if (channels == 4) fail(name, "PNM has no alpha channel: save an RGBA image as .png or .tif");
}

void pnm_big_endian_row(const std::uint16_t* samples, std::ptrdiff_t count, std::uint8_t* out) {
  for (std::ptrdiff_t i = 0; i < count; ++i) {
    out[2 * i] = static_cast<std::uint8_t>(samples[i] >> kBitsPerByte);
    out[2 * i + 1] = static_cast<std::uint8_t>(samples[i]);
  }
}

std::optional<std::string> check_pnm_data(const PnmHeader& header, std::uint64_t file_size) {
  const std::uint64_t needed = header.width * header.height *
                               static_cast<std::uint64_t>(header.channels) *
                               static_cast<std::uint64_t>(header.bytes_per_sample);
  if (header.data_offset + needed <= file_size) return std::nullopt;
  return "truncated file: the PNM pixel data needs " + std::to_string(needed) +
         " bytes, the file has " + std::to_string(file_size - header.data_offset);
}

Image decode_pnm_file(std::span<const std::uint8_t> bytes, const std::string& name,
                      const LoadOptions& options) {
  PnmHeader header;
  if (auto cause = parse_pnm_header(bytes, header)) fail(name, *cause);
  check_image_size(name, static_cast<std::int64_t>(header.width),
                   static_cast<std::int64_t>(header.height), header.channels, options.max_bytes,
                   header.bytes_per_sample == 2 ? Depth::u16 : Depth::u8);
  if (auto cause = check_pnm_data(header, bytes.size())) fail(name, *cause);
  Image image =
      Image::uninitialized(static_cast<int>(header.width), static_cast<int>(header.height),
                           header.channels, header.bytes_per_sample == 2 ? Depth::u16 : Depth::u8);
  convert_pnm_samples(bytes.data() + header.data_offset,
                      image.size_bytes() / static_cast<std::size_t>(header.bytes_per_sample),
                      header, image.bytes());
  return image;
}

void encode_pnm(const Image& image, const std::string& name, const ByteSink& sink) {
  check_pnm_channels(image.channels(), name);
  const std::string header =
      pnm_header_text(image.width(), image.height(), image.channels(), image.depth());
  sink(std::span(reinterpret_cast<const std::uint8_t*>(header.data()), header.size()));
  if (image.depth() == Depth::u8) {
    sink(std::span(image.bytes(), image.size_bytes()));
    return;
  }
  // Big-endian samples, a row at a time.
  const ConstImageView16 in = image.view_of<std::uint16_t>();
  std::vector<std::uint8_t> row(static_cast<std::size_t>(in.row_samples()) * 2);
  for (int y = 0; y < image.height(); ++y) {
    pnm_big_endian_row(in.row(y), in.row_samples(), row.data());
    sink(row);
  }
}

}  // namespace parfilter::io
