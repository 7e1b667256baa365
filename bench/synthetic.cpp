#include "synthetic.hpp"

#include <algorithm>
#include <array>

namespace parfilter::bench {

Image synthetic_image(int width, int height, int channels, std::uint32_t seed) {
  constexpr int kTile = 64;
  constexpr int kTileLift = 96;
  constexpr int kNoise = 32;
  constexpr int kLevels = 256;
  constexpr int kMaxSample = 255;
  constexpr int kHalfSample = 127;
  constexpr int kAlphaBase = 224;  // mostly opaque, still varied
  constexpr unsigned kBitsPerByte = 8U;
  Image image(width, height, channels);
  std::uint32_t state = seed;
  for (int y = 0; y < height; ++y) {
    std::uint8_t* row = image.row(y);
    for (int x = 0; x < width; ++x) {
      state ^= state << 13U;  // xorshift32
      state ^= state >> 17U;
      state ^= state << 5U;
      const int tile = ((x / kTile) + (y / kTile)) % 2 == 0 ? 0 : kTileLift;
      const std::array<int, 4> base = {x * kMaxSample / width, y * kMaxSample / height,
                                       (x + y) * kHalfSample / (width + height), kAlphaBase};
      for (int c = 0; c < channels; ++c) {
        const int noise =
            static_cast<int>(state >> (kBitsPerByte * static_cast<unsigned>(c))) % kNoise;
        row[x * channels + c] = static_cast<std::uint8_t>((base[c] + tile + noise) % kLevels);
      }
    }
  }
  return image;
}

Image synthetic_image_16(int width, int height, int channels, std::uint32_t seed) {
  constexpr int kByteScale = 257;
  constexpr std::uint32_t kLowByte = 0xFFU;
  constexpr int kTop = 65535;
  constexpr std::uint32_t kLcgMultiplier = 1664525U;  // Numerical Recipes' LCG
  constexpr std::uint32_t kLcgIncrement = 1013904223U;
  constexpr unsigned kHighByteShift = 24U;
  const Image eight = synthetic_image(width, height, channels, seed);
  Image image(width, height, channels, Depth::u16);
  std::uint32_t state = seed;
  for (int y = 0; y < height; ++y) {
    for (int x = 0; x < width; ++x) {
      for (int c = 0; c < channels; ++c) {
        state = state * kLcgMultiplier + kLcgIncrement;  // its high byte for the low one
        const int v = eight.at(x, y, c) * kByteScale - static_cast<int>(kLowByte / 2) +
                      static_cast<int>((state >> kHighByteShift) & kLowByte);
        image.set_sample(x, y, c, std::clamp(v, 0, kTop));
      }
    }
  }
  return image;
}

}  // namespace parfilter::bench
