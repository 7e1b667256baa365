// Image I/O: round trips for every save format and channel count, PNG variants built by hand,
// PNM and TGA loading, and every bad input: each throws one line naming the file and the
// cause, and a failed save leaves no file behind and no existing file changed.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "parfilter/error.hpp"
#include "parfilter/image_io.hpp"
#include "support/image_files.hpp"
#include "support/test_images.hpp"

namespace parfilter {
namespace {

namespace fs = std::filesystem;
using namespace test::files;  // NOLINT: the file builders are this test's vocabulary

// Expects `call` to throw InputError with a one-line message naming `name` and containing
// every one of `causes`.
template <typename Call>
void expect_input_error(Call call, const std::string& name,
                        std::initializer_list<std::string> causes) {
  try {
    call();
    ADD_FAILURE() << "no InputError for " << name;
  } catch (const InputError& e) {
    const std::string message = e.what();
    EXPECT_NE(message.find(name), std::string::npos) << message;
    for (const auto& cause : causes) EXPECT_NE(message.find(cause), std::string::npos) << message;
    EXPECT_EQ(message.find('\n'), std::string::npos) << message;
  }
}

void expect_load_error(const fs::path& path, std::initializer_list<std::string> causes,
                       const LoadOptions& options = {}) {
  expect_input_error([&] { (void)load_image(path, options); }, path.string(), causes);
}

// ---- round trips

struct RoundTrip {
  std::string extension;
  int channels;
};

class SaveLoadRoundTrip : public ::testing::TestWithParam<RoundTrip> {};

TEST_P(SaveLoadRoundTrip, LosslessFormatsKeepEverySample) {
  const auto [extension, channels] = GetParam();
  test::TempDir dir;
  for (auto [w, h] : {std::pair{37, 23}, std::pair{1, 1}, std::pair{1, 9}, std::pair{9, 1}}) {
    const Image original = test::synthetic_image(w, h, channels, 11);
    const fs::path path = dir / ("image" + extension);
    save_image(original, path);
    const Image loaded = load_image(path);
    if (extension == ".bmp" && channels == 1) {
      // BMP stores gray as 24-bit RGB: the samples survive, the channel count does not.
      ASSERT_EQ(loaded.channels(), 3);
      ASSERT_EQ(loaded.width(), w);
      ASSERT_EQ(loaded.height(), h);
      for (int y = 0; y < h; ++y) {
        for (int x = 0; x < w; ++x) {
          for (int c = 0; c < 3; ++c) ASSERT_EQ(loaded.at(x, y, c), original.at(x, y));
        }
      }
    } else {
      EXPECT_TRUE(test::same_image(original, loaded)) << extension << " " << w << "x" << h;
    }
    EXPECT_EQ(dir.files(), std::vector<std::string>{"image" + extension});
  }
}

INSTANTIATE_TEST_SUITE_P(
    Formats, SaveLoadRoundTrip,
    ::testing::Values(RoundTrip{".png", 1}, RoundTrip{".png", 3}, RoundTrip{".png", 4},
                      RoundTrip{".bmp", 1}, RoundTrip{".bmp", 3}, RoundTrip{".bmp", 4},
                      RoundTrip{".tga", 1}, RoundTrip{".tga", 3}, RoundTrip{".tga", 4},
                      RoundTrip{".PNG", 3}, RoundTrip{".Bmp", 4}, RoundTrip{".TGA", 1}),
    [](const auto& info) {
      std::string name = info.param.extension.substr(1) + std::to_string(info.param.channels);
      return name;
    });

// JPEG is a lossy codec: check the picture survives closely, not the bytes. Gray is stored
// as YCbCr and alpha is dropped, so every JPEG loads with 3 channels.
TEST(SaveLoad, JpegIsCloseForEveryChannelCount) {
  constexpr double kMaxMeanError = 4.0;
  test::TempDir dir;
  for (const std::string extension : {".jpg", ".jpeg", ".JPG"}) {
    for (int channels : {1, 3, 4}) {
      const Image original = test::synthetic_image(40, 31, channels, 5);
      const fs::path path = dir / ("photo" + extension);
      save_image(original, path);
      const Image loaded = load_image(path);
      ASSERT_EQ(loaded.width(), 40);
      ASSERT_EQ(loaded.height(), 31);
      ASSERT_EQ(loaded.channels(), 3);
      double error = 0;
      for (int y = 0; y < 31; ++y) {
        for (int x = 0; x < 40; ++x) {
          for (int c = 0; c < 3; ++c) {
            error += std::abs(loaded.at(x, y, c) - original.at(x, y, channels == 1 ? 0 : c));
          }
        }
      }
      EXPECT_LT(error / (40 * 31 * 3), kMaxMeanError) << extension << " " << channels;
    }
  }
}

// ---- PNG variants

TEST(LoadPng, SixteenBitGrayKeepsTheHighByte) {
  test::TempDir dir;
  const fs::path path = dir / "gray16.png";
  write_bytes(path, make_png(3, 1, 16, kGray, {{0x12, 0x34, 0xab, 0xcd, 0xff, 0xff}}));
  EXPECT_TRUE(test::same_image(test::make_image(3, 1, 1, {0x12, 0xab, 0xff}), load_image(path)));
}

TEST(LoadPng, SixteenBitRgbAndRgba) {
  test::TempDir dir;
  write_bytes(dir / "rgb16.png",
              make_png(1, 2, 16, kRgb, {{1, 2, 3, 4, 5, 6}, {7, 8, 9, 10, 11, 12}}));
  EXPECT_TRUE(test::same_image(test::make_image(1, 2, 3, {1, 3, 5, 7, 9, 11}),
                               load_image(dir / "rgb16.png")));
  write_bytes(dir / "rgba16.png", make_png(1, 1, 16, kRgba, {{1, 2, 3, 4, 5, 6, 7, 8}}));
  EXPECT_TRUE(
      test::same_image(test::make_image(1, 1, 4, {1, 3, 5, 7}), load_image(dir / "rgba16.png")));
}

TEST(LoadPng, GrayAlphaBecomesRgba) {
  test::TempDir dir;
  write_bytes(dir / "ga.png", make_png(2, 1, 8, kGrayAlpha, {{10, 200, 30, 40}}));
  EXPECT_TRUE(test::same_image(test::make_image(2, 1, 4, {10, 10, 10, 200, 30, 30, 30, 40}),
                               load_image(dir / "ga.png")));
  write_bytes(dir / "ga16.png", make_png(1, 1, 16, kGrayAlpha, {{0x80, 1, 0x40, 2}}));
  EXPECT_TRUE(test::same_image(test::make_image(1, 1, 4, {0x80, 0x80, 0x80, 0x40}),
                               load_image(dir / "ga16.png")));
}

TEST(LoadPng, ColourKeyTransparencyGivesRgba) {
  test::TempDir dir;
  write_bytes(dir / "key.png", make_png(2, 1, 8, kGray, {{5, 9}}, {}, {0, 9}));
  EXPECT_TRUE(test::same_image(test::make_image(2, 1, 4, {5, 5, 5, 255, 9, 9, 9, 0}),
                               load_image(dir / "key.png")));
}

TEST(LoadPng, GrayAndRgbaEightBit) {
  test::TempDir dir;
  write_bytes(dir / "g.png", make_png(2, 2, 8, kGray, {{0, 255}, {17, 34}}));
  EXPECT_TRUE(
      test::same_image(test::make_image(2, 2, 1, {0, 255, 17, 34}), load_image(dir / "g.png")));
  write_bytes(dir / "rgba.png", make_png(1, 1, 8, kRgba, {{1, 2, 3, 4}}));
  EXPECT_TRUE(
      test::same_image(test::make_image(1, 1, 4, {1, 2, 3, 4}), load_image(dir / "rgba.png")));
}

TEST(LoadPng, PaletteExpandsToRgbOrRgbaWithTransparency) {
  test::TempDir dir;
  const Bytes palette{255, 0, 0, 0, 255, 0, 0, 0, 255};
  write_bytes(dir / "pal.png", make_png(3, 1, 8, kPalette, {{2, 0, 1}}, palette));
  EXPECT_TRUE(test::same_image(test::make_image(3, 1, 3, {0, 0, 255, 255, 0, 0, 0, 255, 0}),
                               load_image(dir / "pal.png")));
  write_bytes(dir / "palt.png", make_png(3, 1, 8, kPalette, {{2, 0, 1}}, palette, {128}));
  EXPECT_TRUE(
      test::same_image(test::make_image(3, 1, 4, {0, 0, 255, 255, 255, 0, 0, 128, 0, 255, 0, 255}),
                       load_image(dir / "palt.png")));
  // 4-bit indices, two per byte: 1, 2, 0.
  write_bytes(dir / "pal4.png", make_png(3, 1, 4, kPalette, {{0x12, 0x00}}, palette));
  EXPECT_TRUE(test::same_image(test::make_image(3, 1, 3, {0, 255, 0, 0, 0, 255, 255, 0, 0}),
                               load_image(dir / "pal4.png")));
}

// ---- PNM and TGA

TEST(LoadPnm, BinaryGrayAndColorWithComments) {
  test::TempDir dir;
  write_text(dir / "g.pgm", std::string("P5\n# a comment\n3 1\n255\n") + "\x01\x80\xff");
  EXPECT_TRUE(
      test::same_image(test::make_image(3, 1, 1, {1, 128, 255}), load_image(dir / "g.pgm")));
  write_text(dir / "c.ppm", std::string("P6 2 1 255\n") + "\x01\x02\x03\x04\x05\x06");
  EXPECT_TRUE(
      test::same_image(test::make_image(2, 1, 3, {1, 2, 3, 4, 5, 6}), load_image(dir / "c.ppm")));
  write_text(dir / "g16.pgm", std::string("P5 2 1 65535\n") + "\xab\xcd\x01\x02");
  EXPECT_TRUE(
      test::same_image(test::make_image(2, 1, 1, {0xab, 0x01}), load_image(dir / "g16.pgm")));
  // Other maxvals scale to 0..255, rounding.
  write_text(dir / "g4.pgm", std::string("P5 3 1 15\n") + std::string{'\0', '\x07', '\x0f'});
  EXPECT_TRUE(
      test::same_image(test::make_image(3, 1, 1, {0, 119, 255}), load_image(dir / "g4.pgm")));
}

TEST(LoadTga, UncompressedBottomUpAndTopDown) {
  test::TempDir dir;
  // Pixels are stored B, G, R; bottom-up by default.
  const Bytes pixels{1, 2, 3, 4, 5, 6};
  write_bytes(dir / "up.tga", make_tga(1, 2, 24, false, pixels));
  EXPECT_TRUE(
      test::same_image(test::make_image(1, 2, 3, {6, 5, 4, 3, 2, 1}), load_image(dir / "up.tga")));
  write_bytes(dir / "down.tga", make_tga(1, 2, 24, true, pixels));
  EXPECT_TRUE(test::same_image(test::make_image(1, 2, 3, {3, 2, 1, 6, 5, 4}),
                               load_image(dir / "down.tga")));
}

TEST(LoadData, EveryDataImageLoads) {
  for (const auto& entry : fs::directory_iterator(test::data_dir())) {
    const auto extension = entry.path().extension();
    if (extension != ".png" && extension != ".jpg") continue;
    const Image image = load_image(entry.path());
    EXPECT_GT(image.width(), 0) << entry.path();
    EXPECT_TRUE(image.channels() == 1 || image.channels() == 3 || image.channels() == 4);
  }
}

// ---- bad input: one line naming the file and the cause, InputError

TEST(BadInput, EmptyFile) {
  test::TempDir dir;
  write_bytes(dir / "empty.png", {});
  expect_load_error(dir / "empty.png", {"empty file"});
}

TEST(BadInput, MissingFileAndDirectory) {
  test::TempDir dir;
  expect_load_error(dir / "missing.png", {"cannot open", "No such file"});
  fs::create_directory(dir / "folder.png");
  expect_load_error(dir / "folder.png", {"is a directory"});
}

TEST(BadInput, WrongMagic) {
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

TEST(BadInput, TruncatedFileOfEveryFormat) {
  test::TempDir dir;
  const Image image = test::noise_image(30, 20, 3, 9);
  for (const std::string extension : {".png", ".bmp", ".tga", ".jpg"}) {
    const fs::path whole = dir / ("whole" + extension);
    save_image(image, whole);
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

// stb_image 2.27 would write past its tables for a DHT segment declaring over 256 codes.
TEST(BadInput, OversizedJpegHuffmanTableIsRefusedBeforeDecoding) {
  test::TempDir dir;
  Bytes jpeg{0xff, 0xd8, 0xff, 0xc4, 0x00, 19, 0x00};
  jpeg.insert(jpeg.end(), 16, 255);
  jpeg.insert(jpeg.end(), {0xff, 0xd9});
  write_bytes(dir / "dht.jpg", jpeg);
  expect_load_error(dir / "dht.jpg", {"corrupt JPEG Huffman table with 4080 codes"});
}

TEST(BadInput, ZeroDimension) {
  test::TempDir dir;
  write_bytes(dir / "zero_width.bmp", make_bmp(0, 4, Bytes(16, 0)));
  expect_load_error(dir / "zero_width.bmp", {"zero dimension", "0x4"});
  write_bytes(dir / "zero_height.bmp", make_bmp(4, 0, Bytes(16, 0)));
  expect_load_error(dir / "zero_height.bmp", {"zero dimension", "4x0"});
  write_text(dir / "zero.pgm", "P5 0 3 255\n");
  expect_load_error(dir / "zero.pgm", {"zero dimension", "0x3"});
  write_bytes(dir / "zero.png", make_png(0, 1, 8, kGray, {{}}));
  expect_load_error(dir / "zero.png", {"zero.png"});
}

// A tiny header claiming a huge image is refused from the header alone: nothing is
// allocated, so it is fast.
TEST(BadInput, DimensionsOverTheLimit) {
  test::TempDir dir;
  const auto start = std::chrono::steady_clock::now();
  write_bytes(dir / "huge.bmp", make_bmp(100000, 100000));
  expect_load_error(dir / "huge.bmp",
                    {"image of 100000x100000 with 3 channels needs 30000000000 bytes",
                     "over the limit of 2147483648 (--max-image-bytes)"});
  write_bytes(dir / "huge.png", make_png(100000, 100000, 8, kRgba, {}));
  expect_load_error(dir / "huge.png", {"100000x100000 with 4 channels", "over the limit"});
  write_text(dir / "huge.pgm", "P5 100000 100000 255\n");
  expect_load_error(dir / "huge.pgm", {"100000x100000 with 1 channels", "over the limit"});
  write_bytes(dir / "huge.tga", make_tga(65535, 65535, 32, false, {}));
  expect_load_error(dir / "huge.tga", {"65535x65535 with 4 channels", "over the limit"});
  write_text(dir / "absurd.pgm", "P5 99999999999 99999999999 255\n");
  expect_load_error(dir / "absurd.pgm", {"over the limit"});
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(2));
}

TEST(BadInput, LimitIsConfigurable) {
  test::TempDir dir;
  const fs::path path = dir / "hundred.png";
  save_image(test::synthetic_image(100, 100, 3, 1), path);
  expect_load_error(
      path, {"image of 100x100 with 3 channels needs 30000 bytes", "over the limit of 1000"},
      limited_to(1000));
  expect_load_error(path, {"over the limit of 29999"}, limited_to(29999));
  EXPECT_EQ(load_image(path, limited_to(30000)).width(), 100);
}

// ---- saving

TEST(Save, UnknownExtensionTouchesNothing) {
  test::TempDir dir;
  const Image image = test::synthetic_image(4, 4, 3, 2);
  write_text(dir / "keep.gif", "old");
  for (const std::string name : {"out.gif", "keep.gif", "noextension", "out.png.txt"}) {
    expect_input_error([&] { save_image(image, dir / name); }, (dir / name).string(),
                       {"unknown output extension"});
  }
  EXPECT_EQ(dir.files(), std::vector<std::string>{"keep.gif"});
  EXPECT_EQ(read_bytes(dir / "keep.gif"), (Bytes{'o', 'l', 'd'}));
  EXPECT_EQ(format_for_path("a/b.JPEG"), ImageFormat::jpeg);
  EXPECT_EQ(format_for_path("x.Tga"), ImageFormat::tga);
}

TEST(Save, MissingDirectoryIsARuntimeErrorNamingThePath) {
  test::TempDir dir;
  const fs::path path = dir / "no" / "such" / "out.png";
  try {
    save_image(test::synthetic_image(3, 3, 1, 1), path);
    ADD_FAILURE() << "no error";
  } catch (const RuntimeError& e) {
    EXPECT_NE(std::string(e.what()).find(path.string()), std::string::npos) << e.what();
  }
  EXPECT_TRUE(dir.files().empty());
}

TEST(Save, ReplacesAnExistingFileAtomically) {
  test::TempDir dir;
  const fs::path path = dir / "out.png";
  write_text(path, "previous contents");
  const Image image = test::synthetic_image(5, 5, 4, 3);
  save_image(image, path);
  EXPECT_TRUE(test::same_image(image, load_image(path)));
  EXPECT_EQ(dir.files(), std::vector<std::string>{"out.png"});
}

TEST(Save, FailedSaveLeavesTheTargetAndNoTemporary) {
  test::TempDir dir;
  // The rename fails (the target is a non-empty directory) after the data was written.
  const fs::path blocked = dir / "blocked.png";
  fs::create_directory(blocked);
  write_text(blocked / "inside", "x");
  EXPECT_THROW(save_image(test::synthetic_image(3, 3, 3, 1), blocked), RuntimeError);
  EXPECT_TRUE(fs::is_directory(blocked));
  EXPECT_TRUE(dir.files().empty());
  // The encoder refuses (JPEG sizes are 16-bit) before any file is created.
  write_text(dir / "wide.jpg", "old");
  EXPECT_THROW(save_image(Image(70000, 1, 1), dir / "wide.jpg"), RuntimeError);
  EXPECT_EQ(read_bytes(dir / "wide.jpg"), (Bytes{'o', 'l', 'd'}));
  EXPECT_EQ(dir.files(), std::vector<std::string>{"wide.jpg"});
  EXPECT_THROW(save_image(Image(), dir / "empty.png"), RuntimeError);
  EXPECT_EQ(dir.files(), std::vector<std::string>{"wide.jpg"});
}

TEST(Save, WriteFileAtomicallyWritesExactBytesInTheCurrentDirectory) {
  test::TempDir dir;
  const Bytes bytes{0, 1, 2, 255};
  write_file_atomically(dir / "raw.bin", bytes);
  EXPECT_EQ(read_bytes(dir / "raw.bin"), bytes);
  const fs::path previous = fs::current_path();
  fs::current_path(dir.path());
  write_file_atomically("relative.bin", bytes);
  fs::current_path(previous);
  EXPECT_EQ(read_bytes(dir / "relative.bin"), bytes);
  EXPECT_EQ(dir.files(), (std::vector<std::string>{"raw.bin", "relative.bin"}));
}

}  // namespace
}  // namespace parfilter
