// Image I/O on both codec paths (support/codec_paths.hpp: the fast libraries and stb_image,
// their fallback): round trips for every save format and channel count, PNG variants built by
// hand, PNM and TGA loading, and every bad input: each throws one line naming the file and the
// cause. Saving (test_io_save.cpp) and the hostile files (test_io_hostile.cpp) have their own.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdlib>
#include <string>
#include <tuple>
#include <vector>

#include "parfilter/error.hpp"
#include "parfilter/image_io.hpp"
#include "support/codec_paths.hpp"
#include "support/image_files.hpp"
#include "support/test_images.hpp"

namespace parfilter {
namespace {

namespace fs = std::filesystem;
using io::CodecPath;
using namespace test::files;  // NOLINT: the file builders are this test's vocabulary

/// Expects `call` to throw InputError with a one-line message naming `name` and containing
/// every one of `causes`.
template <typename Call>
void expect_input_error(Call call, const std::string& name,
                        std::initializer_list<std::string> causes) {
  try {
    call();
    ADD_FAILURE() << "no InputError for " << name;
  } catch (const InputError& e) {
    const std::string message = e.what();
    EXPECT_EQ(message.rfind(name + ": ", 0), 0U) << message;
    for (const auto& cause : causes) EXPECT_NE(message.find(cause), std::string::npos) << message;
    EXPECT_EQ(message.find('\n'), std::string::npos) << message;
  }
}

/// A suite whose every test runs on both codec paths.
class OnBothPaths : public ::testing::TestWithParam<CodecPath> {
 protected:
  [[nodiscard]] CodecPath path() const { return GetParam(); }
  [[nodiscard]] Image load(const fs::path& file, const LoadOptions& options = {}) const {
    return test::load_with(path(), file, options);
  }
  void save(const Image& image, const fs::path& file) const {
    test::save_with(path(), image, file);
  }
  void expect_load_error(const fs::path& file, std::initializer_list<std::string> causes,
                         const LoadOptions& options = {}) const {
    expect_input_error([&] { (void)load(file, options); }, file.string(), causes);
  }
};

#define PARFILTER_ON_BOTH_PATHS(suite)                                           \
  using suite = OnBothPaths;                                                     \
  INSTANTIATE_TEST_SUITE_P(Codec, suite, ::testing::ValuesIn(test::kCodecPaths), \
                           test::CodecPathName{})

// ---- round trips

struct RoundTrip {
  std::string extension;
  int channels;
};

class SaveLoadRoundTrip : public ::testing::TestWithParam<std::tuple<RoundTrip, CodecPath>> {};

// Lossless formats keep every sample and the channel count: gray is written with one channel
// (PNG colour type 0, an 8-bit BMP with a gray palette, a gray TGA) and loads as gray.
TEST_P(SaveLoadRoundTrip, LosslessFormatsKeepEverySample) {
  const auto& [format, path] = GetParam();
  test::TempDir dir;
  for (auto [w, h] : {std::pair{37, 23}, std::pair{1, 1}, std::pair{1, 9}, std::pair{9, 1}}) {
    const Image original = test::synthetic_image(w, h, format.channels, 11);
    const fs::path file = dir / ("image" + format.extension);
    test::save_with(path, original, file);
    EXPECT_TRUE(test::same_image(original, test::load_with(path, file)))
        << format.extension << " " << w << "x" << h;
    EXPECT_EQ(dir.files(), std::vector<std::string>{"image" + format.extension});
  }
}

INSTANTIATE_TEST_SUITE_P(
    Formats, SaveLoadRoundTrip,
    ::testing::Combine(::testing::Values(RoundTrip{".png", 1}, RoundTrip{".png", 3},
                                         RoundTrip{".png", 4}, RoundTrip{".bmp", 1},
                                         RoundTrip{".bmp", 3}, RoundTrip{".bmp", 4},
                                         RoundTrip{".tga", 1}, RoundTrip{".tga", 3},
                                         RoundTrip{".tga", 4}, RoundTrip{".PNG", 3},
                                         RoundTrip{".Bmp", 4}, RoundTrip{".TGA", 1}),
                       ::testing::ValuesIn(test::kCodecPaths)),
    [](const auto& info) {
      const RoundTrip& format = std::get<0>(info.param);
      return format.extension.substr(1) + std::to_string(format.channels) + "_" +
             test::codec_path_name(std::get<1>(info.param));
    });

// JPEG is lossy: the picture survives closely, not the bytes. Alpha is dropped. Gray is one
// component with libjpeg-turbo; stb_image_write always writes YCbCr, so it loads as RGB there.
// Compared in luma: libjpeg-turbo halves the chroma resolution (4:2:0, as OpenCV writes), which
// blurs the synthetic image's per-channel checkerboard; stb keeps it at quality 95.
int luma(const Image& image, int x, int y) {
  constexpr int kRed = 299;
  constexpr int kGreen = 587;
  constexpr int kBlue = 114;
  constexpr int kScale = 1000;
  if (image.channels() < 3) return image.at(x, y);
  return (kRed * image.at(x, y, 0) + kGreen * image.at(x, y, 1) + kBlue * image.at(x, y, 2) +
          kScale / 2) /
         kScale;
}

PARFILTER_ON_BOTH_PATHS(SaveLoadJpeg);
TEST_P(SaveLoadJpeg, IsCloseForEveryChannelCount) {
  constexpr double kMaxMeanError = 3.0;
  constexpr int kWidth = 40;
  constexpr int kHeight = 31;
  test::TempDir dir;
  for (const std::string extension : {".jpg", ".jpeg", ".JPG"}) {
    for (int channels : {1, 3, 4}) {
      const Image original = test::synthetic_image(kWidth, kHeight, channels, 5);
      const fs::path file = dir / ("photo" + extension);
      save(original, file);
      const Image loaded = load(file);
      ASSERT_EQ(loaded.width(), kWidth);
      ASSERT_EQ(loaded.height(), kHeight);
      const bool gray_stays_gray = test::uses_fast_library(path(), ImageFormat::jpeg);
      ASSERT_EQ(loaded.channels(), channels == 1 && gray_stays_gray ? 1 : 3) << channels;
      double error = 0;
      for (int y = 0; y < kHeight; ++y) {
        for (int x = 0; x < kWidth; ++x)
          error += std::abs(luma(loaded, x, y) - luma(original, x, y));
      }
      EXPECT_LT(error / (kWidth * kHeight), kMaxMeanError) << extension << " " << channels;
    }
  }
}

// ---- PNG variants: 16-bit PNGs load as 16-bit images on both paths

PARFILTER_ON_BOTH_PATHS(LoadPng);

TEST_P(LoadPng, SixteenBitGrayStaysSixteenBit) {
  test::TempDir dir;
  write_bytes(dir / "gray16.png",
              make_png(3, 1, 16, kGray, {{0x12, 0x34, 0xab, 0xcd, 0xff, 0xff}}));
  EXPECT_EQ(test::make_image_16(3, 1, 1, {0x1234, 0xabcd, 0xffff}), load(dir / "gray16.png"));
}

TEST_P(LoadPng, SixteenBitRgbAndRgbaStaySixteenBit) {
  test::TempDir dir;
  write_bytes(dir / "rgb16.png",
              make_png(1, 2, 16, kRgb, {{1, 2, 3, 4, 5, 6}, {7, 8, 9, 10, 11, 12}}));
  EXPECT_EQ(test::make_image_16(1, 2, 3, {0x102, 0x304, 0x506, 0x708, 0x90a, 0xb0c}),
            load(dir / "rgb16.png"));
  write_bytes(dir / "rgba16.png", make_png(1, 1, 16, kRgba, {{1, 2, 3, 4, 5, 6, 7, 8}}));
  EXPECT_EQ(test::make_image_16(1, 1, 4, {0x102, 0x304, 0x506, 0x708}), load(dir / "rgba16.png"));
}

TEST_P(LoadPng, GrayAlphaBecomesRgba) {
  test::TempDir dir;
  write_bytes(dir / "ga.png", make_png(2, 1, 8, kGrayAlpha, {{10, 200, 30, 40}}));
  EXPECT_TRUE(test::same_image(test::make_image(2, 1, 4, {10, 10, 10, 200, 30, 30, 30, 40}),
                               load(dir / "ga.png")));
  write_bytes(dir / "ga16.png", make_png(1, 1, 16, kGrayAlpha, {{0x80, 1, 0x40, 2}}));
  EXPECT_EQ(test::make_image_16(1, 1, 4, {0x8001, 0x8001, 0x8001, 0x4002}), load(dir / "ga16.png"));
}

TEST_P(LoadPng, ColourKeyTransparencyGivesRgba) {
  test::TempDir dir;
  write_bytes(dir / "key.png", make_png(2, 1, 8, kGray, {{5, 9}}, {}, {0, 9}));
  EXPECT_TRUE(test::same_image(test::make_image(2, 1, 4, {5, 5, 5, 255, 9, 9, 9, 0}),
                               load(dir / "key.png")));
}

TEST_P(LoadPng, GrayAndRgbaEightBit) {
  test::TempDir dir;
  write_bytes(dir / "g.png", make_png(2, 2, 8, kGray, {{0, 255}, {17, 34}}));
  EXPECT_TRUE(test::same_image(test::make_image(2, 2, 1, {0, 255, 17, 34}), load(dir / "g.png")));
  write_bytes(dir / "rgba.png", make_png(1, 1, 8, kRgba, {{1, 2, 3, 4}}));
  EXPECT_TRUE(test::same_image(test::make_image(1, 1, 4, {1, 2, 3, 4}), load(dir / "rgba.png")));
}

TEST_P(LoadPng, PaletteExpandsToRgbOrRgbaWithTransparency) {
  test::TempDir dir;
  const Bytes palette{255, 0, 0, 0, 255, 0, 0, 0, 255};
  write_bytes(dir / "pal.png", make_png(3, 1, 8, kPalette, {{2, 0, 1}}, palette));
  EXPECT_TRUE(test::same_image(test::make_image(3, 1, 3, {0, 0, 255, 255, 0, 0, 0, 255, 0}),
                               load(dir / "pal.png")));
  write_bytes(dir / "palt.png", make_png(3, 1, 8, kPalette, {{2, 0, 1}}, palette, {128}));
  EXPECT_TRUE(
      test::same_image(test::make_image(3, 1, 4, {0, 0, 255, 255, 255, 0, 0, 128, 0, 255, 0, 255}),
                       load(dir / "palt.png")));
  // 4-bit indices, two per byte: 1, 2, 0.
  write_bytes(dir / "pal4.png", make_png(3, 1, 4, kPalette, {{0x12, 0x00}}, palette));
  EXPECT_TRUE(test::same_image(test::make_image(3, 1, 3, {0, 255, 0, 0, 0, 255, 255, 0, 0}),
                               load(dir / "pal4.png")));
}

// ---- PNM (parfilter's own) and TGA (stb_image) on either path

PARFILTER_ON_BOTH_PATHS(LoadPnm);
TEST_P(LoadPnm, BinaryGrayAndColorWithComments) {
  test::TempDir dir;
  write_text(dir / "g.pgm", std::string("P5\n# a comment\n3 1\n255\n") + "\x01\x80\xff");
  EXPECT_TRUE(test::same_image(test::make_image(3, 1, 1, {1, 128, 255}), load(dir / "g.pgm")));
  write_text(dir / "c.ppm", std::string("P6 2 1 255\n") + "\x01\x02\x03\x04\x05\x06");
  EXPECT_TRUE(test::same_image(test::make_image(2, 1, 3, {1, 2, 3, 4, 5, 6}), load(dir / "c.ppm")));
  // Other maxvals scale to 0..255, rounding.
  write_text(dir / "g4.pgm", std::string("P5 3 1 15\n") + std::string{'\0', '\x07', '\x0f'});
  EXPECT_TRUE(test::same_image(test::make_image(3, 1, 1, {0, 119, 255}), load(dir / "g4.pgm")));
}

TEST_P(LoadPnm, SixteenBitStaysSixteenBit) {
  test::TempDir dir;
  write_text(dir / "g16.pgm", std::string("P5 2 1 65535\n") + "\xab\xcd\x01\x02");
  EXPECT_EQ(test::make_image_16(2, 1, 1, {0xabcd, 0x0102}), load(dir / "g16.pgm"));
  write_text(dir / "c16.ppm", std::string("P6 1 1 65535\n") + "\x12\x34\x56\x78\x9a\xbc");
  EXPECT_EQ(test::make_image_16(1, 1, 3, {0x1234, 0x5678, 0x9abc}), load(dir / "c16.ppm"));
  // 12-bit data (maxval 4095) keeps its values, clamped to maxval.
  write_text(dir / "g12.pgm", std::string("P5 2 1 4095\n") + "\x0f\xff\x10\x01");
  EXPECT_EQ(test::make_image_16(2, 1, 1, {4095, 4095}), load(dir / "g12.pgm"));
}

PARFILTER_ON_BOTH_PATHS(LoadTga);
TEST_P(LoadTga, UncompressedBottomUpAndTopDown) {
  test::TempDir dir;
  // Pixels are stored B, G, R; bottom-up by default.
  const Bytes pixels{1, 2, 3, 4, 5, 6};
  write_bytes(dir / "up.tga", make_tga(1, 2, 24, false, pixels));
  EXPECT_TRUE(
      test::same_image(test::make_image(1, 2, 3, {6, 5, 4, 3, 2, 1}), load(dir / "up.tga")));
  write_bytes(dir / "down.tga", make_tga(1, 2, 24, true, pixels));
  EXPECT_TRUE(
      test::same_image(test::make_image(1, 2, 3, {3, 2, 1, 6, 5, 4}), load(dir / "down.tga")));
}

// Every data/ image loads on both paths: PNG to the same pixels, JPEG within a step or two
// (libjpeg-turbo's IDCT and upsampling are not stb's).
TEST(LoadData, EveryDataImageLoadsOnBothPathsAlike) {
  constexpr int kJpegDecoderDifference = 8;
  for (const auto& entry : fs::directory_iterator(test::data_dir())) {
    const auto extension = entry.path().extension();
    if (extension != ".png" && extension != ".jpg") continue;
    SCOPED_TRACE(entry.path().string());
    const Image fast = test::load_with(CodecPath::fast, entry.path());
    const Image stb = test::load_with(CodecPath::stb, entry.path());
    EXPECT_GT(fast.width(), 0);
    EXPECT_TRUE(fast.channels() == 1 || fast.channels() == 3 || fast.channels() == 4);
    if (extension == ".png") {
      EXPECT_TRUE(test::same_image(stb, fast));
      continue;
    }
    ASSERT_EQ(fast.size_bytes(), stb.size_bytes());
    int worst = 0;
    for (std::size_t i = 0; i < fast.size_bytes(); ++i) {
      worst = std::max(worst, std::abs(fast.data()[i] - stb.data()[i]));
    }
    EXPECT_LE(worst, kJpegDecoderDifference);
  }
}

// ---- bad input: one line naming the file and the cause, InputError, on both paths

PARFILTER_ON_BOTH_PATHS(BadInput);

TEST_P(BadInput, EmptyFile) {
  test::TempDir dir;
  write_bytes(dir / "empty.png", {});
  expect_load_error(dir / "empty.png", {"empty file"});
}

TEST_P(BadInput, MissingFileDirectoryAndFifo) {
  test::TempDir dir;
  expect_load_error(dir / "missing.png", {"cannot open", "No such file"});
  fs::create_directory(dir / "folder.png");
  expect_load_error(dir / "folder.png", {"is a directory"});
  // A FIFO with no writer is refused, not waited on.
  ASSERT_EQ(::mkfifo((dir / "fifo.png").c_str(), 0600), 0);
  expect_load_error(dir / "fifo.png", {"not a regular file"});
}

TEST_P(BadInput, WrongMagic) {
  test::TempDir dir;
  write_text(dir / "text.png", "this is not an image, just some text\n");
  expect_load_error(dir / "text.png", {"not a recognized image file", "wrong magic"});
  Bytes png = make_png(1, 1, 8, kGray, {{0}});
  png[1] = 'X';  // a damaged signature
  write_bytes(dir / "damaged.png", png);
  expect_load_error(dir / "damaged.png", {"wrong magic"});
  write_text(dir / "anim.gif", "GIF89a\x01\x00\x01\x00");
  expect_load_error(dir / "anim.gif", {"unsupported format GIF"});
  write_text(dir / "ascii.pgm", "P2 1 1 255 7\n");
  expect_load_error(dir / "ascii.pgm", {"unsupported format", "P2"});
}

TEST_P(BadInput, TruncatedFileOfEveryFormat) {
  test::TempDir dir;
  const Image image = test::noise_image(30, 20, 3, 9);
  for (const std::string extension : {".png", ".bmp", ".tga", ".jpg"}) {
    const fs::path whole = dir / ("whole" + extension);
    save(image, whole);
    const Bytes bytes = read_bytes(whole);
    const fs::path cut = dir / ("cut" + extension);
    write_bytes(
        cut, Bytes(bytes.begin(), bytes.begin() + static_cast<std::ptrdiff_t>(bytes.size() / 2)));
    expect_load_error(cut, {"truncated"});
  }
  write_text(dir / "cut.ppm", "P6 4 4 255\n\x01\x02\x03");
  expect_load_error(dir / "cut.ppm", {"truncated file", "PNM"});
  write_bytes(dir / "cut_raw.tga", make_tga(4, 4, 24, false, Bytes(10, 7)));
  expect_load_error(dir / "cut_raw.tga", {"truncated file"});
  write_bytes(dir / "header_only.bmp", make_bmp(8, 8));
  expect_load_error(dir / "header_only.bmp", {"truncated file"});
  write_bytes(dir / "short.bmp", Bytes{'B', 'M', 0, 0});
  expect_load_error(dir / "short.bmp", {"truncated BMP header"});
}

TEST_P(BadInput, ZeroDimension) {
  test::TempDir dir;
  write_bytes(dir / "zero_width.bmp", make_bmp(0, 4, Bytes(16, 0)));
  expect_load_error(dir / "zero_width.bmp", {"zero dimension", "0x4"});
  write_bytes(dir / "zero_height.bmp", make_bmp(4, 0, Bytes(16, 0)));
  expect_load_error(dir / "zero_height.bmp", {"zero dimension", "4x0"});
  write_text(dir / "zero.pgm", "P5 0 3 255\n");
  expect_load_error(dir / "zero.pgm", {"zero dimension", "0x3"});
  write_bytes(dir / "zero.png", make_png(0, 1, 8, kGray, {{}}));
  expect_load_error(dir / "zero.png", {});
}

// A tiny header claiming a huge image is refused from the header alone: nothing is
// allocated, so it is fast.
TEST_P(BadInput, DimensionsOverTheLimit) {
  test::TempDir dir;
  const auto start = std::chrono::steady_clock::now();
  write_bytes(dir / "huge.bmp", make_bmp(100000, 100000));
  expect_load_error(dir / "huge.bmp",
                    {"image of 100000x100000 with 3 channels needs 30000000000 bytes",
                     "over the limit of 2147483648 (--max-image-bytes)"});
  write_bytes(dir / "huge.png", make_png(100000, 100000, 8, kRgba, {}));
  expect_load_error(dir / "huge.png", {"100000x100000 with 4 channels", "over the limit"});
  write_text(dir / "huge.pgm", "P5 100000 100000 255\n");
  expect_load_error(dir / "huge.pgm", {"100000x100000 with 1 channel", "over the limit"});
  write_bytes(dir / "huge.tga", make_tga(65535, 65535, 32, false, {}));
  expect_load_error(dir / "huge.tga", {"65535x65535 with 4 channels", "over the limit"});
  write_text(dir / "absurd.pgm", "P5 99999999999 99999999999 255\n");
  expect_load_error(dir / "absurd.pgm", {"over the limit"});
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(2));
}

TEST_P(BadInput, LimitIsConfigurable) {
  test::TempDir dir;
  for (const std::string extension : {".png", ".jpg"}) {
    const fs::path file = dir / ("hundred" + extension);
    save(test::synthetic_image(100, 100, 3, 1), file);
    expect_load_error(
        file, {"image of 100x100 with 3 channels needs 30000 bytes", "over the limit of 1000"},
        limited_to(1000));
    expect_load_error(file, {"over the limit of 29999"}, limited_to(29999));
    EXPECT_EQ(load(file, limited_to(30000)).width(), 100);
  }
}

}  // namespace
}  // namespace parfilter
