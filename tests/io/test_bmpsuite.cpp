// The BMP Suite corpus (../shared/bmpsuite): every good file loads as the right picture; every
// bad or questionable file is refused with an InputError or loads with sane dimensions.
//
// "Right picture": the decoded pixels of each g/ file are pinned by a hash. The hashes were
// checked once against OpenCV 4.6's cv::imread: equal sample for sample, except
//   - the 16-bit files (rgb16*.bmp), where OpenCV widens 5/6-bit channels by shifting (31 ->
//     248) and parfilter, like stb_image, repeats the bits (31 -> 255): they differ by <= 7;
//   - pal8os2.bmp (OS/2 header) and rgb32bf.bmp (unusual bit masks), which OpenCV misreads;
//     they decode here to the same pictures as pal8.bmp and rgb24.bmp.
// Gray palettes (pal1, pal1wb, pal4gs, pal8gs) load with one channel, as OpenCV reads them;
// their hashes are of the picture expanded to RGB (R = G = B), as pinned before.
// Independently of the hashes, files that encode the same picture must decode identically,
// and the 16-bit files must stay within 5-bit quantization of rgb24.bmp.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <set>
#include <string>

#include "parfilter/error.hpp"
#include "parfilter/image_io.hpp"
#include "support/test_images.hpp"

namespace parfilter {
namespace {

namespace fs = std::filesystem;

fs::path suite_dir(const std::string& kind) { return test::shared_dir() / "bmpsuite" / kind; }

/// The corpus lives beside the checkout (../shared); a checkout without it skips, saying so.
class BmpSuite : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!fs::is_directory(suite_dir("g"))) {
      GTEST_SKIP() << "BMP Suite corpus not found at " << suite_dir("")
                   << " (configure with -DPARFILTER_SHARED_DIR=<dir holding bmpsuite/>)";
    }
  }
};

std::vector<fs::path> files_in(const std::string& kind) {
  std::vector<fs::path> files;
  for (const auto& entry : fs::directory_iterator(suite_dir(kind))) {
    if (entry.path().extension() == ".bmp") files.push_back(entry.path());
  }
  std::sort(files.begin(), files.end());
  return files;
}

// FNV-1a over the samples, a gray image's taken as RGB (each sample three times).
std::uint64_t pixel_hash(const Image& image) {
  const int repeats = image.channels() == 1 ? 3 : 1;
  std::uint64_t hash = 0xcbf29ce484222325ULL;
  for (std::size_t i = 0; i < image.size_bytes(); ++i) {
    for (int r = 0; r < repeats; ++r) hash = (hash ^ image.data()[i]) * 0x100000001b3ULL;
  }
  return hash;
}

const std::set<std::string>& gray_palette_files() {
  static const std::set<std::string> files{"pal1.bmp", "pal1wb.bmp", "pal4gs.bmp", "pal8gs.bmp"};
  return files;
}

struct GoodFile {
  int width;
  int height;
  std::uint64_t hash;
  std::string same_picture_as;  // another g/ file encoding exactly the same pixels, or ""
};

constexpr std::uint64_t kRgb24 = 0x7cd8f819ae69b2afULL;
constexpr std::uint64_t kPal8 = 0x4598e7515a0f7954ULL;
constexpr std::uint64_t kPal4 = 0x7442826ad2154b09ULL;
constexpr std::uint64_t kPal1 = 0x93cb10c47d28db4dULL;
constexpr std::uint64_t kRgb16 = 0x77b89128c335923cULL;
constexpr std::uint64_t kRgb16Bits565 = 0x51d0a8852d09c342ULL;

