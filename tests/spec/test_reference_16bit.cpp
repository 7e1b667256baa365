// The reference at 16 bits (docs/FILTERS.md, "Depth"), against numbers worked out by hand:
// every formula with 255 replaced by T = 65535, the tables sized by L = 65536.
#include <gtest/gtest.h>

#include <initializer_list>

#include "parfilter/error.hpp"
#include "parfilter/image_io.hpp"
#include "reference.hpp"
#include "support/test_images.hpp"

namespace parfilter {
namespace {

using test::make_image_16;
using test::same_image;

constexpr int kTop = 65535;

OpOutput run(Op op, const Image& in, const OpParams& params = {}) {
  return reference::run(op, in, params);
}

TEST(Reference16, GrayUsesTheSameQ15Weights) {
  // (9798 * 65535 + 16384) >> 15 = 19596; 19235 -> 38469; 3735 -> 7470.
  const Image rgb = make_image_16(3, 1, 3, {kTop, 0, 0, 0, kTop, 0, 0, 0, kTop});
  EXPECT_TRUE(same_image(make_image_16(3, 1, 1, {19596, 38469, 7470}), run(Op::gray, rgb).image));
}

TEST(Reference16, GaussianImpulseShowsTheWeightsThemselves) {
  // (w * 65535 + 32768) >> 16 = w for every w = q_i q_j < 2^16: the impulse draws the kernel.
  Image in(5, 5, 1, Depth::u16);
  in.set_sample(2, 2, 0, kTop);
  OpParams params;
  params.border = {BorderKind::constant, 0};
  const Image expected = make_image_16(5, 5, 1, {961,  1860, 2294, 1860, 961,   //
                                                 1860, 3600, 4440, 3600, 1860,  //
                                                 2294, 4440, 5476, 4440, 2294,  //
                                                 1860, 3600, 4440, 3600, 1860,  //
                                                 961,  1860, 2294, 1860, 961});
  EXPECT_TRUE(same_image(expected, run(Op::gaussian, in, params).image));
}

TEST(Reference16, ConstantBorderTakesSixteenBitValues) {
  OpParams params;
  params.border = {BorderKind::constant, 40000};
  const Image flat = make_image_16(1, 1, 1, {40000});
  EXPECT_TRUE(same_image(flat, run(Op::gaussian, flat, params).image));
  // On an 8-bit image V must be at most 255.
  EXPECT_THROW((void)run(Op::gaussian, test::make_image(1, 1, 1, {0}), params), UsageError);
}

TEST(Reference16, SobelSaturatesAtTheTop) {
  // A step 0 | T: gx = 4T at the edge, far over T; a step 0 | 1000 gives |gx| = 4000.
  OpParams params;
  params.border = {BorderKind::replicate, 0};
  EXPECT_TRUE(same_image(make_image_16(2, 1, 1, {kTop, kTop}),
                         run(Op::sobel, make_image_16(2, 1, 1, {0, kTop}), params).image));
  params.sobel_output = SobelOutput::dx;
  EXPECT_TRUE(same_image(make_image_16(2, 1, 1, {4000, 4000}),
                         run(Op::sobel, make_image_16(2, 1, 1, {0, 1000}), params).image));
}

TEST(Reference16, SharpenClampsToZeroAndTop) {
  // Centre T among zeros: 5T -> T; centre 0 among T: -4T -> 0 (replicate border).
  const Image peak = make_image_16(3, 1, 1, {0, kTop, 0});
  EXPECT_TRUE(same_image(make_image_16(3, 1, 1, {0, kTop, 0}), run(Op::sharpen, peak).image));
  const Image pit = make_image_16(3, 1, 1, {kTop, 0, kTop});
  EXPECT_TRUE(same_image(make_image_16(3, 1, 1, {kTop, 0, kTop}), run(Op::sharpen, pit).image));
}

TEST(Reference16, HistogramHas65536Bins) {
  const OpOutput out = run(Op::histogram, make_image_16(4, 1, 1, {0, 300, 300, kTop}));
  ASSERT_TRUE(out.histogram.empty());
  ASSERT_EQ(out.wide_histogram.size(), 1U);
  ASSERT_EQ(out.wide_histogram[0].size(), 65536U);
  EXPECT_EQ(out.wide_histogram[0][0], 1U);
  EXPECT_EQ(out.wide_histogram[0][300], 2U);
  EXPECT_EQ(out.wide_histogram[0][kTop], 1U);
  OpParams per_channel;
  per_channel.per_channel = true;
  EXPECT_EQ(
      run(Op::histogram, make_image_16(1, 1, 3, {1, 2, 3}), per_channel).wide_histogram.size(), 3U);
}

TEST(Reference16, EqualizeUsesTheTopOfSixteenBits) {
  // {0, 1000, 1000, T}: D = 4 - 1 = 3; lut(1000) = floor((2 T 2 + 3) / 6) = 43690,
  // lut(T) = floor((2 T 3 + 3) / 6) = 65535, lut(0) = 0.
  EXPECT_TRUE(same_image(make_image_16(4, 1, 1, {0, 43690, 43690, kTop}),
                         run(Op::equalize, make_image_16(4, 1, 1, {0, 1000, 1000, kTop})).image));
}

TEST(Reference16, ColourEqualizeKeepsAFlatImage) {
  // One luma value: the table is the identity, and the YCrCb round trip of OpenCV's 16-bit
  // conversion (chroma offset 32768) returns gray pixels unchanged.
  const Image gray_rgb = make_image_16(2, 1, 3, {30000, 30000, 30000, 30000, 30000, 30000});
  EXPECT_TRUE(same_image(gray_rgb, run(Op::equalize, gray_rgb).image));
}

TEST(Reference16, OtsuAndSegmentGiveZeroAndTop) {
  // Two values: every t in [100, 59999] splits them alike, Otsu takes the smallest.
  const Image two = make_image_16(2, 1, 1, {100, 60000});
  const OpOutput otsu = run(Op::otsu, two);
  EXPECT_EQ(otsu.threshold, 100);
  EXPECT_TRUE(same_image(make_image_16(2, 1, 1, {0, kTop}), otsu.image));
  // isodata: t0 = 60100 / 2 = 30050, and the class means give it again.
  const OpOutput segment = run(Op::segment, two);
  EXPECT_EQ(segment.threshold, 30050);
  EXPECT_TRUE(same_image(make_image_16(2, 1, 1, {0, kTop}), segment.image));
  // One value v gives t = v: everything is background.
  EXPECT_EQ(run(Op::otsu, make_image_16(2, 1, 1, {777, 777})).threshold, 777);
}

TEST(Reference16, AdaptiveMinContrastDefaultsTo3855AtSixteenBits) {
  // {1000, 1600, 1500}: global isodata 1275. Each 3-window's contrast is 600 at most, under
  // 3855, so by default every pixel takes 1275: {0, T, T}. Given 15, the last window
  // {1600, 1500} has its own threshold 1550, and 1500 is background.
  const Image in = make_image_16(3, 1, 1, {1000, 1600, 1500});
  OpParams params;
  params.adaptive = true;
  params.window = 3;
  EXPECT_TRUE(
      same_image(make_image_16(3, 1, 1, {0, kTop, kTop}), run(Op::segment, in, params).image));
  params.min_contrast = 15;
  params.min_contrast_given = true;
  EXPECT_TRUE(same_image(make_image_16(3, 1, 1, {0, kTop, 0}), run(Op::segment, in, params).image));
}

TEST(Reference16, MorphologyAndPoolCommuteWithScalingBy257) {
  // Minima and maxima do not care how the levels are spelled: op(257 x) = 257 op(x).
  const Image eight = test::synthetic_image(23, 17, 4, 9);
  const Image sixteen = convert_depth(eight, Depth::u16);
  for (const Op op : {Op::erode, Op::dilate, Op::open, Op::close, Op::pool}) {
    OpParams params;
    params.se = {SeShape::ellipse, 5, 3};
    EXPECT_TRUE(same_image(convert_depth(run(op, eight, params).image, Depth::u16),
                           run(op, sixteen, params).image))
        << op_name(op);
  }
}

TEST(Reference16, EveryOpKeepsTheDepth) {
  const Image in = test::synthetic_image_16(9, 7, 3, 2, 12);
  for (const Op op : kAllOps) {
    if (op_info(op).traits.histogram_result) continue;
    EXPECT_EQ(run(op, in).image.depth(), Depth::u16) << op_name(op);
  }
}

}  // namespace
}  // namespace parfilter
