// The SIMD loops (Google Highway) against the plain C++ loops they stand in for, on every
// target this CPU runs (simd::targets(): AVX3 (AVX-512), AVX2, SSE4 and SCALAR here), each
// pinned in turn in this process: every row kernel with Loops::simd and Loops::plain on the
// same input must give the same bytes, at every width up to past several vectors (tails of
// every length), wide rows, 1, 3 and 4 channels, noise and saturating extremes. The plain
// loops are checked against the reference by the cross-backend suite, which ctest also runs
// with each target pinned through PARFILTER_SIMD_TARGETS.
#include <gtest/gtest.h>
#if PARFILTER_HAVE_HWY
#include <hwy/targets.h>
#endif

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstdlib>
#include <functional>
#include <string>
#include <vector>

#include "filter_math.hpp"
#include "parfilter/image.hpp"
#include "row_kernels.hpp"
#include "simd_kernels.hpp"
#include "support/test_images.hpp"

namespace parfilter {
namespace {

using kernels::Loops;
namespace simd = kernels::simd;

constexpr int kMaxNarrowWidth = 70;  ///< past a whole AVX-512 vector of bytes plus a tail
constexpr std::array kWideWidths = {127, 128, 129, 255, 257, 1000, 4099};
constexpr int kRows = 5;
constexpr std::uint32_t kSeed = 11;
constexpr std::array kChannels = {1, 3, 4};

std::vector<int> widths() {
  std::vector<int> result;
  for (int w = 1; w <= kMaxNarrowWidth; ++w) result.push_back(w);
  result.insert(result.end(), kWideWidths.begin(), kWideWidths.end());
  return result;
}

/// Noise, and noise pushed to 0 and 255 (saturation in every direction).
std::vector<Image> inputs(int width, int channels) {
  const Image noise = test::noise_image(width, kRows, channels, kSeed + width);
  Image extremes = test::noise_image(width, kRows, channels, kSeed + 2 * width);
  constexpr int kHalf = 128;
  constexpr std::uint8_t kMax = 255;
  for (int y = 0; y < kRows; ++y) {
    std::uint8_t* row = extremes.row(y);
    for (std::ptrdiff_t i = 0; i < extremes.stride(); ++i) row[i] = row[i] < kHalf ? 0 : kMax;
  }
  return {noise, extremes};
}

/// kernel(src, dst, loops) must write the same dst with the plain loops as with the SIMD
/// loops, with ordinary and with streaming stores, for every input.
using Kernel = std::function<void(const ConstImageView&, const ImageView&, Loops)>;

void expect_same_loops(int out_channels, const Kernel& kernel,
                       const std::vector<int>& channel_counts = {kChannels.begin(),
                                                                 kChannels.end()}) {
  for (const int channels : channel_counts) {
    for (const int width : widths()) {
      for (const Image& src : inputs(width, channels)) {
        const int out_c = out_channels == 0 ? channels : out_channels;
        Image plain(width, kRows, out_c);
        kernel(src.view(), plain.view(), Loops::plain);
        for (const Loops loops : {Loops::simd, Loops::simd_stream}) {
          Image vector(width, kRows, out_c);
          kernel(src.view(), vector.view(), loops);
          ASSERT_TRUE(test::same_image(plain, vector))
              << channels << " channels, width " << width << ", streamed "
              << (loops == Loops::simd_stream);
        }
      }
    }
  }
}

const RowRange kAll{0, kRows};
constexpr const char* kScalar = "SCALAR";

class SimdLoops : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    ASSERT_TRUE(simd::pin_target(GetParam()));
    ASSERT_EQ(simd::active_target(), GetParam());
  }
  /// The scalar target's SIMD loops do nothing: comparing would run the plain loops twice.
  static bool vector_target() { return GetParam() != kScalar; }
  void TearDown() override { simd::pin_target(""); }
};

