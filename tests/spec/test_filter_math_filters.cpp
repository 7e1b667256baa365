// The shared host math of docs/FILTERS.md behind the image filters (gray's luma, the border
// rules, gaussian's weights and tables, sobel's magnitude, the structuring elements of erode /
// dilate / open / close), checked against numbers worked out by hand. The histogram ops' math
// is in test_filter_math_histogram.cpp.
#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <cstdint>
#include <initializer_list>
#include <limits>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "filter_math.hpp"

namespace parfilter {
namespace {

// ---- gray ------------------------------------------------------------------------------------
TEST(Gray, Q15Luma) {
  EXPECT_EQ(gray_of(0, 0, 0), 0);
  // 9798 + 19235 + 3735 = 32768, so white stays white.
  EXPECT_EQ(gray_of(255, 255, 255), 255);
  // (9798 * 255 + 16384) >> 15 = 2514874 >> 15 = 76 (76.75 truncated after adding the half).
  EXPECT_EQ(gray_of(255, 0, 0), 76);
  // (19235 * 255 + 16384) >> 15 = 4921309 >> 15 = 150.
  EXPECT_EQ(gray_of(0, 255, 0), 150);
  // (3735 * 255 + 16384) >> 15 = 968809 >> 15 = 29.
  EXPECT_EQ(gray_of(0, 0, 255), 29);
}

// ---- borders ---------------------------------------------------------------------------------
TEST(BorderIndex, InsideIsIdentityForEveryKind) {
  for (auto kind : {BorderKind::replicate, BorderKind::reflect101, BorderKind::constant}) {
    for (int i = 0; i < 5; ++i) EXPECT_EQ(border_index(i, 5, kind), i);
  }
}

/// border_index(i, n, kind) == expected for each {i, expected} of `cases`.
void expect_border_indices(int n, BorderKind kind,
                           std::initializer_list<std::pair<int, int>> cases) {
  for (const auto& [i, expected] : cases) {
    EXPECT_EQ(border_index(i, n, kind), expected) << "i " << i << ", n " << n;
  }
}

TEST(BorderIndex, ReplicateClamps) {
  // aaa|abcde|eee
  expect_border_indices(5, BorderKind::replicate, {{-1, 0}, {-7, 0}, {5, 4}, {9, 4}});
  expect_border_indices(1, BorderKind::replicate, {{-2, 0}, {2, 0}});
}

TEST(BorderIndex, Reflect101MirrorsWithoutRepeatingTheEdge) {
  // dcb|abcde|dcb: -1 -> 1, -2 -> 2, 5 -> 3, 6 -> 2. Far outside, repeated reflections:
  // -6 -> 6 -> 2n-2-6 = 2.
  expect_border_indices(5, BorderKind::reflect101, {{-1, 1}, {-2, 2}, {5, 3}, {6, 2}, {-6, 2}});
}

TEST(BorderIndex, Reflect101OnWidthOneIsAlwaysZero) {
  for (int i = -3; i <= 3; ++i) EXPECT_EQ(border_index(i, 1, BorderKind::reflect101), 0);
}

TEST(BorderIndex, Reflect101OnWidthTwoAlternates) {
  // n = 2: ...0 1 0 | 0 1 | 1 0 1...
  // -1 -> 1; -2 -> 2 -> 2n-2-2 = 0; 2 -> 0; 3 -> -1 -> 1; -3 -> 3 -> -1 -> 1.
  expect_border_indices(2, BorderKind::reflect101, {{-1, 1}, {-2, 0}, {2, 0}, {3, 1}, {-3, 1}});
}

TEST(BorderIndex, ConstantOutsideIsMinusOne) {
  expect_border_indices(5, BorderKind::constant, {{-1, -1}, {5, -1}});
  expect_border_indices(1, BorderKind::constant, {{1, -1}});
}

// ---- gaussian --------------------------------------------------------------------------------
TEST(GaussianWeights, SigmaOnePointFive) {
  // g = e^-(4/4.5), e^-(1/4.5), 1, ... = 0.4111, 0.8007, 1; sum 3.4236.
  // 256 g / sum = 30.74, 59.87, 74.77 -> 31, 60, 75: they sum to 257, so the centre gives 1.
  const auto w = gaussian_weights(1.5);
  EXPECT_EQ(w.q, (std::array<int, 5>{31, 60, 74, 60, 31}));
}

TEST(GaussianWeights, OtherSigmasSumTo256) {
  // sigma 1: 13.95, 62.52, 103.07 -> 14, 63, 103 (sum 257) -> centre 102.
  EXPECT_EQ(gaussian_weights(1.0).q, (std::array<int, 5>{14, 63, 102, 63, 14}));
  // sigma 0.5: 0.07, 27.26, 201.41 -> 0, 27, 201 (sum 255) -> centre 202.
  EXPECT_EQ(gaussian_weights(0.5).q, (std::array<int, 5>{0, 27, 202, 27, 0}));
  // Tiny sigma: everything on the centre.
  EXPECT_EQ(gaussian_weights(0.01).q, (std::array<int, 5>{0, 0, 256, 0, 0}));
  // Huge sigma: 51.2 each -> 51 (sum 255) -> centre 52.
  EXPECT_EQ(gaussian_weights(1000.0).q, (std::array<int, 5>{51, 51, 52, 51, 51}));
}

TEST(GaussianWeights, TwoDimensionalWeightsSumTo65536) {
  const auto w = gaussian_weights(1.5);
  int sum = 0;
  for (int i = 0; i < kGaussianTaps; ++i) {
    for (int j = 0; j < kGaussianTaps; ++j) sum += w.weight(i, j);
  }
  EXPECT_EQ(sum, 1 << kGaussianShift);
  EXPECT_EQ(w.weight(2, 2), 74 * 74);
  EXPECT_EQ(w.weight(0, 1), 31 * 60);
}

TEST(GaussianWeights, RejectsNonPositiveSigma) {
  EXPECT_THROW((void)gaussian_weights(0.0), std::invalid_argument);
  EXPECT_THROW((void)gaussian_weights(-1.0), std::invalid_argument);
}

TEST(GaussianLut, ClassesByDistanceFromTheCentre) {
  // Classes: (0,0) (0,1) (0,2) (1,1) (1,2) (2,2) by distances from the centre tap 2.
  EXPECT_EQ(gaussian_weight_class(2, 2), 0);
  EXPECT_EQ(gaussian_weight_class(2, 1), 1);
  EXPECT_EQ(gaussian_weight_class(3, 2), 1);
  EXPECT_EQ(gaussian_weight_class(0, 2), 2);
  EXPECT_EQ(gaussian_weight_class(2, 4), 2);
  EXPECT_EQ(gaussian_weight_class(1, 3), 3);
  EXPECT_EQ(gaussian_weight_class(0, 1), 4);
  EXPECT_EQ(gaussian_weight_class(3, 4), 4);
  EXPECT_EQ(gaussian_weight_class(0, 0), 5);
  EXPECT_EQ(gaussian_weight_class(4, 4), 5);
}

TEST(GaussianLut, HoldsWeightTimesValue) {
  const auto w = gaussian_weights(1.5);
  const auto lut = gaussian_lut(w);
  EXPECT_EQ(lut[0][1], 74U * 74U);
  EXPECT_EQ(lut[5][255], 31U * 31U * 255U);  // 245055
  for (int i = 0; i < kGaussianTaps; ++i) {
    for (int j = 0; j < kGaussianTaps; ++j) {
      for (int v : {0, 1, 77, 255}) {
        EXPECT_EQ(lut[gaussian_weight_class(i, j)][v],
                  static_cast<std::uint32_t>(w.weight(i, j) * v));
      }
    }
  }
}

// ---- sobel -----------------------------------------------------------------------------------
TEST(IsqrtRound, SmallValuesRoundHalfUp) {
  // round(sqrt(n)) is k for n <= k^2 + k and k + 1 above: sqrt(k^2 + k) < k + 1/2 < sqrt(k^2 + k +
  // 1).
  const std::vector<std::pair<std::uint64_t, std::uint32_t>> cases = {
      {0, 0}, {1, 1}, {2, 1}, {3, 2}, {4, 2}, {6, 2}, {7, 3}, {12, 3}, {13, 4}, {16, 4}, {25, 5}};
  for (const auto& [n, root] : cases) EXPECT_EQ(isqrt_round(n), root) << "n = " << n;
}

TEST(IsqrtRound, LargeValuesAreExact) {
  const std::uint64_t k = 1000000;
  EXPECT_EQ(isqrt_round(k * k + k), k);
  EXPECT_EQ(isqrt_round(k * k + k + 1), k + 1);
  const std::uint64_t big = std::numeric_limits<std::uint32_t>::max();
  EXPECT_EQ(isqrt_round(big * big), big);
  EXPECT_EQ(isqrt_round(big * big - 1), big);
  // round(sqrt(2^64 - 1)) = 2^32 does not fit: saturated.
  EXPECT_EQ(isqrt_round(std::numeric_limits<std::uint64_t>::max()), big);
}

TEST(IsqrtRound, MatchesLongDoubleEverywhereSobelCanReach) {
  // |gx|, |gy| <= 4 * 255 = 1020, so n <= 2 * 1020^2.
  constexpr std::uint64_t kMaxSobelSquare = 2ULL * 1020 * 1020;
  for (std::uint64_t n = 0; n <= kMaxSobelSquare; ++n) {
    const auto expected =
        static_cast<std::uint32_t>(std::floor(std::sqrt(static_cast<long double>(n)) + 0.5L));
    ASSERT_EQ(isqrt_round(n), expected) << "n = " << n;
  }
}

TEST(SobelValue, EachOutputMode) {
  EXPECT_EQ(sobel_value(3, 4, SobelOutput::magnitude), 5);
  EXPECT_EQ(sobel_value(1, 1, SobelOutput::magnitude), 1);         // 1.414
  EXPECT_EQ(sobel_value(2, 2, SobelOutput::magnitude), 3);         // 2.828
  EXPECT_EQ(sobel_value(-1, 2, SobelOutput::magnitude), 2);        // 2.236
  EXPECT_EQ(sobel_value(-200, 200, SobelOutput::magnitude), 255);  // 282.8 saturated
  EXPECT_EQ(sobel_value(-3, 4, SobelOutput::l1), 7);
  EXPECT_EQ(sobel_value(-100, 200, SobelOutput::l1), 255);
  EXPECT_EQ(sobel_value(-7, 9, SobelOutput::dx), 7);
  EXPECT_EQ(sobel_value(-300, 9, SobelOutput::dx), 255);
  EXPECT_EQ(sobel_value(-7, 9, SobelOutput::dy), 9);
  EXPECT_EQ(sobel_value(0, -1020, SobelOutput::dy), 255);
}

// ---- structuring elements ---------------------------------------------------------------------
/// The mask as rows of '0'/'1', to compare with OpenCV's getStructuringElement output.
std::vector<std::string> mask_rows(const StructuringElement& se) {
  std::vector<std::string> rows;
  for (int y = 0; y < se.height; ++y) {
    std::string row;
    for (int x = 0; x < se.width; ++x) row += se.at(x, y) ? '1' : '0';
    rows.push_back(row);
  }
  return rows;
}

using Rows = std::vector<std::string>;

TEST(StructuringElement, RectAndCross) {
  EXPECT_EQ(mask_rows(make_structuring_element({SeShape::rect, 3, 2})), (Rows{"111", "111"}));
  EXPECT_EQ(mask_rows(make_structuring_element({SeShape::cross, 5, 3})),
            (Rows{"00100", "11111", "00100"}));
  // Even sizes: the anchor is (W/2, H/2) = (2, 2).
  const auto cross4 = make_structuring_element({SeShape::cross, 4, 4});
  EXPECT_EQ(mask_rows(cross4), (Rows{"0010", "0010", "1111", "0010"}));
  EXPECT_EQ(cross4.anchor_x, 2);
  EXPECT_EQ(cross4.anchor_y, 2);
}

TEST(StructuringElement, EllipsesMatchOpenCVMasks) {
  // These are cv::getStructuringElement(MORPH_ELLIPSE, ...) outputs of OpenCV 4.6.
  EXPECT_EQ(mask_rows(make_structuring_element({SeShape::ellipse, 3, 3})),
            (Rows{"010", "111", "010"}));
  EXPECT_EQ(mask_rows(make_structuring_element({SeShape::ellipse, 5, 5})),
            (Rows{"00100", "11111", "11111", "11111", "00100"}));
  // 7x7: r = c = 3; dy = 2: dx = round(3 sqrt(5/9)) = round(2.236) = 2.
  EXPECT_EQ(mask_rows(make_structuring_element({SeShape::ellipse, 7, 7})),
            (Rows{"0001000", "0111110", "1111111", "1111111", "1111111", "0111110", "0001000"}));
  EXPECT_EQ(mask_rows(make_structuring_element({SeShape::ellipse, 5, 3})),
            (Rows{"00100", "11111", "00100"}));
  EXPECT_EQ(mask_rows(make_structuring_element({SeShape::ellipse, 4, 4})),
            (Rows{"0010", "1111", "1111", "1111"}));
  // r = 0 makes inv_r2 = 0, so a one-row ellipse keeps only its centre (an OpenCV quirk).
  EXPECT_EQ(mask_rows(make_structuring_element({SeShape::ellipse, 5, 1})), (Rows{"00100"}));
  EXPECT_EQ(mask_rows(make_structuring_element({SeShape::ellipse, 1, 3})), (Rows{"1", "1", "1"}));
}

TEST(StructuringElement, OneByOneIsARect) {
  for (auto shape : {SeShape::rect, SeShape::cross, SeShape::ellipse}) {
    const auto se = make_structuring_element({shape, 1, 1});
    EXPECT_EQ(mask_rows(se), (Rows{"1"}));
  }
}

TEST(StructuringElement, RowSpansDescribeTheMask) {
  for (auto shape : {SeShape::rect, SeShape::cross, SeShape::ellipse}) {
    for (int w = 1; w <= 12; ++w) {
      for (int h = 1; h <= 12; ++h) {
        const auto se = make_structuring_element({shape, w, h});
        ASSERT_EQ(static_cast<int>(se.row_spans.size()), h);
        for (int y = 0; y < h; ++y) {
          for (int x = 0; x < w; ++x) {
            const bool in_span = x >= se.row_spans[y].x0 && x < se.row_spans[y].x1;
            EXPECT_EQ(se.at(x, y), in_span);
          }
        }
      }
    }
  }
}

TEST(StructuringElement, RectanglesByHand) {
  using Rects = std::vector<std::array<int, 4>>;  // x0, x1, y0, y1 around the anchor
  const auto rects = [](const SeSpec& spec) {
    Rects result;
    for (const SeRect& r : structuring_element_rects(make_structuring_element(spec))) {
      result.push_back({r.x0, r.x1, r.y0, r.y1});
    }
    return result;
  };
  EXPECT_EQ(rects({SeShape::rect, 3, 5}), (Rects{{-1, 2, -2, 3}}));
  // The centre column over every row, then the middle row over every column.
  EXPECT_EQ(rects({SeShape::cross, 5, 3}), (Rects{{0, 1, -1, 2}, {-2, 3, 0, 1}}));
  // "00100", "11111" x 3, "00100": the centre over all five rows, the full width over three.
  EXPECT_EQ(rects({SeShape::ellipse, 5, 5}), (Rects{{0, 1, -2, 3}, {-2, 3, -1, 2}}));
}

TEST(StructuringElement, RectanglesCoverExactlyTheMask) {
  for (auto shape : {SeShape::rect, SeShape::cross, SeShape::ellipse}) {
    for (int w = 1; w <= 12; ++w) {
      for (int h = 1; h <= 12; ++h) {
        const auto se = make_structuring_element({shape, w, h});
        std::vector<std::uint8_t> covered(se.mask.size(), 0);
        for (const SeRect& r : structuring_element_rects(se)) {
          for (int y = r.y0; y < r.y1; ++y) {
            for (int x = r.x0; x < r.x1; ++x) {
              const int mx = x + se.anchor_x;
              const int my = y + se.anchor_y;
              ASSERT_TRUE(mx >= 0 && mx < w && my >= 0 && my < h && se.at(mx, my))
                  << to_string(SeSpec{shape, w, h}) << ": a rectangle leaves the element";
              covered[static_cast<std::size_t>(my * w + mx)] = 1;
            }
          }
        }
        EXPECT_EQ(covered, se.mask) << to_string(SeSpec{shape, w, h});
      }
    }
  }
}

// FILTERS.md: open is erosion then dilation, close the reverse, each --iterations times.
TEST(MorphologySteps, FollowEachOpsDefinition) {
  using enum MorphOp;
  EXPECT_EQ(morphology_steps(Op::erode, 3), (std::vector<MorphOp>{erode, erode, erode}));
  EXPECT_EQ(morphology_steps(Op::dilate, 1), (std::vector<MorphOp>{dilate}));
  EXPECT_EQ(morphology_steps(Op::open, 2), (std::vector<MorphOp>{erode, erode, dilate, dilate}));
  EXPECT_EQ(morphology_steps(Op::close, 2), (std::vector<MorphOp>{dilate, dilate, erode, erode}));
  EXPECT_THROW((void)morphology_steps(Op::gaussian, 1), std::logic_error);
}

}  // namespace
}  // namespace parfilter
