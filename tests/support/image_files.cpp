#include "support/image_files.hpp"

#include <algorithm>
#include <fstream>
#include <iterator>

namespace parfilter::test::files {

void write_bytes(const std::filesystem::path& path, const Bytes& bytes) {
  std::ofstream out(path, std::ios::binary);
  out.write(reinterpret_cast<const char*>(bytes.data()),
            static_cast<std::streamsize>(bytes.size()));
}

void write_text(const std::filesystem::path& path, const std::string& text) {
  write_bytes(path, Bytes(text.begin(), text.end()));
}

Bytes read_bytes(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  return Bytes(std::istreambuf_iterator<char>(in), {});
}

void put_le16(Bytes& out, std::uint32_t v) {
  out.push_back(static_cast<std::uint8_t>(v));
  out.push_back(static_cast<std::uint8_t>(v >> 8));
}

void put_le32(Bytes& out, std::uint32_t v) {
  put_le16(out, v & 0xffff);
  put_le16(out, v >> 16);
}

void put_be32(Bytes& out, std::uint32_t v) {
  for (int shift = 24; shift >= 0; shift -= 8) out.push_back(static_cast<std::uint8_t>(v >> shift));
}

std::uint32_t crc32(const Bytes& bytes) {
  std::uint32_t crc = 0xffffffffu;
  for (std::uint8_t b : bytes) {
    crc ^= b;
    for (int k = 0; k < 8; ++k) crc = (crc >> 1) ^ (0xedb88320u & (0u - (crc & 1u)));
  }
  return ~crc;
}

Bytes zlib_stored(const Bytes& raw) {
  constexpr std::size_t kMaxStoredBlock = 65535;
  constexpr std::uint32_t kAdlerModulus = 65521;
  Bytes out{0x78, 0x01};
  std::size_t at = 0;
  do {
    const std::size_t n = std::min(kMaxStoredBlock, raw.size() - at);
    out.push_back(at + n == raw.size() ? 1 : 0);
    put_le16(out, static_cast<std::uint32_t>(n));
    put_le16(out, static_cast<std::uint32_t>(~n & 0xffff));
    out.insert(out.end(), raw.begin() + static_cast<std::ptrdiff_t>(at),
               raw.begin() + static_cast<std::ptrdiff_t>(at + n));
    at += n;
  } while (at < raw.size());
  std::uint32_t a = 1;
  std::uint32_t b = 0;
  for (std::uint8_t v : raw) {
    a = (a + v) % kAdlerModulus;
    b = (b + a) % kAdlerModulus;
  }
  put_be32(out, (b << 16) | a);
  return out;
}

void put_chunk(Bytes& png, const std::string& type, const Bytes& data) {
  put_be32(png, static_cast<std::uint32_t>(data.size()));
  Bytes typed(type.begin(), type.end());
  typed.insert(typed.end(), data.begin(), data.end());
  png.insert(png.end(), typed.begin(), typed.end());
  put_be32(png, crc32(typed));
}

Bytes make_png(std::uint32_t width, std::uint32_t height, int bit_depth, PngColor color,
               const std::vector<Bytes>& rows, const Bytes& palette, const Bytes& trns) {
  Bytes png{0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};
  Bytes header;
  put_be32(header, width);
  put_be32(header, height);
  header.insert(header.end(), {static_cast<std::uint8_t>(bit_depth), color, 0, 0, 0});
  put_chunk(png, "IHDR", header);
  if (!palette.empty()) put_chunk(png, "PLTE", palette);
  if (!trns.empty()) put_chunk(png, "tRNS", trns);
  Bytes raw;
  for (const Bytes& row : rows) {
    raw.push_back(0);  // filter: none
    raw.insert(raw.end(), row.begin(), row.end());
  }
  if (!rows.empty()) put_chunk(png, "IDAT", zlib_stored(raw));
  put_chunk(png, "IEND", {});
  return png;
}

Bytes make_bmp(std::int32_t width, std::int32_t height, const Bytes& pixels) {
  constexpr std::uint32_t kHeadersSize = 54;  // file header 14 + BITMAPINFOHEADER 40
  constexpr std::uint32_t kInfoHeaderSize = 40;
  constexpr std::uint32_t kBitsPerPixel = 24;
  Bytes bmp{'B', 'M'};
  put_le32(bmp, static_cast<std::uint32_t>(kHeadersSize + pixels.size()));
  put_le32(bmp, 0);
  put_le32(bmp, kHeadersSize);
  put_le32(bmp, kInfoHeaderSize);
  put_le32(bmp, static_cast<std::uint32_t>(width));
  put_le32(bmp, static_cast<std::uint32_t>(height));
  put_le16(bmp, 1);
  put_le16(bmp, kBitsPerPixel);
  for (int i = 0; i < 6; ++i) put_le32(bmp, 0);
  bmp.insert(bmp.end(), pixels.begin(), pixels.end());
  return bmp;
}

Bytes make_tga(std::uint16_t width, std::uint16_t height, int bits, bool top_down,
               const Bytes& pixels) {
  constexpr std::uint8_t kTopDownFlag = 0x20;
  Bytes tga{0, 0, 2, 0, 0, 0, 0, 0, 0, 0, 0, 0};
  put_le16(tga, width);
  put_le16(tga, height);
  tga.push_back(static_cast<std::uint8_t>(bits));
  tga.push_back(top_down ? kTopDownFlag : 0);
  tga.insert(tga.end(), pixels.begin(), pixels.end());
  return tga;
}

}  // namespace parfilter::test::files
