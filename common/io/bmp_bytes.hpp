// Internal to bmp_format.cpp (the parser) and bmp_decode.cpp (the general decoder): the reader
// of BMP's little-endian fields and the constants both use.
#pragma once

#include <cstdint>
#include <span>

namespace parfilter::io::bmp {

inline constexpr int kMaxPaletteBits = 8;
inline constexpr int kBitsPerByte = 8;

/// The file's bytes, read as little-endian fields. The reads do not check their offset: each
/// caller asks has() first (or relies on check_bmp_pixel_data, which did).
class LittleEndianBytes {
 public:
  explicit LittleEndianBytes(std::span<const std::uint8_t> bytes) : bytes_(bytes) {}
  [[nodiscard]] bool has(std::uint64_t offset, std::uint64_t count) const {
    return offset <= bytes_.size() && count <= bytes_.size() - offset;
  }
  [[nodiscard]] std::uint8_t u8(std::uint64_t offset) const { return bytes_[offset]; }
  [[nodiscard]] std::uint16_t u16(std::uint64_t offset) const {
    return static_cast<std::uint16_t>(bytes_[offset] | (bytes_[offset + 1] << kBitsPerByte));
  }
  [[nodiscard]] std::uint32_t u32(std::uint64_t offset) const {
    return static_cast<std::uint32_t>(u16(offset)) |
           (static_cast<std::uint32_t>(u16(offset + 2)) << (2 * kBitsPerByte));
  }
  [[nodiscard]] std::uint64_t size() const { return bytes_.size(); }

 private:
  std::span<const std::uint8_t> bytes_;
};

}  // namespace parfilter::io::bmp