const std::map<std::string, GoodFile>& good_files() {
  static const std::map<std::string, GoodFile> files{
      {"pal1.bmp", {127, 64, kPal1, ""}},
      {"pal1bg.bmp", {127, 64, 0xb7b540345a58dd65ULL, ""}},
      {"pal1wb.bmp", {127, 64, kPal1, "pal1.bmp"}},
      {"pal4.bmp", {127, 64, kPal4, ""}},
      {"pal4gs.bmp", {127, 64, 0x84584472fec80434ULL, ""}},
      {"pal4rle.bmp", {127, 64, kPal4, "pal4.bmp"}},
      {"pal8-0.bmp", {127, 64, kPal8, "pal8.bmp"}},
      {"pal8.bmp", {127, 64, kPal8, ""}},
      {"pal8gs.bmp", {127, 64, 0x13c463af6d9a108fULL, ""}},
      {"pal8nonsquare.bmp", {127, 32, 0xb937ea06db3c196cULL, ""}},
      {"pal8os2.bmp", {127, 64, kPal8, "pal8.bmp"}},
      {"pal8rle.bmp", {127, 64, kPal8, "pal8.bmp"}},
      {"pal8topdown.bmp", {127, 64, kPal8, "pal8.bmp"}},
      {"pal8v4.bmp", {127, 64, kPal8, "pal8.bmp"}},
      {"pal8v5.bmp", {127, 64, kPal8, "pal8.bmp"}},
      {"pal8w124.bmp", {124, 61, 0xb48c84d29e14ad3dULL, ""}},
      {"pal8w125.bmp", {125, 62, 0xdc7be9a5fc79ab93ULL, ""}},
      {"pal8w126.bmp", {126, 63, 0x06c840bab970062dULL, ""}},
      {"rgb16-565.bmp", {127, 64, kRgb16Bits565, ""}},
      {"rgb16-565pal.bmp", {127, 64, kRgb16Bits565, "rgb16-565.bmp"}},
      {"rgb16.bmp", {127, 64, kRgb16, ""}},
      {"rgb16bfdef.bmp", {127, 64, kRgb16, "rgb16.bmp"}},
      {"rgb24.bmp", {127, 64, kRgb24, ""}},
      {"rgb24pal.bmp", {127, 64, kRgb24, "rgb24.bmp"}},
      {"rgb32.bmp", {127, 64, kRgb24, "rgb24.bmp"}},
      {"rgb32bf.bmp", {127, 64, kRgb24, "rgb24.bmp"}},
      {"rgb32bfdef.bmp", {127, 64, kRgb24, "rgb24.bmp"}},
  };
  return files;
}

TEST_F(BmpSuite, TheTableCoversEveryGoodFile) {
  std::set<std::string> on_disk;
  for (const auto& path : files_in("g")) on_disk.insert(path.filename().string());
  std::set<std::string> in_table;
  for (const auto& [name, file] : good_files()) in_table.insert(name);
  EXPECT_EQ(on_disk, in_table);
}

TEST_F(BmpSuite, EveryGoodFileLoadsAsTheRightPicture) {
  for (const auto& [name, expected] : good_files()) {
    SCOPED_TRACE(name);
    const Image image = load_image(suite_dir("g") / name);
    EXPECT_EQ(image.width(), expected.width);
    EXPECT_EQ(image.height(), expected.height);
    // Palettes and the unused byte of 32-bit files carry no alpha; gray palettes give gray.
    EXPECT_EQ(image.channels(), gray_palette_files().count(name) != 0 ? 1 : 3);
    EXPECT_EQ(pixel_hash(image), expected.hash) << std::hex << pixel_hash(image);
    if (!expected.same_picture_as.empty()) {
      EXPECT_TRUE(test::same_image(load_image(suite_dir("g") / expected.same_picture_as), image));
    }
  }
}

TEST_F(BmpSuite, OnlyGrayPalettesDecodeToGray) {
  for (const auto& path : files_in("g")) {
    const std::string name = path.filename().string();
    EXPECT_EQ(load_image(path).channels() == 1, gray_palette_files().count(name) != 0) << name;
  }
}

