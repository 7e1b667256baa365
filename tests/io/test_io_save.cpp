// Saving: the output checks made before any work, atomic writes, gray written with one channel,
// the save options, and the banded PNG encoder: valid output (both decoders give back every
// sample) at every level, for every shape and for images of several bands, and the same bytes
// whatever the thread count.
#include <gtest/gtest.h>

#include <cstdint>
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

template <typename Error, typename Call>
std::string error_of(Call call) {
  try {
    call();
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

// ---- the output checks, before any work

TEST(Save, UnknownExtensionTouchesNothing) {
  test::TempDir dir;
  const Image image = test::synthetic_image(4, 4, 3, 2);
  write_text(dir / "keep.gif", "old");
  for (const std::string name : {"out.gif", "keep.gif", "noextension", "out.png.txt"}) {
    const std::string message = error_of<InputError>([&] { save_image(image, dir / name); });
    EXPECT_EQ(message.rfind((dir / name).string() + ": unknown output extension", 0), 0U)
        << message;
  }
  EXPECT_EQ(dir.files(), std::vector<std::string>{"keep.gif"});
  EXPECT_EQ(read_bytes(dir / "keep.gif"), (Bytes{'o', 'l', 'd'}));
  EXPECT_EQ(format_for_path("a/b.JPEG"), ImageFormat::jpeg);
  EXPECT_EQ(format_for_path("x.Tga"), ImageFormat::tga);
}

TEST(Save, OutputDirectoryIsCheckedByCreatingAFile) {
  test::TempDir dir;
  auto check = [](const fs::path& path) {
    return error_of<InputError>([&] { check_output_directory(path); });
  };
  EXPECT_EQ(check(dir / "out.png"), "");
  EXPECT_TRUE(dir.files().empty()) << "the probe file was left behind";
  fs::create_directory(dir / "taken.png");
  EXPECT_EQ(check(dir / "taken.png"), (dir / "taken.png").string() + ": is a directory");
  // A regular file where a directory should be, as the parent or further up.
  write_text(dir / "file.txt", "x");
  const std::string not_a_directory = "'" + (dir / "file.txt").string() + "' is not a directory";
  for (const fs::path& out : {dir / "file.txt" / "out.png", dir / "file.txt" / "a" / "out.png"}) {
    const std::string message = check(out);
    EXPECT_EQ(message, out.string() + ": " + not_a_directory);
  }
  const fs::path missing = dir / "no" / "such" / "out.png";
  EXPECT_EQ(check(missing), missing.string() + ": directory '" + (dir / "no" / "such").string() +
                                "' does not exist");
  EXPECT_NE(error_of<InputError>([&] {
              check_output_path(dir / "out.xyz");
            }).find("unknown output extension"),
            std::string::npos);
}

// Even root cannot create files in /proc/self: the check must try, not trust access(2).
TEST(Save, OutputDirectoryWhereNoFileCanBeCreated) {
  const fs::path out = "/proc/self/parfilter-test.png";
  const std::string message = error_of<InputError>([&] { check_output_directory(out); });
  if (message.empty()) GTEST_SKIP() << "a file could be created in /proc/self here";
  EXPECT_EQ(message.rfind(out.string() + ": cannot create a file in /proc/self: ", 0), 0U)
      << message;
  EXPECT_EQ(message.find('\n'), std::string::npos);
}

TEST(Save, MissingDirectoryIsARuntimeErrorNamingThePath) {
  test::TempDir dir;
  const fs::path path = dir / "no" / "such" / "out.png";
  const std::string message =
      error_of<RuntimeError>([&] { save_image(test::synthetic_image(3, 3, 1, 1), path); });
  EXPECT_NE(message.find(path.string()), std::string::npos) << message;
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
  // The encoder refuses (JPEG sides are 16-bit, libjpeg-turbo's at most 65500) before any file
  // is created, on both paths.
  write_text(dir / "wide.jpg", "old");
  for (const CodecPath path : test::kCodecPaths) {
    const std::string message = error_of<RuntimeError>(
        [&] { test::save_with(path, Image(70000, 1, 1), dir / "wide.jpg"); });
    EXPECT_NE(message.find("70000x1 is too large for this format"), std::string::npos) << message;
  }
  EXPECT_EQ(read_bytes(dir / "wide.jpg"), (Bytes{'o', 'l', 'd'}));
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
  write_file_atomically("relative.bin", bytes, true);  // with fsync
  fs::current_path(previous);
  EXPECT_EQ(read_bytes(dir / "relative.bin"), bytes);
  EXPECT_EQ(dir.files(), (std::vector<std::string>{"raw.bin", "relative.bin"}));
}

// ---- gray is written with one channel, and the save options are checked

class SaveGray : public ::testing::TestWithParam<CodecPath> {};
INSTANTIATE_TEST_SUITE_P(Codec, SaveGray, ::testing::ValuesIn(test::kCodecPaths),
                         test::CodecPathName{});

/// The number of components in a JPEG's frame header.
int jpeg_components(const Bytes& jpeg) {
  constexpr std::size_t kComponentCount = 9;  // from the 0xFF of SOF: marker, length, P, Y, X
  for (std::size_t at = 2; at + kComponentCount < jpeg.size(); ++at) {
    if (jpeg[at] == 0xff && (jpeg[at + 1] == 0xc0 || jpeg[at + 1] == 0xc2)) {
      return jpeg[at + kComponentCount];
    }
  }
  return 0;
}

TEST_P(SaveGray, IsWrittenWithOneChannel) {
  constexpr std::size_t kPngColorType =
      25;  // signature 8, length 4, type 4, width 4, height 4, depth 1
  constexpr std::size_t kBmpBitsPerPixel = 28;
  constexpr std::size_t kBmpPalette = 54;  // after the file and info headers
  const Image gray = test::synthetic_image(21, 10, 1, 3);
  const Bytes png = test::encode_with(GetParam(), gray, ImageFormat::png);
  EXPECT_EQ(png[kPngColorType], kGray);
  EXPECT_TRUE(test::same_image(gray, test::decode_with(GetParam(), png)));
  const Bytes bmp = test::encode_with(GetParam(), gray, ImageFormat::bmp);
  EXPECT_EQ(bmp[kBmpBitsPerPixel], 8);
  for (int i = 0; i < 256; ++i) {
    const auto* entry = &bmp[kBmpPalette + 4 * static_cast<std::size_t>(i)];
    ASSERT_TRUE(entry[0] == i && entry[1] == i && entry[2] == i) << "palette entry " << i;
  }
  EXPECT_TRUE(test::same_image(gray, test::decode_with(GetParam(), bmp)));
  const Bytes tga = test::encode_with(GetParam(), gray, ImageFormat::tga);
  EXPECT_TRUE(test::same_image(gray, test::decode_with(GetParam(), tga)));
  // stb_image_write writes every JPEG as YCbCr: one component only with libjpeg-turbo.
  const Bytes jpeg = test::encode_with(GetParam(), gray, ImageFormat::jpeg);
  const bool fast = test::uses_fast_library(GetParam(), ImageFormat::jpeg);
  EXPECT_EQ(jpeg_components(jpeg), fast ? 1 : 3);
  EXPECT_EQ(test::decode_with(GetParam(), jpeg).channels(), fast ? 1 : 3);
}

TEST(SaveOptions, LevelAndQualityOutsideTheirRangeAreUsageErrors) {
  const Image image = test::synthetic_image(8, 8, 3, 1);
  for (const int level : {kMinPngLevel - 1, kMaxPngLevel + 1}) {
    SaveOptions options;
    options.png_level = level;
    EXPECT_THROW((void)encode_image(image.view(), ImageFormat::png, options, "x.png"), UsageError);
  }
  for (const int quality : {kMinJpegQuality - 1, kMaxJpegQuality + 1}) {
    SaveOptions options;
    options.jpeg_quality = quality;
    EXPECT_THROW((void)encode_image(image.view(), ImageFormat::jpeg, options, "x.jpg"), UsageError);
  }
}

TEST(SaveOptions, JpegQualityTradesSizeForFidelity) {
  const Image image = test::synthetic_image(64, 48, 3, 2);
  std::vector<std::size_t> sizes;
  for (const int quality : {kMinJpegQuality, 50, kMaxJpegQuality}) {
    SaveOptions options;
    options.jpeg_quality = quality;
    const Bytes jpeg = encode_image(image.view(), ImageFormat::jpeg, options, "q.jpg");
    EXPECT_EQ(load_image_from_memory(jpeg, "q.jpg").width(), image.width());
    sizes.push_back(jpeg.size());
  }
  EXPECT_LT(sizes[0], sizes[1]);
  EXPECT_LT(sizes[1], sizes[2]);
}

// ---- the banded PNG encoder (libspng builds)

/// A synthetic image whose top third is flat (level 1 codes such bands run-length) and the
/// rest structure and noise (Huffman-only).
Image banded_test_image(int width, int height, int channels) {
  Image image = test::synthetic_image(width, height, channels, 7);
  for (int y = 0; y < height / 3; ++y) std::fill_n(image.row(y), image.stride(), 90);
  return image;
}

/// The number of IDAT chunks: one per band, and the trailer's.
int idat_chunks(const Bytes& png) {
  int count = 0;
  for (std::size_t at = 8; at + 8 <= png.size();) {
    const std::size_t length = (std::size_t{png[at]} << 24) | (std::size_t{png[at + 1]} << 16) |
                               (std::size_t{png[at + 2]} << 8) | png[at + 3];
    if (std::string(png.begin() + static_cast<std::ptrdiff_t>(at) + 4,
                    png.begin() + static_cast<std::ptrdiff_t>(at) + 8) == "IDAT") {
      ++count;
    }
    at += length + 12;
  }
  return count;
}

struct Shape {
  int width;
  int height;
  int channels;
  int min_bands;
};

// Bands hold 512 KiB of filtered bytes (a row and its filter byte each): the last four shapes
// take three bands, the last of a few rows, or (the very last) a row over a band's size each.
const std::vector<Shape> kPngShapes{
    {1, 1, 1, 1},       {1, 1, 3, 1},      {1, 1, 4, 1},      {1, 17, 1, 1},    {1, 17, 4, 1},
    {17, 1, 3, 1},      {17, 1, 4, 1},     {37, 5, 1, 1},     {37, 5, 3, 1},    {3, 7, 4, 1},
    {1001, 1050, 1, 3}, {333, 1050, 3, 3}, {257, 1020, 4, 3}, {530000, 3, 1, 3}};

class PngLevel : public ::testing::TestWithParam<int> {
 protected:
  void SetUp() override {
    if (!test::fast_png_encoder()) GTEST_SKIP() << "this build has no zlib: stb writes PNG";
  }
};
INSTANTIATE_TEST_SUITE_P(Levels, PngLevel, ::testing::Range(kMinPngLevel, kMaxPngLevel + 1));

TEST_P(PngLevel, EveryShapeDecodesToTheSameSamplesOnBothDecoders) {
  SaveOptions options;
  options.png_level = GetParam();
  for (const Shape& shape : kPngShapes) {
    SCOPED_TRACE(std::to_string(shape.width) + "x" + std::to_string(shape.height) + "x" +
                 std::to_string(shape.channels));
    const Image image = banded_test_image(shape.width, shape.height, shape.channels);
    const Bytes png = test::encode_with(CodecPath::fast, image, ImageFormat::png, options);
    EXPECT_GE(idat_chunks(png), shape.min_bands + 1);  // a chunk per band, and the trailer
    EXPECT_TRUE(test::same_image(image, test::decode_with(CodecPath::fast, png)));
    EXPECT_TRUE(test::same_image(image, test::decode_with(CodecPath::stb, png)));
  }
}

// Bands have a fixed size and are compressed independently: the file is the same whether one
// thread or four compress them.
TEST_P(PngLevel, BytesDoNotDependOnTheThreadCount) {
  const Image image = banded_test_image(333, 1600, 3);  // 4 bands
  SaveOptions options;
  options.png_level = GetParam();
  const Bytes calling_thread = test::encode_with(CodecPath::fast, image, ImageFormat::png, options);
  options.parallel_for = parallel_for_threads(1);
  EXPECT_EQ(test::encode_with(CodecPath::fast, image, ImageFormat::png, options), calling_thread);
  options.parallel_for = parallel_for_threads(4);
  EXPECT_EQ(test::encode_with(CodecPath::fast, image, ImageFormat::png, options), calling_thread);
}

}  // namespace
}  // namespace parfilter
