// The reference implementation's image filters (gray, gaussian, sobel, sharpen, erode / dilate /
// open / close, pool) on tiny images, against numbers worked out by hand from docs/FILTERS.md.
// Read together with the spec: each test states the rule it checks. The histogram ops and the
// rules every op shares are in test_reference_histogram.cpp.
#include <gtest/gtest.h>

#include <cstddef>
#include <initializer_list>

#include "reference.hpp"
#include "support/test_images.hpp"

namespace parfilter {
namespace {

using test::make_image;
using test::same_image;

OpParams with_border(BorderMode border) {
  OpParams p;
  p.border = border;
  return p;
}

constexpr BorderMode kReplicate{BorderKind::replicate, 0};
constexpr BorderMode kReflect101{BorderKind::reflect101, 0};
constexpr BorderMode kZero{BorderKind::constant, 0};

Image run_image(Op op, const Image& in, const OpParams& params = {}) {
  return reference::run(op, in, params).image;
}

// ---- gray ------------------------------------------------------------------------------------
TEST(ReferenceGray, LumaOfRgbAndRgbaIgnoringAlpha) {
  // (9798 * 255 + 16384) >> 15 = 76; (19235 * 255 + 16384) >> 15 = 150; 3735 * 255 -> 29.
  const Image rgb = make_image(3, 1, 3, {255, 0, 0, 0, 255, 0, 0, 0, 255});
  EXPECT_TRUE(same_image(make_image(3, 1, 1, {76, 150, 29}), run_image(Op::gray, rgb)));
  const Image rgba = make_image(2, 1, 4, {255, 0, 0, 7, 0, 0, 255, 200});
  EXPECT_TRUE(same_image(make_image(2, 1, 1, {76, 29}), run_image(Op::gray, rgba)));
}

TEST(ReferenceGray, GrayInputIsCopied) {
  const Image g = make_image(2, 2, 1, {1, 2, 3, 4});
  EXPECT_TRUE(same_image(g, run_image(Op::gray, g)));
}

// ---- gaussian --------------------------------------------------------------------------------
TEST(ReferenceGaussian, ImpulseWithZeroBorderShowsTheWeights) {
  // 255 at the centre of a 5x5 zero image: out = (w * 255 + 32768) >> 16 with w = q_i q_j,
  // q = 31 60 74 60 31. Centre: 5476 * 255 = 1396380 -> 21; corner: 961 * 255 -> 4;
  // 31 * 60 -> 7; 31 * 74 -> 9; 60 * 60 -> 14 (950768 >> 16); 60 * 74 -> 17.
  Image in(5, 5, 1);
  in.at(2, 2) = 255;
  const Image expected = make_image(5, 5, 1, {4, 7,  9,  7,  4,  //
                                              7, 14, 17, 14, 7,  //
                                              9, 17, 21, 17, 9,  //
                                              7, 14, 17, 14, 7,  //
                                              4, 7,  9,  7,  4});
  EXPECT_TRUE(same_image(expected, run_image(Op::gaussian, in, with_border(kZero))));
}

TEST(ReferenceGaussian, OnePixelUnderEachBorder) {
  // Replicate and reflect101 see the pixel everywhere: 65536 v / 65536 = v.
  const Image one = make_image(1, 1, 1, {100});
  EXPECT_TRUE(same_image(one, run_image(Op::gaussian, one, with_border(kReplicate))));
  EXPECT_TRUE(same_image(one, run_image(Op::gaussian, one, with_border(kReflect101))));
  // Zero border: only the centre tap, (5476 * 100 + 32768) >> 16 = 580368 >> 16 = 8.
  EXPECT_TRUE(
      same_image(make_image(1, 1, 1, {8}), run_image(Op::gaussian, one, with_border(kZero))));
  // constant:255 around a 0: (60060 * 255 + 32768) >> 16 = 15348068 >> 16 = 234.
  const Image black = make_image(1, 1, 1, {0});
  EXPECT_TRUE(same_image(make_image(1, 1, 1, {234}),
                         run_image(Op::gaussian, black, with_border({BorderKind::constant, 255}))));
}

TEST(ReferenceGaussian, WidthTwoUnderReplicateAndReflect101) {
  // A 2x1 image [0 255]; every row tap sees the same row, so out = (256 * h * 255 + 32768) >> 16
  // with h the sum of the q that land on the 255.
  const Image in = make_image(2, 1, 1, {0, 255});
  // replicate, x = 0: taps 0 0 0 255 255 -> h = 60 + 31 = 91 -> 91; x = 1: taps 0 0 255 255 255
  // -> h = 165 -> (165 * 65280 + 32768) >> 16 = 164.
  EXPECT_TRUE(same_image(make_image(2, 1, 1, {91, 164}),
                         run_image(Op::gaussian, in, with_border(kReplicate))));
  // reflect101 on width 2 alternates: x = 0 sees 0 255 0 255 0 -> h = 120 -> 120;
  // x = 1 sees 255 0 255 0 255 -> h = 136 -> (136 * 65280 + 32768) >> 16 = 135.
  EXPECT_TRUE(same_image(make_image(2, 1, 1, {120, 135}),
                         run_image(Op::gaussian, in, with_border(kReflect101))));
}

TEST(ReferenceGaussian, AlphaIsCopiedAndColoursFilteredPerChannel) {
  const Image in = make_image(1, 1, 4, {100, 0, 255, 77});
  // Zero border: each colour gets only the centre tap: 100 -> 8, 0 -> 0, 255 -> 21.
  EXPECT_TRUE(same_image(make_image(1, 1, 4, {8, 0, 21, 77}),
                         run_image(Op::gaussian, in, with_border(kZero))));
}

TEST(ReferenceGaussian, FlatImageIsUnchanged) {
  Image in(7, 3, 3);
  for (std::size_t i = 0; i < in.size_bytes(); ++i) in.data()[i] = 123;
  EXPECT_TRUE(same_image(in, run_image(Op::gaussian, in, with_border(kReplicate))));
}

// ---- sobel -----------------------------------------------------------------------------------
// A vertical edge:  0 0 9
//                   0 0 9
//                   0 0 9
Image vertical_edge() { return make_image(3, 3, 1, {0, 0, 9, 0, 0, 9, 0, 0, 9}); }

Image sobel_of(const Image& in, BorderMode border, SobelOutput output) {
  OpParams p = with_border(border);
  p.sobel_output = output;
  return run_image(Op::sobel, in, p);
}

TEST(ReferenceSobel, ReplicateSeesTheEdgeTwiceAtTheRightColumn) {
  // Column 1: gx = (9 + 18 + 9) - 0 = 36. Column 2: its right neighbour replicates 9, its
  // left is 0: also 36. Column 0: 0. gy = 0 everywhere.
  const Image expected = make_image(3, 3, 1, {0, 36, 36, 0, 36, 36, 0, 36, 36});
  EXPECT_TRUE(same_image(expected, sobel_of(vertical_edge(), kReplicate, SobelOutput::magnitude)));
  EXPECT_TRUE(same_image(Image(3, 3, 1), sobel_of(vertical_edge(), kReplicate, SobelOutput::dy)));
}

TEST(ReferenceSobel, Reflect101MirrorsTheEdgeAway) {
  // Column 2 reflects x = 3 to x = 1 (value 0): gx = 0 - 0 = 0.
  const Image expected = make_image(3, 3, 1, {0, 36, 0, 0, 36, 0, 0, 36, 0});
  EXPECT_TRUE(same_image(expected, sobel_of(vertical_edge(), kReflect101, SobelOutput::l1)));
}

TEST(ReferenceSobel, ZeroBorderEachOutputMode) {
  // Pixel (1, 0) with a zero border: gx = (0 + 2*9 + 9) - 0 = 27, gy = (0 + 0 + 9) - 0 = 9.
  // magnitude = round(sqrt(729 + 81)) = round(28.46) = 28; l1 = 36; dx = 27; dy = 9.
  // Pixel (2, 1): gx = 0 - 0 = 0 (right is the border, left is 0), gy = 18 - 18 = 0.
  // Pixel (2, 0): gx = 0, gy = (0 + 18 + 0) - 0 = 18.
  const Image in = vertical_edge();
  EXPECT_EQ(sobel_of(in, kZero, SobelOutput::magnitude).at(1, 0), 28);
  EXPECT_EQ(sobel_of(in, kZero, SobelOutput::l1).at(1, 0), 36);
  EXPECT_EQ(sobel_of(in, kZero, SobelOutput::dx).at(1, 0), 27);
  EXPECT_EQ(sobel_of(in, kZero, SobelOutput::dy).at(1, 0), 9);
  EXPECT_EQ(sobel_of(in, kZero, SobelOutput::magnitude).at(2, 1), 0);
  EXPECT_EQ(sobel_of(in, kZero, SobelOutput::magnitude).at(2, 0), 18);
}

TEST(ReferenceSobel, SaturatesAndWorksOnTheGrayOfColour) {
  // A 2x1 RGB image: white | black. Gray 255 | 0, zero border.
  // x = 0: its right neighbour (0) and its left (border 0) give gx = 0; gy = 0 (one row,
  //        zero above and below).
  // x = 1: gx = 0 - (0 + 2 * 255 + 0) = -510 -> dx = 255 (saturated).
  const Image in = make_image(2, 1, 3, {255, 255, 255, 0, 0, 0});
  EXPECT_TRUE(same_image(make_image(2, 1, 1, {0, 255}), sobel_of(in, kZero, SobelOutput::dx)));
}

TEST(ReferenceSobel, OnePixelIsFlat) {
  const Image one = make_image(1, 1, 1, {200});
  for (auto border : {kReplicate, kReflect101, kZero, BorderMode{BorderKind::constant, 9}}) {
    EXPECT_EQ(sobel_of(one, border, SobelOutput::l1).at(0, 0), 0);  // symmetric neighbours
  }
}

// ---- sharpen ---------------------------------------------------------------------------------
TEST(ReferenceSharpen, TwoBesideZeroWithZeroBorder) {
  //   2 2 0      (1, 0): 5*2 - up 0 (border) - down 2 - left 2 - right 0 = 6.
  //   2 2 0      (0, 0): 10 - 0 - 2 - 0 - 2 = 6; (2, y): 0 - 2 - ... < 0 -> 0.
  const Image in = make_image(3, 2, 1, {2, 2, 0, 2, 2, 0});
  EXPECT_TRUE(same_image(make_image(3, 2, 1, {6, 6, 0, 6, 6, 0}),
                         run_image(Op::sharpen, in, with_border(kZero))));
  // Replicate: (0, 0): 10 - 2 - 2 - 2 - 2 = 2; (1, 0): 10 - 2 - 2 - 2 - 0 = 4.
  EXPECT_TRUE(same_image(make_image(3, 2, 1, {2, 4, 0, 2, 4, 0}),
                         run_image(Op::sharpen, in, with_border(kReplicate))));
}

TEST(ReferenceSharpen, SaturatesAndUsesTheConstant) {
  // 5 * 200 = 1000 -> 255.
  EXPECT_EQ(run_image(Op::sharpen, make_image(3, 1, 1, {0, 200, 0}), with_border(kZero)).at(1, 0),
            255);
  // 1x1: replicate gives 5v - 4v = v; constant:3 around 10 gives 50 - 12 = 38.
  const Image one = make_image(1, 1, 1, {10});
  EXPECT_EQ(run_image(Op::sharpen, one, with_border(kReplicate)).at(0, 0), 10);
  EXPECT_EQ(run_image(Op::sharpen, one, with_border(kReflect101)).at(0, 0), 10);
  EXPECT_EQ(run_image(Op::sharpen, one, with_border({BorderKind::constant, 3})).at(0, 0), 38);
}

TEST(ReferenceSharpen, AlphaIsCopied) {
  const Image in = make_image(1, 1, 4, {10, 20, 30, 40});
  // Zero border: 5v per colour: 50, 100, 150; alpha 40 kept.
  EXPECT_TRUE(same_image(make_image(1, 1, 4, {50, 100, 150, 40}),
                         run_image(Op::sharpen, in, with_border(kZero))));
}

// ---- morphology ------------------------------------------------------------------------------
OpParams morph_params(SeSpec se, int iterations = 1) {
  OpParams p;
  p.se = se;
  p.iterations = iterations;
  return p;
}

// 10 20 30
// 40 50 60
// 70 80 90
Image ramp3x3() { return make_image(3, 3, 1, {10, 20, 30, 40, 50, 60, 70, 80, 90}); }

TEST(ReferenceMorphology, ErodeRectIgnoresPixelsOutside) {
  // (2, 0): min{20 30 50 60} = 20; (0, 2): min{40 50 70 80} = 40; (2, 2): min{50 60 80 90}.
  // A zero border would have made every edge pixel 0.
  EXPECT_TRUE(same_image(make_image(3, 3, 1, {10, 10, 20, 10, 10, 20, 40, 40, 50}),
                         run_image(Op::erode, ramp3x3(), morph_params({SeShape::rect, 3, 3}))));
}

TEST(ReferenceMorphology, DilateRect) {
  // (0, 0): max{10 20 40 50} = 50; (1, 0): max{.. 60} = 60; (0, 1): 80; the rest 90 or 80.
  EXPECT_TRUE(same_image(make_image(3, 3, 1, {50, 60, 60, 80, 90, 90, 80, 90, 90}),
                         run_image(Op::dilate, ramp3x3(), morph_params({SeShape::rect, 3, 3}))));
}

TEST(ReferenceMorphology, ErodeCross) {
  // The cross reaches only the 4-neighbours: (0, 0): min{10 20 40} = 10; (2, 0): min{30 20 60}
  // = 20; (1, 1): min{50 20 40 60 80} = 20; (2, 2): min{90 60 80} = 60.
  EXPECT_TRUE(same_image(make_image(3, 3, 1, {10, 10, 20, 10, 20, 30, 40, 50, 60}),
                         run_image(Op::erode, ramp3x3(), morph_params({SeShape::cross, 3, 3}))));
}

Image impulse(int w, int h, int x, int y) {
  Image img(w, h, 1);
  img.at(x, y) = 255;
  return img;
}

TEST(ReferenceMorphology, DilatingAnImpulseDrawsTheElement) {
  // The 5x5 ellipse: 00100 / 11111 / 11111 / 11111 / 00100.
  const Image expected = make_image(5, 5, 1, {0,   0,   255, 0,   0,    //
                                              255, 255, 255, 255, 255,  //
                                              255, 255, 255, 255, 255,  //
                                              255, 255, 255, 255, 255,  //
                                              0,   0,   255, 0,   0});
  EXPECT_TRUE(same_image(expected, run_image(Op::dilate, impulse(5, 5, 2, 2),
                                             morph_params({SeShape::ellipse, 5, 5}))));
}

TEST(ReferenceMorphology, EvenElementUsesItsAnchorWithoutReflection) {
  // rect 2x1 has anchor (1, 0): out(x) = op(in(x - 1), in(x)).
  const OpParams p = morph_params({SeShape::rect, 2, 1});
  EXPECT_TRUE(same_image(make_image(5, 1, 1, {0, 0, 255, 255, 0}),
                         run_image(Op::dilate, impulse(5, 1, 2, 0), p)));
  // Erode: x = 0 sees only in(0) (in(-1) is ignored).
  EXPECT_TRUE(same_image(make_image(5, 1, 1, {255, 255, 0, 0, 255}),
                         run_image(Op::erode, make_image(5, 1, 1, {255, 255, 0, 255, 255}), p)));
}

TEST(ReferenceMorphology, IterationsRepeat) {
  // Two 3x3 dilations of an impulse: a 5x5 block in a 7x7 image.
  Image expected(7, 7, 1);
  for (int y = 1; y <= 5; ++y) {
    for (int x = 1; x <= 5; ++x) expected.at(x, y) = 255;
  }
  EXPECT_TRUE(same_image(expected, run_image(Op::dilate, impulse(7, 7, 3, 3),
                                             morph_params({SeShape::rect, 3, 3}, 2))));
}

TEST(ReferenceMorphology, OpenAndClose) {
  // A 3x3 bright block in 7x7: open with 3x3 keeps it (erode -> 1 pixel, dilate -> block);
  // with 2 iterations the erosions remove it entirely.
  Image block(7, 7, 1);
  for (int y = 2; y <= 4; ++y) {
    for (int x = 2; x <= 4; ++x) block.at(x, y) = 255;
  }
  const SeSpec rect3{SeShape::rect, 3, 3};
  EXPECT_TRUE(same_image(block, run_image(Op::open, block, morph_params(rect3))));
  EXPECT_TRUE(same_image(Image(7, 7, 1), run_image(Op::open, block, morph_params(rect3, 2))));
  // Close fills a single dark pixel in a bright field, and the edges stay bright because
  // outside pixels are ignored.
  Image field(4, 3, 1);
  for (std::size_t i = 0; i < field.size_bytes(); ++i) field.data()[i] = 255;
  Image hole = field;
  hole.at(0, 0) = 0;
  EXPECT_TRUE(same_image(field, run_image(Op::close, hole, morph_params(rect3))));
}

TEST(ReferenceMorphology, AlphaIsCopied) {
  const Image in = make_image(2, 1, 4, {10, 20, 30, 1, 40, 50, 60, 2});
  EXPECT_TRUE(same_image(make_image(2, 1, 4, {10, 20, 30, 1, 10, 20, 30, 2}),
                         run_image(Op::erode, in, morph_params({SeShape::rect, 3, 3}))));
}

// ---- pool ------------------------------------------------------------------------------------
TEST(ReferencePool, OddSizesKeepPartialWindows) {
  // 1 2 3
  // 4 5 6   -> 5 6
  // 7 8 9      8 9
  EXPECT_TRUE(same_image(make_image(2, 2, 1, {5, 6, 8, 9}),
                         run_image(Op::pool, make_image(3, 3, 1, {1, 2, 3, 4, 5, 6, 7, 8, 9}))));
  EXPECT_TRUE(same_image(make_image(3, 1, 1, {3, 4, 5}),
                         run_image(Op::pool, make_image(5, 1, 1, {3, 1, 4, 1, 5}))));
  EXPECT_TRUE(
      same_image(make_image(1, 1, 1, {42}), run_image(Op::pool, make_image(1, 1, 1, {42}))));
}

TEST(ReferencePool, PoolsAlphaToo) {
  const Image in = make_image(2, 1, 4, {1, 9, 3, 100, 5, 2, 3, 200});
  EXPECT_TRUE(same_image(make_image(1, 1, 4, {5, 9, 3, 200}), run_image(Op::pool, in)));
}

TEST(ReferenceChain, EachStepTakesThePreviousStepsImage) {
  const Image in = test::synthetic_image(9, 7, 3, 5);
  const OpChain chain = {{Op::gray, {}}, {Op::gaussian, {}}, {Op::otsu, {}}};
  const OpOutput expected =
      reference::run(Op::otsu, run_image(Op::gaussian, run_image(Op::gray, in)), {});
  const OpOutput chained = reference::run_chain(chain, in);
  EXPECT_EQ(chained.threshold, expected.threshold);
  EXPECT_TRUE(same_image(expected.image, chained.image));
}

}  // namespace

}  // namespace parfilter