TEST_F(BmpSuite, SixteenBitFilesAreTheTrueColourPictureQuantized) {
  constexpr int kFiveBitError = 4;  // 8-bit value -> 5 bits -> replicated back to 8
  const Image reference = load_image(suite_dir("g") / "rgb24.bmp");
  for (const std::string name : {"rgb16.bmp", "rgb16-565.bmp"}) {
    const Image image = load_image(suite_dir("g") / name);
    ASSERT_EQ(image.size_bytes(), reference.size_bytes());
    int worst = 0;
    for (std::size_t i = 0; i < image.size_bytes(); ++i) {
      worst = std::max(worst, std::abs(image.data()[i] - reference.data()[i]));
    }
    EXPECT_LE(worst, kFiveBitError) << name;
  }
}

// Outcomes pinned for the bad files: the ones refused, with the phrase of their cause. The
// rest (a wrong file size, density or palette count field; RLE runs past the edges, clipped;
// an out-of-range palette index, black) load with the picture's size.
const std::map<std::string, std::string>& refused_bad_files() {
  static const std::map<std::string, std::string> refused{
      {"badbitcount.bmp", "invalid bits per pixel"},
      {"badheadersize.bmp", "unsupported BMP header size"},
      {"badplanes.bmp", "invalid planes count"},
      {"badwidth.bmp", "negative width"},
      {"reallybig.bmp", "over the limit"},
      {"rletopdown.bmp", "top-down BMP cannot be RLE-compressed"},
      {"shortfile.bmp", "truncated file"},
  };
  return refused;
}

void expect_refused_or_sane(const fs::path& path, const std::string& expected_cause) {
  SCOPED_TRACE(path.string());
  constexpr int kMaxSaneSide = 10000;
  try {
    const Image image = load_image(path);
    EXPECT_TRUE(expected_cause.empty()) << "loaded, expected: " << expected_cause;
    EXPECT_GT(image.width(), 0);
    EXPECT_LE(image.width(), kMaxSaneSide);
    EXPECT_GT(image.height(), 0);
    EXPECT_LE(image.height(), kMaxSaneSide);
    EXPECT_TRUE(image.channels() == 1 || image.channels() == 3 || image.channels() == 4);
  } catch (const InputError& e) {
    const std::string message = e.what();
    EXPECT_EQ(message.rfind(path.string() + ": ", 0), 0U) << message;
    EXPECT_EQ(message.find('\n'), std::string::npos) << message;
    if (!expected_cause.empty()) {
      EXPECT_NE(message.find(expected_cause), std::string::npos) << message;
    }
  }
}

TEST_F(BmpSuite, BadFilesAreRefusedClearlyOrLoadSensibly) {
  const auto files = files_in("b");
  ASSERT_FALSE(files.empty());
  for (const auto& path : files) {
    const auto refused = refused_bad_files().find(path.filename().string());
    expect_refused_or_sane(path, refused != refused_bad_files().end() ? refused->second : "");
  }
}

TEST_F(BmpSuite, QuestionableFilesAreRefusedClearlyOrLoadSensibly) {
  const auto files = files_in("q");
  ASSERT_FALSE(files.empty());
  for (const auto& path : files) expect_refused_or_sane(path, "");
}

// Every prefix of a good file either loads or is refused: no crash, no read past the end
// (the address sanitizer build checks the latter).
TEST_F(BmpSuite, EveryTruncationOfTheRleFilesIsHandled) {
  for (const std::string name : {"pal4rle.bmp", "pal8rle.bmp", "rgb16-565pal.bmp"}) {
    std::ifstream in(suite_dir("g") / name, std::ios::binary);
    const std::vector<std::uint8_t> bytes(std::istreambuf_iterator<char>(in), {});
    for (std::size_t size = 1; size < bytes.size(); size += 7) {
      try {
        (void)load_image_from_memory(std::span(bytes.data(), size), name);
      } catch (const InputError&) {
      }
    }
  }
}

}  // namespace
}  // namespace parfilter
