// The loader against hostile files, on both codec paths (support/codec_paths.hpp): the size limit
// holds for every format, a file that claims more pixel data than it holds is refused (or, for
// RLE BMP, padded as documented) without a large allocation, and the inputs that stb_image 2.27
// mishandles (found by fuzzing, see docs/HARDENING.md) are refused before stb decodes them, with
// the guard's own cause on the stb path; libjpeg-turbo and libspng refuse them in their words.
#include <gtest/gtest.h>

#include <array>
#include <chrono>
#include <cstdint>
#include <string>
#include <utility>
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
using Clock = std::chrono::steady_clock;

// Refusing from the headers allocates nothing and decodes nothing: far below this.
constexpr auto kFastRefusal = std::chrono::seconds(2);
constexpr std::uint64_t kSmallLimit = 1000;
constexpr const char* kName = "hostile";

/// Expects a fast, one-line refusal naming the input that contains `cause`.
void expect_refused(CodecPath path, const Bytes& bytes, const std::string& cause,
                    const LoadOptions& options = {}) {
  SCOPED_TRACE(test::codec_path_name(path));
  const auto start = Clock::now();
  const std::string message = test::decode_error(path, bytes, kName, options);
  EXPECT_LT(Clock::now() - start, kFastRefusal) << cause;
  EXPECT_EQ(message.rfind(std::string(kName) + ": ", 0), 0U) << message;
  EXPECT_NE(message.find(cause), std::string::npos) << "expected '" << cause << "': " << message;
  EXPECT_EQ(message.find('\n'), std::string::npos) << message;
}

/// The same on both paths.
void expect_refused_on_both(const Bytes& bytes, const std::string& cause,
                            const LoadOptions& options = {}) {
  for (const CodecPath path : test::kCodecPaths) expect_refused(path, bytes, cause, options);
}

/// A file stb_image 2.27 mishandles: the stb path's guard refuses it with `stb_cause`; the fast
/// path (libjpeg-turbo, libspng) refuses it too, as corrupt or truncated data.
void expect_guarded(const Bytes& bytes, const std::string& stb_cause) {
  expect_refused(CodecPath::stb, bytes, stb_cause);
  const std::string message = test::decode_error(CodecPath::fast, bytes, kName);
  EXPECT_EQ(message.rfind(std::string(kName) + ": ", 0), 0U) << message;
  EXPECT_TRUE(message.find("corrupt") != std::string::npos ||
              message.find("truncated") != std::string::npos)
      << message;
  EXPECT_EQ(message.find('\n'), std::string::npos) << message;
}

Bytes encoded(const Image& image, ImageFormat format, CodecPath path = CodecPath::fast) {
  return test::encode_with(path, image, format);
}

void put_be16(Bytes& bytes, std::size_t at, std::uint32_t value) {
  bytes[at] = static_cast<std::uint8_t>(value >> 8);
  bytes[at + 1] = static_cast<std::uint8_t>(value);
}

// ---- JPEG: stb_image_write's baseline files (DQT, SOF0, DHT, SOS at fixed places), edited;
// stb_jpeg_checks.hpp refuses each on the stb path.

/// The offset of the first segment with `marker` (its 0xFF byte).
std::size_t segment_at(const Bytes& jpeg, std::uint8_t marker) {
  for (std::size_t at = 2; at + 1 < jpeg.size(); ++at) {
    if (jpeg[at] == 0xff && jpeg[at + 1] == marker) return at;
  }
  ADD_FAILURE() << "no marker " << int{marker};
  return 0;
}

constexpr std::uint8_t kSof0 = 0xc0;
constexpr std::uint8_t kDqt = 0xdb;
constexpr std::uint8_t kDht = 0xc4;
constexpr std::uint8_t kSos = 0xda;
constexpr std::size_t kSofHeight = 5;            // from the 0xFF: marker 2, length 2, precision 1
constexpr std::size_t kSofComponents = 10;       // Nf at 9, then id, sampling, table per component
constexpr std::size_t kSosComponents = 5;        // Ns at 4, then id, tables per component
constexpr std::uint8_t kUndefinedTables = 0x22;  // DC table 2, AC table 2: never written

Bytes small_jpeg() {
  return encoded(test::synthetic_image(16, 16, 3, 4), ImageFormat::jpeg, CodecPath::stb);
}

