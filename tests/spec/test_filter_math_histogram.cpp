// The shared host math of docs/FILTERS.md behind the histogram ops (equalize's table and its
// YCrCb conversion, Otsu's and isodata's thresholds), checked against numbers worked out by
// hand. The image filters' math is in test_filter_math_filters.cpp.
#include <gtest/gtest.h>

#include <cstdint>
#include <initializer_list>
#include <random>
#include <utility>

#include "filter_math.hpp"

namespace parfilter {
namespace {

// ---- equalize --------------------------------------------------------------------------------
HistogramBins histogram_of(std::initializer_list<std::pair<int, std::uint64_t>> counts) {
  HistogramBins h{};
  for (const auto& [v, n] : counts) h[v] = n;
  return h;
}

TEST(EqualizeLut, FourPixels) {
  // Values 2, 5, 5, 9: N = 4, vmin = 2, D = 4 - 1 = 3.
  // c(5) = 2 -> 255 * 2 / 3 = 170 exactly; c(9) = 3 -> 255. Below vmin and at vmin: 0.
  const auto lut = equalize_lut(histogram_of({{2, 1}, {5, 2}, {9, 1}}));
  EXPECT_EQ(lut[0], 0);
  EXPECT_EQ(lut[2], 0);
  EXPECT_EQ(lut[3], 0);  // c(3) = 0
  EXPECT_EQ(lut[5], 170);
  EXPECT_EQ(lut[8], 170);  // c(8) = c(5)
  EXPECT_EQ(lut[9], 255);
  EXPECT_EQ(lut[255], 255);
}

TEST(EqualizeLut, HalvesRoundUp) {
  // Values 0, 1, 2: D = 2; c(1) = 1 -> 127.5 -> 128 = floor((510 + 2) / 4).
  const auto lut = equalize_lut(histogram_of({{0, 1}, {1, 1}, {2, 1}}));
  EXPECT_EQ(lut[0], 0);
  EXPECT_EQ(lut[1], 128);
  EXPECT_EQ(lut[2], 255);
}

TEST(EqualizeLut, DZeroAndEmptyAreIdentity) {
  const auto single = equalize_lut(histogram_of({{7, 5}}));  // D = 5 - 5 = 0
  const auto empty = equalize_lut(HistogramBins{});
  for (int v = 0; v < kHistogramBins; ++v) {
    EXPECT_EQ(single[v], v);
    EXPECT_EQ(empty[v], v);
  }
}

TEST(EqualizeLut, VminAboveZeroMapsToZero) {
  // Values 100 (x3) and 101 (x1): D = 1, c(101) = 1 -> 255; 100 -> 0.
  const auto lut = equalize_lut(histogram_of({{100, 3}, {101, 1}}));
  EXPECT_EQ(lut[99], 0);
  EXPECT_EQ(lut[100], 0);
  EXPECT_EQ(lut[101], 255);
}

// ---- otsu ------------------------------------------------------------------------------------
TEST(Otsu, TwoPeaksTakesTheSmallestTiedThreshold) {
  // Every t in 10..199 splits {10} from {200} the same way: the smallest, 10, wins.
  EXPECT_EQ(otsu_threshold(histogram_of({{10, 3}, {200, 5}})), 10);
}

TEST(Otsu, ThreeValues) {
  // Values 0, 1, 10. Variance x N^2 = W0 W1 (mu0 - mu1)^2:
  // t = 0: 1 * 2 * (0 - 5.5)^2 = 60.5; t = 1..9: 2 * 1 * (0.5 - 10)^2 = 180.5 -> t = 1.
  EXPECT_EQ(otsu_threshold(histogram_of({{0, 1}, {1, 1}, {10, 1}})), 1);
}

TEST(Otsu, ExactTieBetweenDifferentSplits) {
  // Values 0, 1, 1, 2: t = 0: 1 * 3 * (0 - 4/3)^2 = 16/3; t = 1: 3 * 1 * (2/3 - 2)^2 = 16/3.
  EXPECT_EQ(otsu_threshold(histogram_of({{0, 1}, {1, 2}, {2, 1}})), 0);
}

TEST(Otsu, DegenerateHistograms) {
  EXPECT_EQ(otsu_threshold(HistogramBins{}), 0);
  EXPECT_EQ(otsu_threshold(histogram_of({{42, 7}})), 42);
  EXPECT_EQ(otsu_threshold(histogram_of({{255, 1}})), 255);
}

TEST(Otsu, HugeCountsStayExact) {
  // Nearly 2^40 pixels: the products need more than 128 bits.
  const std::uint64_t half = std::uint64_t{1} << 39;
  EXPECT_EQ(otsu_threshold(histogram_of({{0, half}, {255, half - 1}})), 0);
  EXPECT_EQ(otsu_threshold(histogram_of({{0, half}, {3, 1}, {255, half - 2}})), 3);
}

/// Otsu's threshold in long double, for histograms far from ties.
int otsu_by_floating_point(const HistogramBins& h) {
  long double n = 0;
  long double s = 0;
  for (int v = 0; v < kHistogramBins; ++v) {
    n += h[v];
    s += static_cast<long double>(h[v]) * v;
  }
  long double w0 = 0;
  long double s0 = 0;
  long double best = -1;
  int best_t = 0;
  for (int t = 0; t < kHistogramBins - 1; ++t) {
    w0 += h[t];
    s0 += static_cast<long double>(h[t]) * t;
    const long double w1 = n - w0;
    if (w0 == 0 || w1 == 0) continue;
    const long double d = s0 / w0 - (s - s0) / w1;
    const long double var = w0 * w1 * d * d;
    if (var > best * (1 + 1e-15L)) {
      best = var;
      best_t = t;
    }
  }
  return best_t;
}

TEST(Otsu, AgreesWithFloatingPointOnRandomHistograms) {
  std::mt19937_64 rng(7);
  std::uniform_int_distribution<std::uint64_t> count(0, 100000);
  for (int trial = 0; trial < 200; ++trial) {
    HistogramBins h{};
    for (auto& c : h) c = count(rng);
    EXPECT_EQ(otsu_threshold(h), otsu_by_floating_point(h)) << "trial " << trial;
  }
}

// ---- isodata ---------------------------------------------------------------------------------
TEST(Isodata, ConvergesInOneRound) {
  // Values 10, 10, 20, 20, 200: S = 260, N = 5, t = 52.
  // W1 = 4, S1 = 60, W2 = 1, S2 = 200: t' = floor((60 + 800) / 8) = 107; then t' = t.
  EXPECT_EQ(isodata_threshold(histogram_of({{10, 2}, {20, 2}, {200, 1}})), 107);
}

TEST(Isodata, ValueChangesClassBetweenRounds) {
  // Values 0 (x4), 60, 200: S = 260, N = 6, t = 43.
  // Round 1: W1 = 4, S1 = 0, W2 = 2, S2 = 260 -> floor(1040 / 16) = 65: 60 moves down.
  // Round 2: W1 = 5, S1 = 60, W2 = 1, S2 = 200 -> floor((60 + 1000) / 10) = 106.
  // Round 3: same classes -> 106 again: stop.
  EXPECT_EQ(isodata_threshold(histogram_of({{0, 4}, {60, 1}, {200, 1}})), 106);
}

TEST(Isodata, DegenerateHistograms) {
  EXPECT_EQ(isodata_threshold(HistogramBins{}), 0);
  // One value: t = 77, W2 = 0: stop at once.
  EXPECT_EQ(isodata_threshold(histogram_of({{77, 3}})), 77);
  // 0 and 255 once each: t = 127, W1 = W2 = 1 -> floor(255 / 2) = 127.
  EXPECT_EQ(isodata_threshold(histogram_of({{0, 1}, {255, 1}})), 127);
}

// ---- YCrCb -----------------------------------------------------------------------------------
TEST(YCrCb, GraysHaveNeutralChroma) {
  for (int v : {0, 1, 128, 254, 255}) {
    const auto ycc = rgb_to_ycrcb(v, v, v);
    EXPECT_EQ(ycc.y, v);
    EXPECT_EQ(ycc.cr, 128);
    EXPECT_EQ(ycc.cb, 128);
    std::uint8_t rgb[3];
    ycrcb_to_rgb(ycc, rgb);
    EXPECT_EQ(rgb[0], v);
    EXPECT_EQ(rgb[1], v);
    EXPECT_EQ(rgb[2], v);
  }
}

TEST(YCrCb, PureRed) {
  // Y = (4899 * 255 + 8192) >> 14 = 1257437 >> 14 = 76.
  // Cr = (179 * 11682 + (128 << 14) + 8192) >> 14 = 4196422 >> 14 = 256 -> 255.
  // Cb = (-76 * 9241 + (128 << 14) + 8192) >> 14 = 1403028 >> 14 = 85.
  const auto ycc = rgb_to_ycrcb(255, 0, 0);
  EXPECT_EQ(ycc.y, 76);
  EXPECT_EQ(ycc.cr, 255);
  EXPECT_EQ(ycc.cb, 85);
  // Back: Cr - 128 = 127, Cb - 128 = -43.
  // R = 76 + ((127 * 22987 + 8192) >> 14) = 76 + 178 = 254.
  // G = 76 + ((-43 * -5636 + 127 * -11698 + 8192) >> 14) = 76 + floor(-75.4) = 0.
  // B = 76 + ((-43 * 29049 + 8192) >> 14) = 76 + floor(-75.7) = 0.
  std::uint8_t rgb[3];
  ycrcb_to_rgb(ycc, rgb);
  EXPECT_EQ(rgb[0], 254);
  EXPECT_EQ(rgb[1], 0);
  EXPECT_EQ(rgb[2], 0);
}
}  // namespace
}  // namespace parfilter