TEST_P(SimdLoops, RunWhereTheTargetHasVectors) {
  constexpr int kLong = 1024;
  const Image src = test::noise_image(kLong, 3, 4, kSeed);
  std::vector<std::uint8_t> out(static_cast<std::size_t>(kLong) * 4);
  std::vector<std::uint16_t> sums(static_cast<std::size_t>(kLong) * 4);
  const std::uint16_t* rows[5] = {sums.data(), sums.data(), sums.data(), sums.data(), sums.data()};
  std::array<std::uint8_t, kHistogramBins> lut{};
  const bool vector = vector_target();
  const auto ran = [&](std::ptrdiff_t done, std::ptrdiff_t start = 0) { return done > start; };
  EXPECT_EQ(ran(simd::luma_row(src.row(0), out.data(), kLong, 4, kernels::detail::kGrayWeights)),
            vector);
  EXPECT_EQ(ran(simd::threshold_row(src.row(0), out.data(), kLong, 1)), vector);
  EXPECT_EQ(ran(simd::lut_row(src.row(0), out.data(), kLong, lut.data())), vector);
  EXPECT_EQ(ran(simd::pool_row(src.row(0), src.row(1), out.data(), kLong / 2, 3)), vector);
  EXPECT_EQ(ran(simd::copy_alpha_row(src.row(0), out.data(), kLong)), vector);
  EXPECT_EQ(ran(simd::gaussian_row(src.row(0), sums.data(), 8, kLong, 4, {31, 60, 74}), 8), vector);
  EXPECT_EQ(ran(simd::gaussian_column(rows, out.data(), kLong, {31, 60, 74})), vector);
  EXPECT_EQ(ran(simd::sharpen_row(src.row(0), src.row(1), src.row(2), out.data(), 4, kLong, 4), 4),
            vector);
  EXPECT_EQ(ran(simd::sobel_row(src.row(0), src.row(1), src.row(2), out.data(), 1, kLong - 1,
                                SobelOutput::magnitude),
                1),
            vector);
  EXPECT_EQ(ran(static_cast<std::ptrdiff_t>(simd::combine3(src.row(0), src.row(1), src.row(2),
                                                           out.data(), kLong, MorphOp::erode))),
            vector);
}

TEST_P(SimdLoops, PointKernels) {
  if (!vector_target()) GTEST_SKIP() << "no SIMD loops on " << GetParam();
  expect_same_loops(1, [](const ConstImageView& s, const ImageView& d, Loops l) {
    kernels::gray_rows(s, d, kAll, l);
  });
  expect_same_loops(1, [](const ConstImageView& s, const ImageView& d, Loops l) {
    HistogramBins counted{};
    kernels::gray_rows_counted(s, d, kAll, counted, l);
    HistogramBins fused{};
    kernels::gray_histogram_rows(s, kAll, fused, l);
    HistogramBins luma{};
    if (s.channels() > 1) kernels::luma_histogram_rows(s, kAll, luma, l);
    // The counts go into the first row, compared like the image.
    std::uint8_t* row = d.row(0);
    for (int x = 0; x < d.width(); ++x) {
      const auto v = static_cast<std::size_t>(x % kHistogramBins);
      row[x] = static_cast<std::uint8_t>(counted[v] * 3 + fused[v] * 5 + luma[v] * 7);
    }
  });
  for (const int t : {0, 1, 127, 128, 200, 254, 255}) {
    expect_same_loops(1,
                      [t](const ConstImageView& s, const ImageView& d, Loops l) {
                        kernels::threshold_rows(s, d, kAll, t, l);
                      },
                      {1});
  }
  std::array<std::uint8_t, kHistogramBins> lut{};
  constexpr int kScramble = 167;
  for (int v = 0; v < kHistogramBins; ++v) lut[static_cast<std::size_t>(v)] = (v * kScramble) & 255;
  expect_same_loops(0,
                    [&](const ConstImageView& s, const ImageView& d, Loops l) {
                      kernels::apply_lut_rows(s, d, kAll, lut, l);
                    },
                    {1});
  expect_same_loops(0,
                    [&](const ConstImageView& s, const ImageView& d, Loops l) {
                      kernels::equalize_color_rows(s, d, kAll, lut, l);
                    },
                    {3, 4});
}

TEST_P(SimdLoops, Pool) {
  if (!vector_target()) GTEST_SKIP() << "no SIMD loops on " << GetParam();
  for (const int width : widths()) {
    for (const int channels : kChannels) {
      for (const Image& src : inputs(width, channels)) {
        const RowRange out_rows{0, pool_extent(kRows)};
        Image plain(pool_extent(width), out_rows.end, channels);
        kernels::pool2x2_rows(src.view(), plain.view(), out_rows, Loops::plain);
        for (const Loops loops : {Loops::simd, Loops::simd_stream}) {
          Image vector(pool_extent(width), out_rows.end, channels);
          kernels::pool2x2_rows(src.view(), vector.view(), out_rows, loops);
          ASSERT_TRUE(test::same_image(plain, vector)) << channels << " channels, width " << width;
        }
      }
    }
  }
}

const std::array kBorders = {BorderMode{BorderKind::replicate, 0},
                             BorderMode{BorderKind::reflect101, 0},
                             BorderMode{BorderKind::constant, 77}};

TEST_P(SimdLoops, NeighbourhoodFilters) {
  if (!vector_target()) GTEST_SKIP() << "no SIMD loops on " << GetParam();
  for (const BorderMode border : kBorders) {
    for (const double sigma : {1.5, 0.8, 5.0}) {
      const GaussianWeights weights = gaussian_weights(sigma);
      expect_same_loops(0, [&](const ConstImageView& s, const ImageView& d, Loops l) {
        kernels::gaussian5x5_separable_rows(s, d, kAll, weights, border, l);
      });
    }
    expect_same_loops(0, [&](const ConstImageView& s, const ImageView& d, Loops l) {
      kernels::sharpen_rows(s, d, kAll, border, l);
    });
    for (const SobelOutput output :
         {SobelOutput::magnitude, SobelOutput::l1, SobelOutput::dx, SobelOutput::dy}) {
      expect_same_loops(0,
                        [&](const ConstImageView& s, const ImageView& d, Loops l) {
                          kernels::sobel_rows(s, d, kAll, border, output, l);
                        },
                        {1});
    }
  }
}

