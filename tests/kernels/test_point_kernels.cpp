// The point kernels' vector paths against the spec's per-pixel expressions: every row width
// from 1 to past two AVX2 iterations (tails of every length for the AVX2, SSE2 and scalar
// loops), and a 4K row; gray and YCrCb luma, alone and fused with the histogram; colour
// equalization's YCrCb round trip at every width and on every 24-bit colour.
#include <gtest/gtest.h>

#include <array>
#include <cstdint>
#include <vector>

#include "filter_math.hpp"
#include "parfilter/image.hpp"
#include "row_kernels.hpp"
#include "support/test_images.hpp"

namespace parfilter {
namespace {

constexpr int kMaxNarrowWidth = 100;  ///< past three 32-pixel AVX2 iterations
constexpr int kWideWidth = 3840;      ///< a 4K row
constexpr int kRows = 3;
constexpr std::uint32_t kSeed = 7;

std::vector<int> widths() {
  std::vector<int> result;
  for (int w = 1; w <= kMaxNarrowWidth; ++w) result.push_back(w);
  result.push_back(kWideWidth);
  return result;
}

TEST(PointKernels, GrayMatchesTheSpecAtEveryWidth) {
  for (const int channels : {3, 4}) {
    for (const int width : widths()) {
      const Image src = test::synthetic_image(width, kRows, channels, kSeed + width);
      Image dst = Image::uninitialized(width, kRows, 1);
      Image counted_dst = Image::uninitialized(width, kRows, 1);
      const RowRange rows{0, kRows};
      kernels::gray_rows(src.view(), dst.view(), rows);
      HistogramBins counted{};
      kernels::gray_rows_counted(src.view(), counted_dst.view(), rows, counted);
      HistogramBins fused{};
      kernels::gray_histogram_rows(src.view(), rows, fused);
      HistogramBins expected_hist{};
      for (int y = 0; y < kRows; ++y) {
        for (int x = 0; x < width; ++x) {
          const std::uint8_t expected = gray_of(src.at(x, y, 0), src.at(x, y, 1), src.at(x, y, 2));
          ++expected_hist[expected];
          ASSERT_EQ(dst.at(x, y), expected) << channels << " channels, width " << width;
          ASSERT_EQ(counted_dst.at(x, y), expected) << channels << " channels, width " << width;
        }
      }
      EXPECT_EQ(counted, expected_hist) << channels << " channels, width " << width;
      EXPECT_EQ(fused, expected_hist) << channels << " channels, width " << width;
    }
  }
}

TEST(PointKernels, LumaHistogramMatchesTheSpecAtEveryWidth) {
  for (const int channels : {3, 4}) {
    for (const int width : widths()) {
      const Image src = test::synthetic_image(width, kRows, channels, kSeed + width);
      HistogramBins hist{};
      kernels::luma_histogram_rows(src.view(), {0, kRows}, hist);
      HistogramBins expected{};
      for (int y = 0; y < kRows; ++y) {
        for (int x = 0; x < width; ++x) {
          ++expected[ycrcb_luma(src.at(x, y, 0), src.at(x, y, 1), src.at(x, y, 2))];
        }
      }
      EXPECT_EQ(hist, expected) << channels << " channels, width " << width;
    }
  }
}

TEST(PointKernels, GrayOfAGrayImageIsACopy) {
  const Image src = test::synthetic_image(kMaxNarrowWidth, kRows, 1, kSeed);
  Image dst = Image::uninitialized(kMaxNarrowWidth, kRows, 1);
  HistogramBins hist{};
  kernels::gray_rows_counted(src.view(), dst.view(), {0, kRows}, hist);
  EXPECT_EQ(dst, src);
  HistogramBins expected{};
  kernels::histogram_rows(src.view(), {0, kRows}, 0, expected);
  EXPECT_EQ(hist, expected);
}

/// Equalization tables that move Y far both ways (the round trip then saturates on both
/// sides): the identity, the reversal and a scramble (an odd multiplier is a bijection).
std::vector<std::array<std::uint8_t, kHistogramBins>> equalize_luts() {
  constexpr int kScrambleMultiplier = 167;
  constexpr int kScrambleOffset = 13;
  constexpr int kMax = kHistogramBins - 1;
  std::array<std::uint8_t, kHistogramBins> identity{};
  std::array<std::uint8_t, kHistogramBins> reversed{};
  std::array<std::uint8_t, kHistogramBins> scrambled{};
  for (int v = 0; v < kHistogramBins; ++v) {
    const auto i = static_cast<std::size_t>(v);
    identity[i] = static_cast<std::uint8_t>(v);
    reversed[i] = static_cast<std::uint8_t>(kMax - v);
    scrambled[i] = static_cast<std::uint8_t>((v * kScrambleMultiplier + kScrambleOffset) & kMax);
  }
  return {identity, reversed, scrambled};
}

/// Asserts that dst is src's colour equalization under `lut` by the spec's per-pixel round
/// trip (rgb_to_ycrcb, Y through the table, ycrcb_to_rgb), alpha copied.
void expect_colour_equalized(const Image& src, const Image& dst,
                             const std::array<std::uint8_t, kHistogramBins>& lut) {
  for (int y = 0; y < src.height(); ++y) {
    for (int x = 0; x < src.width(); ++x) {
      YCrCb ycc = rgb_to_ycrcb(src.at(x, y, 0), src.at(x, y, 1), src.at(x, y, 2));
      ycc.y = lut[ycc.y];
      std::uint8_t rgb[3];
      ycrcb_to_rgb(ycc, rgb);
      for (int c = 0; c < 3; ++c) {
        ASSERT_EQ(dst.at(x, y, c), rgb[c])
            << "pixel " << x << "," << y << " channel " << c << " of " << src.at(x, y, 0) << " "
            << src.at(x, y, 1) << " " << src.at(x, y, 2) << ", width " << src.width();
      }
      if (src.channels() > 3) {
        ASSERT_EQ(dst.at(x, y, 3), src.at(x, y, 3));
      }
    }
  }
}

TEST(PointKernels, ColourEqualizeMatchesTheSpecAtEveryWidth) {
  for (const auto& lut : equalize_luts()) {
    for (const int channels : {3, 4}) {
      for (const int width : widths()) {
        const Image src = test::synthetic_image(width, kRows, channels, kSeed + width);
        Image dst = Image::uninitialized(width, kRows, channels);
        kernels::equalize_color_rows(src.view(), dst.view(), {0, kRows}, lut);
        expect_colour_equalized(src, dst, lut);
      }
    }
  }
}

TEST(PointKernels, ColourEqualizeOnEveryColour) {
  const Image src = test::every_colour_image();
  const int side = src.width();
  Image dst = Image::uninitialized(side, side, 3);
  for (const auto& lut : equalize_luts()) {
    kernels::equalize_color_rows(src.view(), dst.view(), {0, side}, lut);
    expect_colour_equalized(src, dst, lut);
  }
}

}  // namespace
}  // namespace parfilter
