// Shared test helpers: synthetic images, data/ paths, temporary directories, image equality.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <filesystem>
#include <string>

#include "parfilter/image.hpp"
#include "parfilter/op_set.hpp"

namespace parfilter::test {

/// A deterministic image with structure every op reacts to: gradients, flat blocks (for
/// morphology and the adaptive segment's flat-background rule), edges and noise.
[[nodiscard]] Image synthetic_image(int width, int height, int channels, std::uint32_t seed);

/// A 16-bit image with synthetic_image's structure in its high byte and noise in its low one
/// (content in every bit), shifted down to `significant_bits` (12: camera data, 0..4095).
[[nodiscard]] Image synthetic_image_16(int width, int height, int channels, std::uint32_t seed,
                                       int significant_bits = 16);

/// Uniform noise, every sample independent.
[[nodiscard]] Image noise_image(int width, int height, int channels, std::uint32_t seed);

/// An image from raw rows, for hand-computed cases: samples.size() == w * h * channels.
[[nodiscard]] Image make_image(int width, int height, int channels,
                               std::initializer_list<int> samples);

/// make_image at 16 bits.
[[nodiscard]] Image make_image_16(int width, int height, int channels,
                                  std::initializer_list<int> samples);

/// Every 24-bit colour once: a 4096 x 4096 RGB image whose pixel i is (i >> 16, i >> 8, i).
[[nodiscard]] Image every_colour_image();

[[nodiscard]] std::filesystem::path data_dir();
[[nodiscard]] std::filesystem::path shared_dir();
/// data/<name>, loaded through parfilter's loader.
[[nodiscard]] Image load_data_image(const std::string& name);

/// Equality with a readable first difference on failure.
[[nodiscard]] ::testing::AssertionResult same_image(const Image& expected, const Image& actual);
/// The same threshold, histogram and image; says which differs.
[[nodiscard]] ::testing::AssertionResult same_output(const OpOutput& expected,
                                                     const OpOutput& actual);

/// A fresh empty directory under the system temp dir, removed with its contents on scope exit.
class TempDir {
 public:
  TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  ~TempDir();
  [[nodiscard]] const std::filesystem::path& path() const { return path_; }
  [[nodiscard]] std::filesystem::path operator/(const std::string& name) const {
    return path_ / name;
  }
  /// Names of the regular files in the directory, sorted.
  [[nodiscard]] std::vector<std::string> files() const;

 private:
  std::filesystem::path path_;
};

}  // namespace parfilter::test
