// The point kernels' vector paths against the spec's per-pixel expressions: every row width
// from 1 to past two AVX2 iterations (tails of every length for the AVX2, SSE2 and scalar
// loops), and a 4K row; gray and YCrCb luma, alone and fused with the histogram.
#include <gtest/gtest.h>

#include <vector>

#include "parfilter/filter_math.hpp"
#include "parfilter/image.hpp"
#include "parfilter/row_kernels.hpp"
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

}  // namespace
}  // namespace parfilter
