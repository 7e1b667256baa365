// The bad inputs of the loader review (docs/HARDENING.md), on both codec paths: a JPEG whose DC
// predictor overflows int (the CVE-2022-28041 class of stb_image 2.27), colour-mapped TGAs whose
// map does not start at entry 0 or is cut short, and images parfilter's limit admits but stb_image
// cannot decode: a valid 36000x32000 gray PNG among them, which libspng decodes.
#include <gtest/gtest.h>

#include <climits>
#include <cstdint>
#include <string>
#include <vector>

#include "parfilter/error.hpp"
#include "parfilter/image_io.hpp"
#include "support/codec_paths.hpp"
#include "support/image_files.hpp"
#include "support/test_images.hpp"

#ifdef PARFILTER_TEST_HAVE_ZLIB
#include <zlib.h>
#endif

#if defined(__SANITIZE_ADDRESS__)  // GCC
#define PARFILTER_TEST_UNDER_ASAN 1
#elif defined(__has_feature)  // clang
#if __has_feature(address_sanitizer)
#define PARFILTER_TEST_UNDER_ASAN 1
#endif
#endif

namespace parfilter {
namespace {

using io::CodecPath;
using namespace test::files;  // NOLINT: the file builders are this test's vocabulary

constexpr const char* kName = "review";

void expect_one_line_naming_the_input(const std::string& message) {
  EXPECT_EQ(message.rfind(std::string(kName) + ": ", 0), 0U) << message;
  EXPECT_EQ(message.find('\n'), std::string::npos) << message;
}

// ---- a JPEG whose DC predictor overflows int

// 2048 x 2056 gray is 65792 blocks: the predictor, +32767 per block, passes INT_MAX at the
// 65539th (2048 x 2048, 65536 blocks, would stay 2 blocks short of it).
constexpr std::uint16_t kDcWidth = 2048;
constexpr std::uint16_t kDcHeight = 2056;

// In a progressive first DC scan: libjpeg-turbo checks the predictor's addition and refuses the
// file ("DCT coefficient out of range"). stb_image 2.27 adds without a check, in
// stbi__jpeg_decode_block_prog_dc (CVE-2022-28041 itself); stb_codec.cpp is compiled with
// -fwrapv, so the sum wraps, defined: the file decodes to wrong pixels, and the ASan+UBSan build
// (scripts/asan.sh, GCC: -fwrapv makes the overflow defined, so nothing is reported) runs it.
TEST(DcOverflowJpeg, ProgressiveIsRefusedByLibjpegTurboAndDefinedInStb) {
  const Bytes jpeg = make_dc_overflow_jpeg(kDcWidth, kDcHeight, true);
  if (test::fast_jpeg()) {
    const std::string message = test::decode_error(CodecPath::fast, jpeg, kName);
    expect_one_line_naming_the_input(message);
    EXPECT_NE(message.find("corrupt"), std::string::npos) << message;
  }
  const Image wrapped = test::decode_with(CodecPath::stb, jpeg, kName);
  EXPECT_EQ(wrapped.width(), kDcWidth);
  EXPECT_EQ(wrapped.height(), kDcHeight);
  EXPECT_EQ(wrapped.channels(), 1);
}

// In a baseline scan: libjpeg-turbo 2.1's baseline decoder lets its predictor wrap (upstream
// suppresses UBSan there: "innocuous"), and stb 2.27's dc * dequant overflows as well (wrapping,
// -fwrapv). Neither can be refused without decoding every block; both give an image of the
// frame's size, which is all that is promised for corrupt entropy data that decodes.
TEST(DcOverflowJpeg, BaselineDecodesWithoutUndefinedBehaviourOnBothPaths) {
  const Bytes jpeg = make_dc_overflow_jpeg(kDcWidth, kDcHeight, false);
  for (const CodecPath path : test::kCodecPaths) {
    SCOPED_TRACE(test::codec_path_name(path));
    const Image image = test::decode_with(path, jpeg, kName);
    EXPECT_EQ(image.width(), kDcWidth);
    EXPECT_EQ(image.height(), kDcHeight);
  }
}

// ---- colour-mapped TGA (stb_image on both paths)

constexpr std::uint8_t kTgaColorMapped = 1;
constexpr std::uint8_t kTgaColorMappedRle = 9;
constexpr std::size_t kTgaHeaderBytes = 18;

/// A top-down colour-mapped TGA with 8-bit indices: `map` holds the stored entries (B, G, R
/// for 24 bits, little-endian A1R5G5B5 for 16) of entries `origin` onwards.
Bytes colour_mapped_tga(std::uint8_t type, std::uint16_t width, std::uint16_t origin,
                        int entry_bits, const std::vector<Bytes>& map, const Bytes& data) {
  constexpr std::uint8_t kTopDown = 0x20;
  constexpr std::uint8_t kIndexBits = 8;
  Bytes tga{0, 1, type};
  put_le16(tga, origin);
  put_le16(tga, static_cast<std::uint32_t>(map.size()));
  tga.push_back(static_cast<std::uint8_t>(entry_bits));
  put_le32(tga, 0);  // x and y origin
  put_le16(tga, width);
  put_le16(tga, 1);
  tga.insert(tga.end(), {kIndexBits, kTopDown});
  for (const Bytes& entry : map) tga.insert(tga.end(), entry.begin(), entry.end());
  tga.insert(tga.end(), data.begin(), data.end());
  return tga;
}

const std::vector<Bytes> kMap{{3, 2, 1}, {6, 5, 4}, {9, 8, 7}};  // (1,2,3), (4,5,6), (7,8,9)
constexpr std::uint16_t kOrigin = 5;

class ColourMappedTga : public ::testing::TestWithParam<CodecPath> {};
INSTANTIATE_TEST_SUITE_P(Codec, ColourMappedTga, ::testing::ValuesIn(test::kCodecPaths),
                         test::CodecPathName{});

// Index i is map entry i, stored (i - origin)th; stb 2.27 alone would skip `origin` bytes and
// index from 0 (stb_codec.cpp's tga_with_map_from_zero corrects it).
TEST_P(ColourMappedTga, MapOriginOtherThanZeroGivesTheRightColours) {
  const Image expected = test::make_image(4, 1, 3, {1, 2, 3, 4, 5, 6, 7, 8, 9, 4, 5, 6});
  const Bytes raw = colour_mapped_tga(kTgaColorMapped, 4, kOrigin, 24, kMap, {5, 6, 7, 6});
  EXPECT_TRUE(test::same_image(expected, test::decode_with(GetParam(), raw, kName)));
  // RLE: a run of three of entry 7, then two raw indices.
  const Bytes rle =
      colour_mapped_tga(kTgaColorMappedRle, 5, kOrigin, 24, kMap, {0x82, 7, 0x01, 5, 6});
  EXPECT_TRUE(
      test::same_image(test::make_image(5, 1, 3, {7, 8, 9, 7, 8, 9, 7, 8, 9, 1, 2, 3, 4, 5, 6}),
                       test::decode_with(GetParam(), rle, kName)));
  // 16-bit entries (5 bits a channel): red, green. 8-bit entries: a gray map, a gray image.
  const Bytes map16 =
      colour_mapped_tga(kTgaColorMapped, 2, 3, 16, {{0x00, 0x7c}, {0xe0, 0x03}}, {3, 4});
  EXPECT_TRUE(test::same_image(test::make_image(2, 1, 3, {255, 0, 0, 0, 255, 0}),
                               test::decode_with(GetParam(), map16, kName)));
  const Bytes gray = colour_mapped_tga(kTgaColorMapped, 2, 1, 8, {{10}, {20}}, {2, 1});
  EXPECT_TRUE(test::same_image(test::make_image(2, 1, 1, {20, 10}),
                               test::decode_with(GetParam(), gray, kName)));
  // Entries below the origin are not in the file: black.
  const Bytes below = colour_mapped_tga(kTgaColorMapped, 2, kOrigin, 24, kMap, {0, 4});
  EXPECT_TRUE(test::same_image(test::make_image(2, 1, 3, {0, 0, 0, 0, 0, 0}),
                               test::decode_with(GetParam(), below, kName)));
}

// Every prefix is refused, cut in the header, the colour map or the pixels: stb 2.27 reads
// zeros past the end. Before the map was rebased to entry 0, stb skipped `origin` bytes that
// check_tga_data did not count, so a file short by up to `origin` bytes passed the check.
TEST_P(ColourMappedTga, EveryTruncationIsRefused) {
  for (const Bytes& whole :
       {colour_mapped_tga(kTgaColorMapped, 4, kOrigin, 24, kMap, {5, 6, 7, 6}),
        colour_mapped_tga(kTgaColorMappedRle, 5, kOrigin, 24, kMap, {0x82, 7, 0x01, 5, 6}),
        colour_mapped_tga(kTgaColorMapped, 4, 0, 24, kMap, {0, 1, 2, 1})}) {
    for (std::size_t size = kTgaHeaderBytes; size < whole.size(); ++size) {
      SCOPED_TRACE("cut to " + std::to_string(size) + " of " + std::to_string(whole.size()));
      const std::string message = test::decode_error(
          GetParam(), Bytes(whole.begin(), whole.begin() + static_cast<std::ptrdiff_t>(size)),
          kName);
      expect_one_line_naming_the_input(message);
      EXPECT_NE(message.find("truncated"), std::string::npos) << message;
    }
  }
}

TEST_P(ColourMappedTga, EmptyMapIsRefused) {
  for (const std::uint16_t origin : {std::uint16_t{0}, kOrigin}) {
    const std::string message = test::decode_error(
        GetParam(), colour_mapped_tga(kTgaColorMapped, 2, origin, 24, {}, {0, 0}), kName);
    expect_one_line_naming_the_input(message);
    EXPECT_NE(message.find("corrupt"), std::string::npos) << message;
  }
}

// ---- images within parfilter's limit that stb_image cannot decode

// stb sizes every buffer in int: a TGA over INT_MAX bytes, under a raised limit, is refused
// with stb's limit named (TGA has no other decoder).
TEST(StbLimits, TgaOverIntMaxBytesNamesStbsLimit) {
  constexpr std::uint64_t kRaisedLimit = std::uint64_t{8} << 30;
  const Bytes tga = make_tga(40000, 20000, 24, false, {});
  for (const CodecPath path : test::kCodecPaths) {
    const std::string message = test::decode_error(path, tga, kName, limited_to(kRaisedLimit));
    expect_one_line_naming_the_input(message);
    EXPECT_NE(message.find("stb_image (the fallback decoder) cannot decode TGA images over " +
                           std::to_string(INT_MAX) + " bytes (this one needs 2400000000)"),
              std::string::npos)
        << message;
  }
}

// A progressive gray JPEG of 65500 x 32000 (2.1 GB of pixels, under the default limit): stb keeps
// a 16-bit coefficient per sample, over 2^31 bytes. Refused on the stb path from the header.
TEST(StbLimits, ProgressiveJpegWhoseCoefficientsOverflowInt) {
  Bytes jpeg = make_dc_overflow_jpeg(16, 16, true);
  constexpr std::size_t kSof = 2 + 2 + 67;      // after SOI, the DQT marker and its segment
  constexpr std::size_t kSofHeight = kSof + 5;  // after the marker, length and precision
  ASSERT_EQ(jpeg[kSof], 0xff);
  ASSERT_EQ(jpeg[kSof + 1], 0xc2);
  constexpr std::uint32_t kWide = 65500;
  constexpr std::uint32_t kTall = 32000;
  jpeg[kSofHeight] = kTall >> 8;
  jpeg[kSofHeight + 1] = kTall & 0xff;
  jpeg[kSofHeight + 2] = kWide >> 8;
  jpeg[kSofHeight + 3] = kWide & 0xff;
  const std::string message = test::decode_error(CodecPath::stb, jpeg, kName);
  expect_one_line_naming_the_input(message);
  EXPECT_NE(message.find("stb_image (the fallback decoder) cannot decode JPEG images over " +
                         std::to_string(INT_MAX) + " bytes"),
            std::string::npos)
      << message;
}

#ifdef PARFILTER_TEST_HAVE_ZLIB
/// A zlib stream of `size` zero bytes, built in milliseconds: a 1 MiB piece compressed after a
/// window of zeros is valid after any 32 KiB of zeros, so it is repeated; the first piece has no
/// history, the last ends the stream. The Adler-32 of n zeros is (n mod 65521) << 16 | 1.
Bytes zlib_of_zeros(std::uint64_t size) {
  constexpr std::size_t kPiece = std::size_t{1} << 20;
  constexpr std::size_t kWindow = std::size_t{32} << 10;
  constexpr int kRawDeflate = -15;
  constexpr int kMemoryLevel = 9;
  constexpr std::uint32_t kAdlerModulus = 65521;
  const Bytes zeros(kPiece, 0);
  auto piece = [&](std::size_t bytes, bool after_zeros, int flush) {
    z_stream z{};
    EXPECT_EQ(deflateInit2(&z, Z_BEST_COMPRESSION, Z_DEFLATED, kRawDeflate, kMemoryLevel,
                           Z_DEFAULT_STRATEGY),
              Z_OK);
    if (after_zeros) deflateSetDictionary(&z, zeros.data(), kWindow);
    Bytes out(deflateBound(&z, bytes) + kPiece / kWindow);
    z.next_in = const_cast<Bytef*>(zeros.data());  // zlib's API is not const-correct
    z.avail_in = static_cast<uInt>(bytes);
    z.next_out = out.data();
    z.avail_out = static_cast<uInt>(out.size());
    EXPECT_EQ(deflate(&z, flush), flush == Z_FINISH ? Z_STREAM_END : Z_OK);
    out.resize(z.total_out);
    deflateEnd(&z);
    return out;
  };
  Bytes stream{0x78, 0xda};  // deflate, 32 KiB window, best compression
  const Bytes middle = piece(kPiece, true, Z_SYNC_FLUSH);
  std::uint64_t left = size;
  for (bool first = true; left > kPiece; left -= kPiece, first = false) {
    const Bytes next = first ? piece(kPiece, false, Z_SYNC_FLUSH) : middle;
    stream.insert(stream.end(), next.begin(), next.end());
  }
  const Bytes last = piece(static_cast<std::size_t>(left), size > kPiece, Z_FINISH);
  stream.insert(stream.end(), last.begin(), last.end());
  put_be32(stream, static_cast<std::uint32_t>((size % kAdlerModulus) << 16 | 1));
  return stream;
}

// 36000 x 32000 gray: 1.15 GB decoded, under the default limit of 2 GiB; all zeros, about 1 MB
// of file. libspng decodes it; stb 2.27 refuses PNGs over 2^30 samples in IHDR, which the
// message names. The decode takes a second or two and 1.15 GB, so ASan builds skip it.
TEST(StbLimits, GiantGrayPngLoadsWithLibspngAndNamesStbsLimit) {
  constexpr std::uint32_t kWide = 36000;
  constexpr std::uint32_t kTall = 32000;
  Bytes png{0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};
  Bytes header;
  put_be32(header, kWide);
  put_be32(header, kTall);
  header.insert(header.end(), {8, kGray, 0, 0, 0});
  put_chunk(png, "IHDR", header);
  put_chunk(png, "IDAT", zlib_of_zeros(std::uint64_t{kWide + 1} * kTall));  // a filter byte a row
  put_chunk(png, "IEND", {});

  const std::string refused = test::decode_error(CodecPath::stb, png, kName);
  expect_one_line_naming_the_input(refused);
  EXPECT_NE(refused.find("stb_image (the fallback decoder) cannot decode PNG images over "
                         "1073741824 bytes (this one needs 1152000000)"),
            std::string::npos)
      << refused;
#ifdef PARFILTER_TEST_UNDER_ASAN
  GTEST_SKIP() << "the 1.15 GB decode is left out under AddressSanitizer";
#else
  if (!test::fast_png_decoder()) GTEST_SKIP() << "this build has no libspng";
  const Image image = test::decode_with(CodecPath::fast, png, kName);
  EXPECT_EQ(image.width(), static_cast<int>(kWide));
  EXPECT_EQ(image.height(), static_cast<int>(kTall));
  EXPECT_EQ(image.channels(), 1);
  EXPECT_EQ(image.at(0, 0), 0);
  EXPECT_EQ(image.at(kWide - 1, kTall - 1), 0);
#endif
}
#endif  // PARFILTER_TEST_HAVE_ZLIB

}  // namespace
}  // namespace parfilter