TEST_P(SimdLoops, Morphology) {
  if (!vector_target()) GTEST_SKIP() << "no SIMD loops on " << GetParam();
  // Each pass kind once: plain passes (3x3), doubling rows and vHGW columns (15x15), the
  // vHGW row pass, two rectangles combined (cross), erosion's min and dilation's max.
  struct Case {
    SeSpec se;
    MorphOp op;
    kernels::MorphMethod method;
  };
  const std::array cases = {
      Case{{SeShape::rect, 3, 3}, MorphOp::erode, kernels::MorphMethod::fastest},
      Case{{SeShape::rect, 15, 15}, MorphOp::dilate, kernels::MorphMethod::fastest},
      Case{{SeShape::rect, 7, 5}, MorphOp::erode, kernels::MorphMethod::vhgw},
      Case{{SeShape::rect, 4, 2}, MorphOp::dilate, kernels::MorphMethod::separable},
      Case{{SeShape::cross, 5, 3}, MorphOp::erode, kernels::MorphMethod::fastest}};
  for (const Case& c : cases) {
    const StructuringElement se = make_structuring_element(c.se);
    expect_same_loops(0, [&](const ConstImageView& s, const ImageView& d, Loops l) {
      kernels::morphology_rows(s, d, kAll, se, c.op, c.method, l);
    });
  }
}

/// Gray and colour equalization on all 2^24 colours, against the spec's per-pixel formulas.
TEST_P(SimdLoops, EveryColour) {
  if (!vector_target()) GTEST_SKIP() << "no SIMD loops on " << GetParam();
  const Image src = test::every_colour_image();
  const int side = src.width();
  const RowRange all{0, side};
  Image gray = Image::uninitialized(side, side, 1);
  kernels::gray_rows(src.view(), gray.view(), all, Loops::simd);
  std::array<std::uint8_t, kHistogramBins> reversed{};
  for (int v = 0; v < kHistogramBins; ++v) reversed[static_cast<std::size_t>(v)] = 255 - v;
  Image equalized = Image::uninitialized(side, side, 3);
  kernels::equalize_color_rows(src.view(), equalized.view(), all, reversed, Loops::simd);
  for (int y = 0; y < side; ++y) {
    for (int x = 0; x < side; ++x) {
      const int r = src.at(x, y, 0), g = src.at(x, y, 1), b = src.at(x, y, 2);
      ASSERT_EQ(gray.at(x, y), gray_of(r, g, b)) << r << " " << g << " " << b;
      YCrCb ycc = rgb_to_ycrcb(r, g, b);
      ycc.y = reversed[ycc.y];
      std::uint8_t rgb[3];
      ycrcb_to_rgb(ycc, rgb);
      for (int c = 0; c < 3; ++c)
        ASSERT_EQ(equalized.at(x, y, c), rgb[c]) << r << " " << g << " " << b;
    }
  }
}

std::string target_name(const ::testing::TestParamInfo<std::string>& info) { return info.param; }

INSTANTIATE_TEST_SUITE_P(Targets, SimdLoops, ::testing::ValuesIn(simd::targets()), target_name);

TEST(SimdTargets, PinOnlyWhatTheCpuRuns) {
  EXPECT_FALSE(simd::pin_target("NO_SUCH_TARGET"));
  const std::string before = simd::active_target();
  if (std::getenv(simd::kTargetEnvironment) == nullptr) {
    EXPECT_EQ(before, simd::targets().front());  // the best, unless the environment pins one
  }
  EXPECT_TRUE(simd::pin_target(simd::targets().back()));
  EXPECT_EQ(simd::active_target(), simd::targets().back());
  EXPECT_TRUE(simd::pin_target(""));
  EXPECT_EQ(simd::active_target(), before);
}

#if PARFILTER_HAVE_HWY
// The kernels read the CPU's targets themselves rather than load libhwy.so (simd_targets.hpp
// says why); Highway's own detection, linked into this test alone, must find the same ones
// among those the kernels are compiled for.
TEST(SimdTargets, DetectedAsHighwayDetectsThem) {
  const std::vector<std::string> compiled = {"AVX3_DL", "AVX3", "AVX2", "SSE4", "SCALAR"};
  std::vector<std::string> highway;
  for (std::int64_t left = hwy::SupportedTargets(); left != 0; left &= left - 1) {
    const std::string name = hwy::TargetName(left & -left);
    if (std::find(compiled.begin(), compiled.end(), name) != compiled.end()) {
      highway.push_back(name);
    }
  }
  EXPECT_EQ(simd::targets(), highway);
}
#endif

}  // namespace
}  // namespace parfilter
