// The reference implementation's histogram ops (histogram, equalize, otsu, segment) on tiny
// images, against numbers worked out by hand from docs/FILTERS.md, and what every op shares:
// any tiny shape and channel count, validated parameters. Read together with the spec: each
// test states the rule it checks. The image filters are in test_reference_filters.cpp.
#include <gtest/gtest.h>

#include <initializer_list>
#include <string>

#include "parfilter/error.hpp"
#include "reference.hpp"
#include "support/test_images.hpp"

namespace parfilter {
namespace {

using test::make_image;
using test::same_image;

Image run_image(Op op, const Image& in, const OpParams& params = {}) {
  return reference::run(op, in, params).image;
}

// ---- histogram -------------------------------------------------------------------------------
TEST(ReferenceHistogram, GrayCountsByDefault) {
  // Red, red, white: gray 76, 76, 255.
  const Image in = make_image(3, 1, 3, {255, 0, 0, 255, 0, 0, 255, 255, 255});
  const auto out = reference::run(Op::histogram, in, {});
  ASSERT_EQ(out.histogram.size(), 1U);
  EXPECT_EQ(out.histogram[0][76], 2U);
  EXPECT_EQ(out.histogram[0][255], 1U);
  EXPECT_TRUE(out.image.empty());
}

TEST(ReferenceHistogram, PerChannelIncludesAlpha) {
  const Image in = make_image(2, 1, 4, {1, 2, 3, 4, 1, 5, 6, 4});
  OpParams p;
  p.per_channel = true;
  const auto out = reference::run(Op::histogram, in, p);
  ASSERT_EQ(out.histogram.size(), 4U);
  EXPECT_EQ(out.histogram[0][1], 2U);
  EXPECT_EQ(out.histogram[1][2], 1U);
  EXPECT_EQ(out.histogram[1][5], 1U);
  EXPECT_EQ(out.histogram[2][3], 1U);
  EXPECT_EQ(out.histogram[2][6], 1U);
  EXPECT_EQ(out.histogram[3][4], 2U);
  // A gray input has one channel, so one histogram.
  EXPECT_EQ(reference::run(Op::histogram, make_image(1, 1, 1, {9}), p).histogram.size(), 1U);
}

// ---- equalize --------------------------------------------------------------------------------
TEST(ReferenceEqualize, GrayThroughTheLut) {
  // Values 2 5 5 9: D = 3, lut 2 -> 0, 5 -> 170, 9 -> 255.
  EXPECT_TRUE(same_image(make_image(2, 2, 1, {0, 170, 170, 255}),
                         run_image(Op::equalize, make_image(2, 2, 1, {2, 5, 5, 9}))));
}

TEST(ReferenceEqualize, SingleValueIsUnchanged) {
  const Image flat = make_image(2, 1, 1, {7, 7});  // D = 0
  EXPECT_TRUE(same_image(flat, run_image(Op::equalize, flat)));
}

TEST(ReferenceEqualize, ColourEqualizesTheYOfYCrCbAndCopiesAlpha) {
  // Red has Y 76, Cr 255, Cb 85; black Y 0, Cr = Cb = 128. Y histogram {0, 76}: D = 1,
  // lut 76 -> 255. Red becomes (Y 255, Cr 255, Cb 85):
  //   R = 255 + ((127 * 22987 + 8192) >> 14) -> 255 (saturated),
  //   G = 255 + ((-43 * -5636 + 127 * -11698 + 8192) >> 14) = 255 - 76 = 179,
  //   B = 255 + ((-43 * 29049 + 8192) >> 14) = 255 - 76 = 179.
  const Image in = make_image(2, 1, 4, {255, 0, 0, 9, 0, 0, 0, 200});
  EXPECT_TRUE(same_image(make_image(2, 1, 4, {255, 179, 179, 9, 0, 0, 0, 200}),
                         run_image(Op::equalize, in)));
}

// ---- otsu ------------------------------------------------------------------------------------
TEST(ReferenceOtsu, TwoPeaks) {
  const auto out = reference::run(Op::otsu, make_image(4, 1, 1, {10, 200, 10, 200}), {});
  EXPECT_EQ(out.threshold, 10);  // the smallest of the tied 10..199
  EXPECT_TRUE(same_image(make_image(4, 1, 1, {0, 255, 0, 255}), out.image));
}

TEST(ReferenceOtsu, SingleValueIsAllBackground) {
  const auto out = reference::run(Op::otsu, make_image(2, 1, 3, {9, 9, 9, 9, 9, 9}), {});
  EXPECT_EQ(out.threshold, 9);
  EXPECT_TRUE(same_image(Image(2, 1, 1), out.image));
}

// ---- segment ---------------------------------------------------------------------------------
TEST(ReferenceSegment, GlobalIsodata) {
  // Values 10 10 20 20 200: t = 52 -> 107 (see test_filter_math_histogram).
  const auto out = reference::run(Op::segment, make_image(5, 1, 1, {10, 10, 20, 20, 200}), {});
  EXPECT_EQ(out.threshold, 107);
  EXPECT_TRUE(same_image(make_image(5, 1, 1, {0, 0, 0, 0, 255}), out.image));
}

TEST(ReferenceSegment, AdaptiveUsesTheGlobalThresholdOnFlatWindows) {
  // 10 10 10 10 100 90, window 3. Global: S = 230, N = 6, t = 38 -> floor(840 / 16) = 52.
  // x = 0..2: window max - min = 0 -> global 52 -> 0.
  // x = 3: {10 10 100}: t = 40 -> floor(220 / 4) = 55; 10 -> 0.
  // x = 4: {10 100 90}: t = 66 -> floor(210 / 4) = 52; 100 -> 255.
  // x = 5: {100 90}: contrast 10. With min-contrast 15: global 52, 90 -> 255.
  //        With min-contrast 10: local t = 95 -> 95, 90 -> 0.
  const Image in = make_image(6, 1, 1, {10, 10, 10, 10, 100, 90});
  OpParams p;
  p.adaptive = true;
  p.window = 3;
  p.min_contrast = 15;
  const auto out = reference::run(Op::segment, in, p);
  EXPECT_EQ(out.threshold, 52);
  EXPECT_TRUE(same_image(make_image(6, 1, 1, {0, 0, 0, 0, 255, 255}), out.image));
  p.min_contrast = 10;
  EXPECT_TRUE(same_image(make_image(6, 1, 1, {0, 0, 0, 0, 255, 0}), run_image(Op::segment, in, p)));
}

TEST(ReferenceSegment, WindowLargerThanTheImageIsTheGlobalThreshold) {
  const Image in = make_image(6, 1, 1, {10, 10, 10, 10, 100, 90});
  OpParams p;
  p.adaptive = true;
  p.window = 31;  // clipped to the whole image everywhere: isodata of it is 52
  EXPECT_TRUE(
      same_image(make_image(6, 1, 1, {0, 0, 0, 0, 255, 255}), run_image(Op::segment, in, p)));
}

// ---- every op on every degenerate shape --------------------------------------------------------
TEST(ReferenceShapes, EveryOpOnTinyShapesAndEveryChannelCount) {
  struct Shape {
    int w, h;
  };
  for (const Shape s : {Shape{1, 1}, Shape{1, 5}, Shape{5, 1}, Shape{2, 3}, Shape{4, 4}}) {
    for (int channels : {1, 3, 4}) {
      const Image in = test::noise_image(s.w, s.h, channels, 17);
      for (const Op op : kAllOps) {
        OpParams p;
        p.se = {SeShape::ellipse, 7, 5};  // larger than the image
        p.adaptive = true;
        p.window = 5;
        const auto out = reference::run(op, in, p);
        if (op == Op::histogram) {
          EXPECT_EQ(out.histogram.size(), 1U);
          continue;
        }
        const bool one_channel =
            op == Op::gray || op == Op::sobel || op == Op::otsu || op == Op::segment;
        const int w = op == Op::pool ? (s.w + 1) / 2 : s.w;
        const int h = op == Op::pool ? (s.h + 1) / 2 : s.h;
        EXPECT_EQ(out.image.width(), w) << op_name(op);
        EXPECT_EQ(out.image.height(), h) << op_name(op);
        EXPECT_EQ(out.image.channels(), one_channel ? 1 : channels) << op_name(op);
      }
    }
  }
}

TEST(ReferenceParams, AreValidated) {
  OpParams p;
  p.sigma = 0.0;
  EXPECT_THROW((void)reference::run(Op::gaussian, make_image(1, 1, 1, {0}), p), UsageError);
  OpParams q;
  q.iterations = 0;
  EXPECT_THROW((void)reference::run(Op::erode, make_image(1, 1, 1, {0}), q), UsageError);
}

}  // namespace
}  // namespace parfilter
