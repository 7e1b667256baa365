// 16-bit images and TIFF (docs/IO.md): round trips through every format that holds 16 bits,
// every TIFF layout written by libtiff itself, the layouts refused with one line, hostile
// TIFFs, --depth's conversions, and 16-bit results refused by the 8-bit formats.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "codecs.hpp"
#include "parfilter/error.hpp"
#include "parfilter/image_io.hpp"
#include "support/image_files.hpp"
#include "support/test_images.hpp"
#include "support/tiff_files.hpp"

namespace parfilter {
namespace {

namespace fs = std::filesystem;
using test::RawTag;

struct DeepShape {
  int width;
  int height;
};
constexpr std::array kShapes = {DeepShape{1, 1}, DeepShape{1, 9}, DeepShape{7, 5},
                                DeepShape{33, 17}};

/// The test images at 16 bits: every bit, and 12-bit data.
std::vector<Image> deep_images(int channels) {
  std::vector<Image> images;
  for (const DeepShape& shape : kShapes) {
    for (const int bits : {16, 12}) {
      images.push_back(test::synthetic_image_16(shape.width, shape.height, channels,
                                                static_cast<std::uint32_t>(shape.width + bits),
                                                bits));
    }
  }
  return images;
}

bool one_line(const std::string& message) { return message.find('\n') == std::string::npos; }

void expect_input_error(const std::vector<std::uint8_t>& bytes, const std::string& names) {
  try {
    (void)load_image_from_memory(bytes, "bad.tif");
    ADD_FAILURE() << "loaded a TIFF that should be refused: " << names;
  } catch (const InputError& e) {
    const std::string message = e.what();
    EXPECT_TRUE(one_line(message)) << message;
    EXPECT_EQ(message.rfind("bad.tif: ", 0), 0U) << message;
    EXPECT_NE(message.find(names), std::string::npos) << message << " (wanted " << names << ")";
  }
}

TEST(DeepImages, RoundTripThroughEveryFormatThatHoldsSixteenBits) {
  test::TempDir dir;
  for (const int channels : {1, 3, 4}) {
    for (const Image& image : deep_images(channels)) {
      std::vector<std::string> extensions = {".png"};
      if (io::have_tiff()) extensions.push_back(".tif");
      if (channels != 4) extensions.push_back(channels == 1 ? ".pgm" : ".ppm");
      for (const std::string& extension : extensions) {
        const fs::path path = dir / ("deep" + extension);
        save_image(image, path);
        EXPECT_TRUE(test::same_image(image, load_image(path)))
            << extension << " " << image.width() << "x" << image.height() << "x" << channels;
      }
    }
  }
}

TEST(DeepImages, EveryTiffCompressionRoundTrips) {
  if (!io::have_tiff()) GTEST_SKIP() << "no libtiff in this build";
  const Image image = test::synthetic_image_16(19, 11, 3, 7);
  for (const auto compression : {TiffCompression::none, TiffCompression::lzw,
                                 TiffCompression::deflate, TiffCompression::packbits}) {
    SaveOptions options;
    options.tiff_compression = compression;
    const auto bytes = encode_image(image, ImageFormat::tiff, options, "out.tif");
    EXPECT_TRUE(test::same_image(image, load_image_from_memory(bytes, "out.tif")));
  }
}

TEST(DeepImages, EveryTiffLayoutLoadsAtEitherDepth) {
  if (!io::have_tiff()) GTEST_SKIP() << "no libtiff in this build";
  test::TempDir dir;
  for (const test::TiffLayout& layout : test::tiff_layouts()) {
    for (const int channels : {1, 3, 4}) {
      for (const bool deep : {false, true}) {
        const Image image = deep ? test::synthetic_image_16(21, 35, channels, 3)
                                 : test::synthetic_image(21, 35, channels, 3);
        const fs::path path = dir / (layout.name + ".tif");
        testing::internal::CaptureStderr();
        ASSERT_TRUE(test::write_tiff(path, image, layout));
        const Image loaded = load_image(path);
        const std::string said = testing::internal::GetCapturedStderr();
        EXPECT_TRUE(test::same_image(image, loaded))
            << layout.name << " " << channels << " channels, " << (deep ? 16 : 8) << " bits";
        EXPECT_EQ(said.empty(), layout.pages == 1) << layout.name << ": " << said;
      }
    }
  }
}

TEST(DeepImages, TiffGrayAlphaBecomesRgba) {
  if (!io::have_tiff()) GTEST_SKIP() << "no libtiff in this build";
  test::TempDir dir;
  Image image = test::synthetic_image_16(9, 4, 4, 5);
  test::TiffLayout layout{.name = "ga", .gray_alpha = true};
  ASSERT_TRUE(test::write_tiff(dir / "ga.tif", image, layout));
  for (int y = 0; y < image.height(); ++y) {
    for (int x = 0; x < image.width(); ++x) {
      image.set_sample(x, y, 1, image.sample(x, y, 0));
      image.set_sample(x, y, 2, image.sample(x, y, 0));
    }
  }
  EXPECT_TRUE(test::same_image(image, load_image(dir / "ga.tif")));
}

// Tags of a minimal 2x2 8-bit gray strip image, the pixels at offset 8.
std::vector<RawTag> gray_tags() {
  constexpr std::uint16_t kShort = 3;
  constexpr std::uint16_t kLong = 4;
  return {{256, kLong, 2}, {257, kLong, 2},   {258, kShort, 8}, {259, kShort, 1},
          {262, kShort, 1}, {273, kLong, 8},  {277, kShort, 1}, {278, kLong, 2},
          {279, kLong, 4}};
}

std::vector<RawTag> with(std::vector<RawTag> tags, RawTag changed) {
  for (RawTag& tag : tags) {
    if (tag.tag == changed.tag) {
      tag = changed;
      return tags;
    }
  }
  tags.push_back(changed);
  return tags;
}

TEST(DeepImages, TheRawTiffBuilderMakesALoadableFile) {
  if (!io::have_tiff()) GTEST_SKIP() << "no libtiff in this build";
  EXPECT_TRUE(test::same_image(test::make_image(2, 2, 1, {1, 2, 3, 4}),
                               load_image_from_memory(test::raw_tiff(gray_tags(), {1, 2, 3, 4}),
                                                      "raw.tif")));
}

TEST(DeepImages, OtherTiffSampleFormatsAreRefusedByName) {
  if (!io::have_tiff()) GTEST_SKIP() << "no libtiff in this build";
  const std::vector<std::uint8_t> pixels(64, 0);
  constexpr std::uint16_t kShort = 3;
  expect_input_error(test::raw_tiff(with(gray_tags(), {339, kShort, 3}), pixels),
                     "floating point");
  expect_input_error(test::raw_tiff(with(gray_tags(), {339, kShort, 2}), pixels), "signed");
  for (const std::uint32_t bits : {1U, 2U, 4U, 12U, 32U}) {
    expect_input_error(test::raw_tiff(with(gray_tags(), {258, kShort, bits}), pixels),
                       std::to_string(bits) + " bits per sample");
  }
  constexpr std::size_t kColormapShorts = 3 * 256;
  auto palette = with(gray_tags(), {262, kShort, 3});
  palette.push_back({320, kShort, 0, std::vector<std::uint16_t>(kColormapShorts, 0)});
  expect_input_error(test::raw_tiff(palette, pixels), "palette");
  expect_input_error(test::raw_tiff(with(gray_tags(), {262, kShort, 0}), pixels),
                     "min-is-white");
  auto cmyk = with(with(gray_tags(), {262, kShort, 5}), {277, kShort, 4});
  expect_input_error(test::raw_tiff(cmyk, pixels), "CMYK");
  auto ycbcr = with(with(gray_tags(), {262, kShort, 6}), {277, kShort, 3});
  expect_input_error(test::raw_tiff(ycbcr, pixels), "YCbCr");
}

TEST(DeepImages, HostileTiffsGiveOneLine) {
  if (!io::have_tiff()) GTEST_SKIP() << "no libtiff in this build";
  constexpr std::uint16_t kLong = 4;
  const std::vector<std::uint8_t> pixels = {1, 2, 3, 4};
  // A strip past the end of the file, and one cut short by it.
  expect_input_error(test::raw_tiff(with(gray_tags(), {273, kLong, 1U << 20}), pixels), "TIFF");
  const auto whole = test::raw_tiff(gray_tags(), pixels);
  const auto last = static_cast<std::uint32_t>(whole.size() - 2);
  expect_input_error(test::raw_tiff(with(gray_tags(), {273, kLong, last}), pixels), "TIFF");
  // Zero and absurd dimensions, refused before any pixel buffer exists.
  expect_input_error(test::raw_tiff(with(gray_tags(), {256, kLong, 0}), pixels), "bad.tif");
  expect_input_error(
      test::raw_tiff(with(with(gray_tags(), {256, kLong, 1U << 30}), {257, kLong, 1U << 30}),
                     pixels),
      "bad.tif");
  // A header alone, a cut IFD, and nonsense after the magic.
  for (const std::size_t size : {std::size_t{4}, std::size_t{8}, whole.size() - 7}) {
    expect_input_error({whole.begin(), whole.begin() + static_cast<std::ptrdiff_t>(size)},
                       "bad.tif");
  }
}

TEST(DeepImages, DepthConversions) {
  Image eight(256, 1, 1);
  for (int v = 0; v < 256; ++v) eight.at(v, 0) = static_cast<std::uint8_t>(v);
  const Image sixteen = convert_depth(eight, Depth::u16);
  ASSERT_EQ(sixteen.depth(), Depth::u16);
  for (int v = 0; v < 256; ++v) EXPECT_EQ(sixteen.sample(v, 0), 257 * v);
  EXPECT_EQ(convert_depth(sixteen, Depth::u8), eight);
  // floor((255 v + 32767) / 65535), hand-computed at the rounding edges.
  const Image edges = test::make_image(1, 1, 1, {0});
  Image words(6, 1, 1, Depth::u16);
  const std::array<int, 6> in = {0, 128, 129, 385, 386, 65535};
  const std::array<int, 6> out = {0, 0, 1, 1, 2, 255};
  for (int i = 0; i < 6; ++i) words.set_sample(i, 0, 0, in[i]);
  const Image bytes = convert_depth(words, Depth::u8);
  for (int i = 0; i < 6; ++i) EXPECT_EQ(bytes.sample(i, 0), out[i]) << in[i];
  EXPECT_EQ(convert_depth(edges, Depth::u8), edges);
}

TEST(DeepImages, EightBitFormatsRefuseSixteenBitResults) {
  test::TempDir dir;
  const Image image = test::synthetic_image_16(4, 4, 3, 1);
  for (const std::string extension : {".jpg", ".bmp", ".tga"}) {
    const fs::path path = dir / ("out" + extension);
    try {
      save_image(image, path);
      ADD_FAILURE() << extension << " took a 16-bit image";
    } catch (const UsageError& e) {
      EXPECT_NE(std::string(e.what()).find("--depth 8"), std::string::npos) << e.what();
      EXPECT_TRUE(one_line(e.what()));
    }
    EXPECT_FALSE(fs::exists(path)) << extension;
  }
}

}  // namespace
}  // namespace parfilter
