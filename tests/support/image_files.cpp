#include "support/image_files.hpp"

#include <algorithm>
#include <fstream>
#include <iterator>
#include <utility>

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

namespace {

/// Entropy-coded bits, most significant first, with a 0x00 stuffed after every 0xFF byte.
class BitWriter {
 public:
  void put(std::uint32_t bits, int count) {
    for (int i = count - 1; i >= 0; --i) {
      byte_ = static_cast<std::uint8_t>((byte_ << 1) | ((bits >> i) & 1U));
      if (++filled_ == kBitsPerByte) flush_byte();
    }
  }
  /// Pads the last byte with 1 bits, as the standard asks.
  Bytes finish() {
    while (filled_ != 0) put(1, 1);
    return std::move(out_);
  }

 private:
  static constexpr int kBitsPerByte = 8;
  static constexpr std::uint8_t kMarker = 0xff;
  void flush_byte() {
    out_.push_back(byte_);
    if (byte_ == kMarker) out_.push_back(0);
    byte_ = 0;
    filled_ = 0;
  }
  Bytes out_;
  std::uint8_t byte_ = 0;
  int filled_ = 0;
};

void put_be16(Bytes& out, std::uint32_t v) {
  out.push_back(static_cast<std::uint8_t>(v >> 8));
  out.push_back(static_cast<std::uint8_t>(v));
}

}  // namespace

Bytes make_dc_overflow_jpeg(std::uint16_t width, std::uint16_t height, bool progressive) {
  constexpr std::uint8_t kSoi = 0xd8, kDqt = 0xdb, kSof0 = 0xc0, kSof2 = 0xc2, kDht = 0xc4,
                         kSos = 0xda, kEoi = 0xd9;
  constexpr std::uint8_t kDcQuantizer = 255;
  constexpr int kCoefficients = 64;
  constexpr int kCodeLengths = 16;
  constexpr std::uint8_t kDcCategory = 15;  // a difference of 15 bits
  constexpr std::uint32_t kLargestDifference = 0x7fff;
  constexpr std::uint8_t kEndOfBlock = 0x00;  // the AC symbol
  constexpr std::uint8_t kLastCoefficient = 63;
  constexpr int kBlock = 8;
  auto segment = [](Bytes& out, std::uint8_t marker, const Bytes& body) {
    out.insert(out.end(), {0xff, marker});
    put_be16(out, static_cast<std::uint32_t>(body.size() + 2));
    out.insert(out.end(), body.begin(), body.end());
  };
  // A Huffman table of one 1-bit code ("0") for `symbol`.
  auto one_code_table = [&](std::uint8_t table_class, std::uint8_t symbol) {
    Bytes body{static_cast<std::uint8_t>(table_class << 4), 1};
    body.insert(body.end(), kCodeLengths - 1, 0);
    body.push_back(symbol);
    return body;
  };
  Bytes jpeg{0xff, kSoi};
  Bytes quantizers{0, kDcQuantizer};
  quantizers.insert(quantizers.end(), kCoefficients - 1, 1);
  segment(jpeg, kDqt, quantizers);
  Bytes frame{8};  // 8-bit samples
  put_be16(frame, height);
  put_be16(frame, width);
  frame.insert(frame.end(), {1, 1, 0x11, 0});  // one component: id 1, 1x1 sampling, table 0
  segment(jpeg, progressive ? kSof2 : kSof0, frame);
  segment(jpeg, kDht, one_code_table(0, kDcCategory));
  if (!progressive) segment(jpeg, kDht, one_code_table(1, kEndOfBlock));
  // One component with tables 0/0; spectral selection 0..63 (baseline) or the DC alone.
  segment(jpeg, kSos, {1, 1, 0x00, 0, progressive ? std::uint8_t{0} : kLastCoefficient, 0});
  BitWriter bits;
  const std::uint64_t blocks =
      std::uint64_t{(width + kBlock - 1U) / kBlock} * ((height + kBlock - 1U) / kBlock);
  for (std::uint64_t b = 0; b < blocks; ++b) {
    bits.put(0, 1);  // the DC code: category 15
    bits.put(kLargestDifference, kDcCategory);
    if (!progressive) bits.put(0, 1);  // the AC code: end of block
  }
  const Bytes scan = bits.finish();
  jpeg.insert(jpeg.end(), scan.begin(), scan.end());
  jpeg.insert(jpeg.end(), {0xff, kEoi});
  return jpeg;
}

Bytes with_exif_orientation(const Bytes& jpeg, int value, bool big_endian, std::uint16_t type,
                            std::uint32_t count) {
  constexpr std::uint16_t kTiffMagic = 42;
  constexpr std::uint32_t kFirstIfdOffset = 8;
  constexpr std::uint16_t kOrientationTag = 0x0112;
  constexpr std::uint8_t kApp1 = 0xe1;
  auto u16 = [&](Bytes& out, std::uint32_t v) {
    if (big_endian) {
      out.push_back(static_cast<std::uint8_t>(v >> 8));
      out.push_back(static_cast<std::uint8_t>(v));
    } else {
      put_le16(out, v);
    }
  };
  auto u32 = [&](Bytes& out, std::uint32_t v) {
    if (big_endian) {
      put_be32(out, v);
    } else {
      put_le32(out, v);
    }
  };
  const std::uint8_t byte_order = big_endian ? 'M' : 'I';
  // One initializer: GCC 12 reports a false -Warray-bounds for an insert into a 6-byte vector
  // in position-independent builds (the Python module's).
  Bytes payload{'E', 'x', 'i', 'f', 0, 0, byte_order, byte_order};
  u16(payload, kTiffMagic);
  u32(payload, kFirstIfdOffset);
  u16(payload, 1);  // one entry
  u16(payload, kOrientationTag);
  u16(payload, type);
  u32(payload, count);
  u16(payload, static_cast<std::uint32_t>(value));  // a SHORT in the first half of the field
  u16(payload, 0);
  u32(payload, 0);  // no next IFD
  Bytes out{0xff, kApp1, static_cast<std::uint8_t>((payload.size() + 2) >> 8),
            static_cast<std::uint8_t>(payload.size() + 2)};
  out.insert(out.begin(), jpeg.begin(), jpeg.begin() + 2);  // SOI first
  out.insert(out.end(), payload.begin(), payload.end());
  out.insert(out.end(), jpeg.begin() + 2, jpeg.end());
  return out;
}

}  // namespace parfilter::test::files