/// small_jpeg with its frame header claiming `width` x `height` (its scan data unchanged).
Bytes jpeg_claiming(std::uint32_t width, std::uint32_t height) {
  Bytes jpeg = small_jpeg();
  const std::size_t sof = segment_at(jpeg, kSof0);
  put_be16(jpeg, sof + kSofHeight, height);
  put_be16(jpeg, sof + kSofHeight + 2, width);
  return jpeg;
}

TEST(HostileJpeg, UndefinedQuantizationTable) {
  Bytes jpeg = small_jpeg();
  jpeg[segment_at(jpeg, kSof0) + kSofComponents + 3 + 2] = 2;  // component 2 uses table 2
  expect_guarded(jpeg, "a scan uses a quantization table that no DQT segment defines");
  // A DQT moved out of the way: the marker renamed to an APP segment stb skips.
  Bytes no_dqt = small_jpeg();
  no_dqt[segment_at(no_dqt, kDqt) + 1] = 0xe5;
  expect_guarded(no_dqt, "no DQT segment defines");
}

TEST(HostileJpeg, UndefinedHuffmanTable) {
  Bytes jpeg = small_jpeg();
  jpeg[segment_at(jpeg, kSos) + kSosComponents + 2 + 1] = kUndefinedTables;
  expect_guarded(jpeg, "a scan uses a Huffman table that no DHT segment defines");
  // No DHT at all: libjpeg-turbo decodes with the standard tables (as Motion-JPEG frames
  // expect), the very tables stb_image_write used, so the fast path gives the picture.
  const Bytes original = small_jpeg();
  Bytes no_dht = original;
  no_dht[segment_at(no_dht, kDht) + 1] = 0xe5;
  expect_refused(CodecPath::stb, no_dht, "no DHT segment defines");
  if (test::fast_jpeg()) {
    EXPECT_TRUE(test::same_image(test::decode_with(CodecPath::fast, original),
                                 test::decode_with(CodecPath::fast, no_dht)));
  }
}

TEST(HostileJpeg, HuffmanTableCutByTheEndOfTheFile) {
  // stb reads zeros past the end: these counts alone sum to over 256 codes (fuzzing found it).
  const Bytes jpeg{0xff, 0xd8, 0xff, 0xc4, 0xff, 0xda, 0x00, 0x08, 0x01,
                   0x01, 0x00, 0x01, 0x3f, 0x21, 0x08, 0x14, 0x5a};
  expect_guarded(jpeg, "ends inside a Huffman table segment");
}

TEST(HostileJpeg, ComponentNoScanCodes) {
  // Two components with id 1: stb decodes the first, the second would stay uninitialized.
  Bytes jpeg = small_jpeg();
  const std::size_t sof = segment_at(jpeg, kSof0);
  jpeg[sof + kSofComponents + 3] = jpeg[sof + kSofComponents];
  expect_guarded(jpeg, "is coded by no scan");
}

TEST(HostileJpeg, ScansTooShortForTheFrame) {
  // 30000 x 20000 x 3 is under the default limit, but a few hundred bytes cannot code it.
  const Bytes jpeg = jpeg_claiming(30000, 20000);
  // Both paths refuse it before allocating the image.
  expect_refused_on_both(jpeg, "bytes of scan data cannot code its 30000x20000 frame");
}

TEST(HostileJpeg, OverTheLimit) {
  // Over libjpeg-turbo's 65500 pixels a side too: the limit is still what is reported.
  expect_refused_on_both(jpeg_claiming(65535, 65535),
                         "65535x65535 with 3 channels needs 12884508675 bytes, over the limit");
  expect_refused_on_both(jpeg_claiming(65500, 65500),
                         "65500x65500 with 3 channels needs 12870750000 bytes, over the limit");
  if (test::fast_jpeg()) {  // within a raised limit, libjpeg-turbo's own cap is named
    constexpr std::uint64_t kHugeLimit = std::uint64_t{1} << 40;
    expect_refused(CodecPath::fast, jpeg_claiming(65501, 1),
                   "JPEG of 65501x1 is over libjpeg-turbo's maximum of 65500 pixels per side",
                   limited_to(kHugeLimit));
  }
}

// ---- PNG

