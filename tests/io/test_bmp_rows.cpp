// load_image reads a large uncompressed BMP a chunk of rows at a time straight into the image
// (common/io/bmp.cpp); everything else decodes from the whole file. Both give the same image,
// and a BMP whose rows are cut short gives the same one-line error either way.
#include <gtest/gtest.h>

#include <cstdint>
#include <filesystem>
#include <string>
#include <utility>

#include "parfilter/error.hpp"
#include "parfilter/image_io.hpp"
#include "support/image_files.hpp"
#include "support/test_images.hpp"

namespace parfilter {
namespace {

namespace fs = std::filesystem;
using namespace test::files;  // NOLINT: the file builders are this test's vocabulary

/// Sizes past the header read (64 KiB) and over several 1 MiB chunks, with widths whose rows
/// need padding; a 1-row and a 1-column image of the same bytes.
constexpr std::pair<int, int> kSizes[] = {{1031, 409}, {513, 2049}, {40000, 1}, {1, 40000}};

class BmpRows : public ::testing::TestWithParam<int> {};

TEST_P(BmpRows, FileAndMemoryLoadTheSameImage) {
  const int channels = GetParam();
  test::TempDir dir;
  for (const auto& [width, height] : kSizes) {
    const Image original = test::synthetic_image(width, height, channels, 7);
    const fs::path file = dir / "large.bmp";
    save_image(original, file);
    const Image from_file = load_image(file);
    EXPECT_TRUE(test::same_image(original, from_file)) << width << "x" << height;
    const Bytes bytes = read_bytes(file);
    EXPECT_TRUE(test::same_image(from_file, load_image_from_memory(bytes, file.string())))
        << width << "x" << height;
  }
}

INSTANTIATE_TEST_SUITE_P(Channels, BmpRows, ::testing::Values(1, 3, 4));

TEST(BmpRowsTopDown, RowsComeInFileOrder) {
  constexpr int kWidth = 700;
  constexpr int kHeight = 200;  // 420 KB of 24-bit rows, past the header read
  constexpr int kStride = kWidth * 3;
  Bytes pixels(static_cast<std::size_t>(kStride) * kHeight);
  for (std::size_t i = 0; i < pixels.size(); ++i) pixels[i] = static_cast<std::uint8_t>(i * 7 / 5);
  test::TempDir dir;
  write_bytes(dir / "down.bmp", make_bmp(kWidth, -kHeight, pixels));
  write_bytes(dir / "up.bmp", make_bmp(kWidth, kHeight, pixels));
  const Image down = load_image(dir / "down.bmp");
  const Image up = load_image(dir / "up.bmp");
  for (int y = 0; y < kHeight; ++y) {
    for (int x = 0; x < kWidth; ++x) {
      const std::size_t at =
          static_cast<std::size_t>(y) * kStride + 3 * static_cast<std::size_t>(x);
      ASSERT_EQ(down.at(x, y, 0), pixels[at + 2]) << x << "," << y;  // stored blue, green, red
      ASSERT_EQ(down.at(x, y, 2), pixels[at]) << x << "," << y;
      ASSERT_EQ(up.at(x, kHeight - 1 - y, 1), pixels[at + 1]) << x << "," << y;
    }
  }
}

TEST(BmpRowsTruncated, SameErrorAsTheWholeFile) {
  constexpr int kWidth = 1000;
  constexpr int kHeight = 100;
  test::TempDir dir;
  const fs::path file = dir / "short.bmp";
  // The header promises 100 rows of 3000 bytes; the file holds 60 of them.
  write_bytes(file, make_bmp(kWidth, kHeight, Bytes(std::size_t{3000} * 60, 1)));
  const std::string from_file = [&] {
    try {
      (void)load_image(file);
    } catch (const InputError& error) {
      return std::string(error.what());
    }
    return std::string("no error");
  }();
  EXPECT_NE(from_file.find("truncated file"), std::string::npos) << from_file;
  EXPECT_NE(from_file.find(file.string()), std::string::npos) << from_file;
  EXPECT_THROW((void)load_image_from_memory(read_bytes(file), file.string()), InputError);
}

}  // namespace
}  // namespace parfilter
