// The OpenCL kernels on a real device (PoCL in CI; skipped with the reason where there is
// none) against the reference: shapes of several tiles and runs, every remainder of the quad
// and vector kernels, the rows kernel's reach, the RGBA pixel-word kernels over several
// strips, sobel's magnitude on noise, adaptive segment's counts and the other kind of
// device's schedules.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "cl_device.hpp"
#include "cl_runtime.hpp"
#include "opencl_backend_test.hpp"
#include "reference.hpp"
#include "support/test_images.hpp"

namespace parfilter::opencl {
namespace {

/// Shapes that span several tiles and runs, with odd tails, for every variant that tiles.
TEST_F(OpenClBackendTest, MultiTileShapesMatchTheReference) {
  struct Case {
    Op op;
    OpParams params;
  };
  const auto with = [](auto set) {
    OpParams p;
    set(p);
    return p;
  };
  const std::vector<Case> cases = {
      {Op::sharpen, with([](OpParams& p) {
         p.border = {BorderKind::reflect101, 0};
       })},
      {Op::gaussian, with([](OpParams& p) {
         p.border = {BorderKind::constant, 9};
       })},
      {Op::sobel, with([](OpParams& p) { p.sobel_output = SobelOutput::l1; })},
      {Op::erode, with([](OpParams& p) {
         p.se = {SeShape::ellipse, 21, 9};
       })},
      {Op::close, with([](OpParams& p) {
         p.se = {SeShape::rect, 31, 5};
         p.iterations = 2;
       })},
      {Op::dilate, with([](OpParams& p) {
         p.se = {SeShape::cross, 7, 40};
       })},
      {Op::segment, with([](OpParams& p) {
         p.adaptive = true;
         p.window = 129;  // a run longer than the minimum span
         p.min_contrast = 0;
       })},
      {Op::segment, with([](OpParams& p) {
         p.adaptive = true;
         p.window = 9;
       })}};
  for (const int channels : {1, 3, 4}) {
    const Image image =
        test::synthetic_image(131, 67, channels, static_cast<std::uint32_t>(channels));
    for (const Case& c : cases) {
      const OpOutput expected = reference::run(c.op, image, c.params);
      for (const std::string& variant : backend_->variants(c.op)) {
        OpParams params = c.params;
        params.variant = variant;
        const OpOutput actual = backend_->run(c.op, image.view(), params);
        EXPECT_TRUE(test::same_image(expected.image, actual.image))
            << op_name(c.op) << " " << variant << " c" << channels;
      }
    }
  }
}

/// The point kernels' quads and pool's pairs, with and without a partial last quad: widths
/// that are a multiple of 4 (pool's aligned pairs) and widths that are not, odd heights (pool's
/// partial last row), 1 and 2 rows, and pixel counts that leave 1 to 3 pixels after the last
/// whole quad; the vector stencils (every variant of sharpen, sobel and gaussian) at the same
/// remainders of their 16-sample vectors and strips.
TEST_F(OpenClBackendTest, QuadAndVectorKernelsMatchTheReferenceAtEveryRemainder) {
  const std::vector<std::pair<int, int>> shapes = {{4, 1},  {8, 3},   {12, 7}, {5, 4},
                                                   {6, 5},  {9, 9},   {3, 1},  {16, 1},
                                                   {16, 2}, {32, 37}, {48, 5}, {20, 33}};
  for (const int channels : {1, 3, 4}) {
    for (const auto& [width, height] : shapes) {
      const Image image = test::synthetic_image(width, height, channels,
                                                static_cast<std::uint32_t>(width * height));
      for (const Op op : {Op::pool, Op::gray, Op::equalize, Op::otsu, Op::segment, Op::sharpen,
                          Op::sobel, Op::gaussian}) {
        const OpOutput expected = reference::run(op, image, OpParams{});
        for (const std::string& variant : backend_->variants(op)) {
          OpParams params;
          params.variant = variant;
          const OpOutput actual = backend_->run(op, image.view(), params);
          EXPECT_TRUE(test::same_image(expected.image, actual.image))
              << op_name(op) << " " << variant << " " << width << "x" << height << " c" << channels;
        }
      }
    }
  }
}

/// The rows variant's small rects: up to its reach of 8 samples either side (a 5-wide rect on
/// RGBA, 17-wide on gray), its tallest ring (15 rows), even sizes (the anchor right of the
/// middle), taller than the image, and the rects it hands to the default (too wide, too tall).
TEST_F(OpenClBackendTest, RectRowsMatchTheReferenceWithinAndBeyondTheirReach) {
  const std::vector<SeSpec> elements = {
      {SeShape::rect, 3, 3},  {SeShape::rect, 5, 3},  {SeShape::rect, 4, 2},
      {SeShape::rect, 17, 1}, {SeShape::rect, 1, 15}, {SeShape::rect, 3, 40},
      {SeShape::rect, 1, 16}, {SeShape::rect, 9, 3},  {SeShape::ellipse, 3, 3}};
  for (const int channels : {1, 3, 4}) {
    for (const auto& [width, height] : {std::pair{48, 37}, std::pair{32, 5}, std::pair{64, 1}}) {
      const Image image = test::synthetic_image(width, height, channels,
                                                static_cast<std::uint32_t>(width + channels));
      for (const Op op : {Op::erode, Op::dilate}) {
        for (const SeSpec& se : elements) {
          OpParams params;
          params.se = se;
          const OpOutput expected = reference::run(op, image, params);
          params.variant = "rows";
          const OpOutput actual = backend_->run(op, image.view(), params);
          EXPECT_TRUE(test::same_image(expected.image, actual.image))
              << op_name(op) << " rect " << se.width << "x" << se.height << " " << width << "x"
              << height << " c" << channels;
        }
      }
    }
  }
}

/// The RGBA pixel-word kernels (gaussian, sharpen and sobel "tile" and "quads", morphology
/// "quads", "spans" and "tile") over several strips of rows and work-groups:
/// rows that go by 16-byte copies (a width that is a multiple of 4), rows that do not, a single
/// column, and images smaller than every element.
TEST_F(OpenClBackendTest, RgbaWordKernelsMatchTheReferenceOverSeveralStrips) {
  struct Case {
    Op op;
    std::string variant;
    OpParams params;
  };
  const auto with = [](auto set) {
    OpParams p;
    set(p);
    return p;
  };
  const auto se = [](SeShape shape, int w, int h) {
    OpParams p;
    p.se = {shape, w, h};
    return p;
  };
  const std::vector<Case> cases = {
      {Op::gaussian, "tile", with([](OpParams& p) {
         p.border = {BorderKind::reflect101, 0};
       })},
      {Op::gaussian, "tile", with([](OpParams& p) {
         p.border = {BorderKind::constant, 200};
       })},
      {Op::sharpen, "tile", with([](OpParams& p) {
         p.border = {BorderKind::constant, 9};
       })},
      {Op::sobel, "tile", with([](OpParams& p) { p.sobel_output = SobelOutput::l1; })},
      {Op::sobel, "quads", with([](OpParams& p) {
         p.border = {BorderKind::constant, 77};
       })},
      {Op::sobel, "quads", with([](OpParams& p) { p.sobel_output = SobelOutput::dy; })},
      {Op::erode, "tile", se(SeShape::rect, 31, 31)},  // results over the tile's words
      {Op::dilate, "tile", se(SeShape::rect, 32, 5)},  // the same, the anchor off-centre
      {Op::erode, "tile", se(SeShape::rect, 9, 9)},    // results in rows of their own
      {Op::dilate, "tile", se(SeShape::ellipse, 7, 7)},
      {Op::gaussian, "quads", with([](OpParams& p) {
         p.border = {BorderKind::constant, 200};
       })},
      {Op::gaussian, "quads", with([](OpParams& p) {
         p.border = {BorderKind::reflect101, 0};
         p.sigma = 0.8;
       })},
      {Op::gaussian, "quads", with([](OpParams& p) { p.sigma = 0.1; })},  // a weight of 256
      {Op::sharpen, "quads", with([](OpParams& p) {
         p.border = {BorderKind::reflect101, 0};
       })},
      {Op::erode, "quads", se(SeShape::rect, 3, 3)},
      {Op::open, "quads", se(SeShape::cross, 3, 3)},
      {Op::dilate, "quads", se(SeShape::rect, 2, 3)},
      {Op::erode, "spans", se(SeShape::rect, 3, 3)},
      {Op::dilate, "spans", se(SeShape::ellipse, 15, 15)},
      {Op::open, "spans", se(SeShape::cross, 5, 5)},
      {Op::close, "spans", se(SeShape::rect, 2, 5)}};
  for (const auto& [width, height] : {std::pair{300, 600}, std::pair{301, 77}, std::pair{5, 3},
                                      std::pair{1, 40}, std::pair{8, 9}}) {
    const Image image = test::synthetic_image(width, height, 4, static_cast<std::uint32_t>(width));
    for (const Case& c : cases) {
      const OpOutput expected = reference::run(c.op, image, c.params);
      OpParams params = c.params;
      params.variant = c.variant;
      const OpOutput actual = backend_->run(c.op, image.view(), params);
      EXPECT_TRUE(test::same_image(expected.image, actual.image))
          << op_name(c.op) << " " << c.variant << " " << width << "x" << height;
    }
  }
}

/// Sobel's magnitude rounds the float root straight away (sobel.cl): every variant on images of
/// noise, whose gradients spread over the whole range, gray and RGBA.
TEST_F(OpenClBackendTest, SobelMagnitudeMatchesTheReferenceOnNoise) {
  for (const int channels : {1, 4}) {
    const Image image = test::synthetic_image(1024, 96, channels, 11);
    const OpOutput expected = reference::run(Op::sobel, image, OpParams{});
    for (const std::string& variant : backend_->variants(Op::sobel)) {
      OpParams params;
      params.variant = variant;
      const OpOutput actual = backend_->run(Op::sobel, image.view(), params);
      EXPECT_TRUE(test::same_image(expected.image, actual.image)) << variant << " c" << channels;
    }
  }
}

/// Adaptive segment's columns schedule keeps 16-bit counts up to 65535 window pixels and 32-bit
/// ones above: windows on either side of that line (255^2 and 257^2 pixels) over several strips
/// and work-groups, on a flat image with a sparse pattern, whose one bin can outgrow 16 bits,
/// with thresholds all local (min contrast 0) and mixed. The oracle here is the private schedule
/// (32-bit counts, the cross-backend suite's reference cases): the reference takes seconds on
/// windows this large.
TEST_F(OpenClBackendTest, AdaptiveSegmentColumnsMatchPrivateWithShortAndLongCounts) {
  constexpr int kSide = 257;
  constexpr int kFlat = 100;
  constexpr int kPatternPeriod = 211;  // under 1% of a window off the flat value
  Image image(kSide, kSide, 1);
  for (int y = 0; y < kSide; ++y) {
    for (int x = 0; x < kSide; ++x) {
      const bool pattern = (7 * x + 3 * y) % kPatternPeriod == 0;
      image.at(x, y) = static_cast<std::uint8_t>(pattern ? (x + y) % kHistogramBins : kFlat);
    }
  }
  for (const int window : {kSide - 2, kSide}) {
    for (const int min_contrast : {0, 40}) {
      OpParams params;
      params.adaptive = true;
      params.window = window;
      params.min_contrast = min_contrast;
      params.variant = "private";
      const OpOutput expected = backend_->run(Op::segment, image.view(), params);
      params.variant = "columns";
      const OpOutput actual = backend_->run(Op::segment, image.view(), params);
      EXPECT_TRUE(test::same_image(expected.image, actual.image))
          << "window " << window << " min contrast " << min_contrast;
    }
  }
}

/// The schedules the other kind of device would run (GPU ones on PoCL, CPU ones on a GPU):
/// grid-strided sub-histograms, the morphology default's other choices.
TEST_F(OpenClBackendTest, TheOtherDeviceKindsSchedulesMatchTheReference) {
  DeviceList list;
  const DeviceChoice choice = test_choice(list);
  ASSERT_TRUE(choice.device);
  Runtime& rt = Runtime::of(list.devices[*choice.device].id);
  const bool own = rt.cpu_schedules();
  struct Restore {
    Runtime& rt;
    bool cpu;
    ~Restore() { rt.set_cpu_schedules(cpu); }
  } restore{rt, own};
  rt.set_cpu_schedules(!own);
  const auto with_se = [](SeSpec se) {
    OpParams p;
    p.se = se;
    return p;
  };
  OpParams per_channel;
  per_channel.per_channel = true;
  const std::vector<std::pair<Op, OpParams>> cases = {
      {Op::histogram, {}},
      {Op::histogram, per_channel},
      {Op::equalize, {}},
      {Op::otsu, {}},
      {Op::erode, with_se({SeShape::rect, 9, 9})},
      {Op::dilate, with_se({SeShape::ellipse, 5, 5})},
      {Op::erode, with_se({SeShape::ellipse, 21, 15})}};
  for (const int channels : {1, 3, 4}) {
    const Image image = test::synthetic_image(131, 67, channels, 5);
    for (const auto& [op, params] : cases) {
      const OpOutput expected = reference::run(op, image, params);
      for (const std::string& variant : backend_->variants(op)) {
        OpParams with_variant = params;
        with_variant.variant = variant;
        const OpOutput actual = backend_->run(op, image.view(), with_variant);
        EXPECT_TRUE(test::same_image(expected.image, actual.image))
            << op_name(op) << " " << variant;
        EXPECT_EQ(expected.histogram, actual.histogram) << op_name(op) << " " << variant;
        EXPECT_EQ(expected.threshold, actual.threshold) << op_name(op) << " " << variant;
      }
    }
  }
}

}  // namespace
}  // namespace parfilter::opencl