TEST(HostilePng, ChunkTypeOfRawBytesIsNotEchoed) {
  Bytes png = make_png(1, 1, 8, kGray, {{0}});
  const std::size_t second_chunk = 8 + 12 + 13;
  for (std::size_t i = 0; i < 4; ++i) png[second_chunk + 4 + i] = "\n\x1b[2"[i];
  expect_guarded(png, "invalid chunk type at offset 33");
  for (const CodecPath path : test::kCodecPaths) {
    const std::string message = test::decode_error(path, png, kName);
    EXPECT_EQ(message.find_first_of("\n\x1b"), std::string::npos) << message;
  }
}

TEST(HostilePng, TooLittleDataForItsSize) {
  // 20000 x 20000 gray is under the default limit; 1 stored byte cannot inflate to it.
  Bytes png = make_png(20000, 20000, 8, kGray, {});
  png.resize(png.size() - 12);  // IEND goes after the IDAT
  put_chunk(png, "IDAT", zlib_stored({0}));
  put_chunk(png, "IEND", {});
  // Both paths walk the chunks before allocating the image.
  expect_refused_on_both(png, "bytes of image data cannot hold 20000x20000 pixels");
}

// ---- every format: the limit, and data shorter than the header claims

TEST(HostileAnyFormat, EveryFormatHonoursTheLimit) {
  const Image image = test::synthetic_image(100, 100, 3, 2);
  for (const auto format :
       {ImageFormat::png, ImageFormat::bmp, ImageFormat::tga, ImageFormat::jpeg}) {
    for (const CodecPath path : test::kCodecPaths) {
      expect_refused_on_both(encoded(image, format, path), "over the limit of 1000",
                             limited_to(kSmallLimit));
    }
  }
  const std::string ppm = "P6 100 100 255\n" + std::string(30000, '\x40');
  expect_refused_on_both(Bytes(ppm.begin(), ppm.end()), "over the limit of 1000",
                         limited_to(kSmallLimit));
}

TEST(HostileAnyFormat, TinyHeadersClaimingGiantImages) {
  expect_refused_on_both(make_bmp(-100000, 100000), "negative width");
  expect_refused_on_both(make_bmp(46341, 46341), "over the limit");  // 46341^2 * 3 > 2^31
  const std::string ppm = "P6 40000 40000 65535\n";
  expect_refused_on_both(Bytes(ppm.begin(), ppm.end()), "over the limit");
  Bytes rle_tga = make_tga(65535, 65535, 8, false, {0xff, 7});
  rle_tga[2] = 11;  // RLE gray
  expect_refused_on_both(rle_tga, "over the limit");
}

TEST(HostileAnyFormat, DataShorterThanTheHeaderClaimsIsRefused) {
  // Each under the default limit, each with a few bytes of data.
  expect_refused_on_both(make_bmp(20000, 20000, Bytes(64, 1)), "truncated file");
  const std::string pgm = "P5 20000 20000 255\n" + std::string(64, 'x');
  expect_refused_on_both(Bytes(pgm.begin(), pgm.end()), "truncated file");
  expect_refused_on_both(make_tga(20000, 20000, 24, false, Bytes(64, 1)), "truncated file");
  Bytes rle_tga = make_tga(20000, 20000, 24, false, {0xff, 1, 2, 3});
  rle_tga[2] = 10;  // RLE true colour: one packet of 128 pixels
  expect_refused_on_both(rle_tga, "truncated file");
}

/// An 8-bit RLE BMP, bottom-up, with a palette of (red, green, blue) entries.
Bytes rle8_bmp(std::int32_t width, std::int32_t height,
               const std::vector<std::array<int, 3>>& palette, const Bytes& stream) {
  constexpr std::uint32_t kHeaders = 14 + 40;
  constexpr std::uint32_t kInfoHeaderSize = 40;
  constexpr std::uint32_t kEntryBytes = 4;
  constexpr std::uint32_t kRle8 = 1;
  const auto palette_bytes = static_cast<std::uint32_t>(palette.size()) * kEntryBytes;
  Bytes bmp{'B', 'M'};
  put_le32(bmp, kHeaders + palette_bytes + static_cast<std::uint32_t>(stream.size()));
  put_le32(bmp, 0);
  put_le32(bmp, kHeaders + palette_bytes);
  put_le32(bmp, kInfoHeaderSize);
  put_le32(bmp, static_cast<std::uint32_t>(width));
  put_le32(bmp, static_cast<std::uint32_t>(height));
  put_le16(bmp, 1);
  put_le16(bmp, 8);
  put_le32(bmp, kRle8);
  for (int i = 0; i < 3; ++i) put_le32(bmp, 0);  // image size, resolution
  put_le32(bmp, static_cast<std::uint32_t>(palette.size()));
  put_le32(bmp, 0);
  for (const auto& [red, green, blue] : palette) {
    bmp.insert(bmp.end(), {static_cast<std::uint8_t>(blue), static_cast<std::uint8_t>(green),
                           static_cast<std::uint8_t>(red), 0});
  }
  bmp.insert(bmp.end(), stream.begin(), stream.end());
  return bmp;
}

