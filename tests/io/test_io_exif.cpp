// EXIF orientation on load, on both codec paths: a JPEG written by parfilter, given an APP1
// Exif segment with tag 0x0112, loads turned upright by each of the eight orientations (checked
// against the stored pixels turned here, by the EXIF definitions); apply_exif_orientation =
// false keeps the stored orientation; a missing, malformed or out-of-range tag means upright.
// test_opencv_oracle.cpp checks the same files against cv::imread.
#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

#include "parfilter/image_io.hpp"
#include "support/codec_paths.hpp"
#include "support/image_files.hpp"
#include "support/test_images.hpp"

namespace parfilter {
namespace {

using io::CodecPath;
using namespace test::files;  // NOLINT: the file builders are this test's vocabulary

constexpr int kUpright = 1;
constexpr int kOrientations = 8;
// Odd sides, neither a multiple of a JPEG block nor equal: every turn changes the shape.
constexpr int kWidth = 37;
constexpr int kHeight = 21;

/// The stored pixel a viewer shows at (x, y) for `orientation` (EXIF 2.32, tag 0x0112) of a
/// stored w x h image.
std::pair<int, int> shown_from(int orientation, int x, int y, int w, int h) {
  switch (orientation) {
    case 2:  // mirrored left to right
      return {w - 1 - x, y};
    case 3:  // a half turn
      return {w - 1 - x, h - 1 - y};
    case 4:  // mirrored top to bottom
      return {x, h - 1 - y};
    case 5:  // transposed
      return {y, x};
    case 6:  // shown a quarter turn clockwise
      return {y, h - 1 - x};
    case 7:  // transversed
      return {w - 1 - y, h - 1 - x};
    case 8:  // shown a quarter turn anticlockwise
      return {w - 1 - y, x};
    default:
      return {x, y};
  }
}

/// What a viewer shows for `stored` tagged with `orientation`.
Image displayed(const Image& stored, int orientation) {
  const int w = stored.width();
  const int h = stored.height();
  const bool turned = orientation >= 5;
  Image out(turned ? h : w, turned ? w : h, stored.channels());
  for (int y = 0; y < out.height(); ++y) {
    for (int x = 0; x < out.width(); ++x) {
      const auto [sx, sy] = shown_from(orientation, x, y, w, h);
      for (int c = 0; c < stored.channels(); ++c) out.at(x, y, c) = stored.at(sx, sy, c);
    }
  }
  return out;
}

class ExifOrientation : public ::testing::TestWithParam<CodecPath> {
 protected:
  [[nodiscard]] Image decode(const Bytes& jpeg, bool apply = true) const {
    LoadOptions options;
    options.apply_exif_orientation = apply;
    return test::decode_with(GetParam(), jpeg, "exif.jpg", options);
  }
};
INSTANTIATE_TEST_SUITE_P(Codec, ExifOrientation, ::testing::ValuesIn(test::kCodecPaths),
                         test::CodecPathName{});

TEST_P(ExifOrientation, EachOfTheEightIsTurnedUpright) {
  for (const int channels : {1, 3}) {
    const Bytes jpeg = test::encode_with(
        CodecPath::fast, test::synthetic_image(kWidth, kHeight, channels, 4), ImageFormat::jpeg);
    const Image stored = decode(jpeg);
    for (int orientation = kUpright; orientation <= kOrientations; ++orientation) {
      for (const bool big_endian : {false, true}) {
        SCOPED_TRACE("orientation " + std::to_string(orientation) + (big_endian ? " MM" : " II") +
                     ", " + std::to_string(channels) + " channel(s)");
        const Bytes tagged = with_exif_orientation(jpeg, orientation, big_endian);
        EXPECT_TRUE(test::same_image(displayed(stored, orientation), decode(tagged)));
        EXPECT_TRUE(test::same_image(stored, decode(tagged, false)));
      }
    }
  }
}

TEST_P(ExifOrientation, MalformedOrAbsentTagMeansUpright) {
  constexpr std::uint16_t kTypeLong = 4;
  const Bytes jpeg = test::encode_with(
      CodecPath::fast, test::synthetic_image(kWidth, kHeight, 3, 5), ImageFormat::jpeg);
  const Image stored = decode(jpeg);
  const Bytes tagged = with_exif_orientation(jpeg, 6);
  const std::vector<Bytes> upright{
      with_exif_orientation(jpeg, 0),                    // out of range
      with_exif_orientation(jpeg, kOrientations + 1),    // out of range
      with_exif_orientation(jpeg, 6, false, kTypeLong),  // not a SHORT
      with_exif_orientation(jpeg, 6, false, 3, 2),       // two values
      // The segment cut inside its IFD entry (its length field shortened to match).
      [&] {
        Bytes cut = tagged;
        constexpr std::size_t kLengthAt = 4;  // SOI 2, marker 2
        constexpr std::size_t kCutBytes = 10;
        const std::size_t length = (std::size_t{cut[kLengthAt]} << 8) | cut[kLengthAt + 1];
        cut.erase(cut.begin() + static_cast<std::ptrdiff_t>(2 + 2 + length - kCutBytes),
                  cut.begin() + static_cast<std::ptrdiff_t>(2 + 2 + length));
        cut[kLengthAt] = static_cast<std::uint8_t>((length - kCutBytes) >> 8);
        cut[kLengthAt + 1] = static_cast<std::uint8_t>(length - kCutBytes);
        return cut;
      }(),
      // Not "Exif\0\0" (an XMP packet is APP1 too).
      [&] {
        Bytes other = tagged;
        other[6] = 'X';
        return other;
      }(),
  };
  for (std::size_t i = 0; i < upright.size(); ++i) {
    SCOPED_TRACE("case " + std::to_string(i));
    EXPECT_TRUE(test::same_image(stored, decode(upright[i])));
  }
}

}  // namespace
}  // namespace parfilter