// A file larger than any image within the limit could be is refused before it is read (sparse
// files: nothing is written to disk).
TEST(HostileAnyFormat, GiantFileIsRefusedUnread) {
  constexpr std::uintmax_t kFiveGiB = std::uintmax_t{5} << 30;
  constexpr std::uintmax_t kHundredMiB = std::uintmax_t{100} << 20;
  test::TempDir dir;
  const fs::path path = dir / "giant.bmp";
  write_bytes(path, make_bmp(1, 1, {1, 2, 3, 0}));
  for (const auto& [size, limit] : {std::pair{kFiveGiB, kDefaultMaxImageBytes},
                                    std::pair{kHundredMiB, std::uint64_t{kSmallLimit}}}) {
    fs::resize_file(path, size);
    const auto start = Clock::now();
    try {
      (void)load_image(path, limited_to(limit));
      ADD_FAILURE() << "loaded";
    } catch (const InputError& e) {
      EXPECT_NE(std::string(e.what()).find("is larger than any image within the limit"),
                std::string::npos)
          << e.what();
    }
    EXPECT_LT(Clock::now() - start, kFastRefusal);
  }
}

// An RLE stream that ends early leaves the remaining pixels at palette entry 0 (README).
TEST(HostileAnyFormat, ShortRleBmpIsPaddedWithPaletteEntryZero) {
  const Bytes stream{2, 1, 0, 1};  // two pixels of index 1, end of bitmap
  const Image image =
      load_image_from_memory(rle8_bmp(3, 2, {{30, 20, 10}, {100, 150, 200}}, stream), "rle");
  const Image expected = test::make_image(3, 2, 3,
                                          {30, 20, 10, 30, 20, 10, 30, 20, 10,  //
                                           100, 150, 200, 100, 150, 200, 30, 20, 10});
  EXPECT_TRUE(test::same_image(expected, image));
}

// RLE is the one format where a few bytes may stand for an image of any size up to the limit
// (end of bitmap at once). It is decoded straight into the image: no other buffer, one pass.
// Fuzzing found a 29 kB file of 127 x 2162624 taking over 10 s through an index buffer.
TEST(HostileAnyFormat, TinyRleBmpOfABigImageDecodesInOnePass) {
  constexpr int kSide = 4096;
  const auto start = Clock::now();
  const Image image = load_image_from_memory(rle8_bmp(kSide, kSide, {{7, 8, 9}}, {0, 1}), "big");
  EXPECT_LT(Clock::now() - start, kFastRefusal);
  ASSERT_EQ(image.width(), kSide);
  EXPECT_EQ(image.at(kSide - 1, kSide - 1, 2), 9);
  EXPECT_EQ(image.at(0, 0, 0), 7);
  expect_refused_on_both(rle8_bmp(kSide, kSide, {{7, 8, 9}}, {0, 1}), "over the limit",
                         limited_to(kSmallLimit));
}

// Every committed fuzzing finding is refused, on the stb path with its guard's cause
// (docs/HARDENING.md).
TEST(FuzzFindings, EachIsRefusedWithItsCause) {
  const std::vector<std::pair<std::string, std::string>> findings{
      {"jpeg_undefined_quantization_table.jpg", "no DQT segment defines"},
      {"jpeg_huffman_table_cut_by_end_of_file.jpg", "ends inside a Huffman table segment"},
      {"jpeg_progressive_scan_before_dc_scan.jpg", "comes before its first DC scan"},
  };
  for (const auto& [file, cause] : findings) {
    SCOPED_TRACE(file);
    expect_guarded(read_bytes(fs::path(PARFILTER_REGRESSIONS_DIR) / "load_image" / file), cause);
  }
}

}  // namespace
}  // namespace parfilter
