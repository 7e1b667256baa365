// The tuned kernels of any depth (row_kernels_deep.hpp) against the spec's own loops
// (reference_rows.hpp), at 8 and 16 bits: every border and Sobel output, both sigmas the tests
// use, every element shape (one larger than the image), shapes from 1x1 up, split into row
// blocks, and every magnitude Sobel can produce on a 16-bit image's extreme gradients.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "filter_math.hpp"
#include "parfilter/image.hpp"
#include "reference_rows.hpp"
#include "row_kernels_deep.hpp"
#include "support/test_images.hpp"

namespace parfilter {
namespace {

struct Shape {
  int width;
  int height;
};
const std::vector<Shape> kShapes = {{1, 1}, {7, 1}, {1, 6}, {5, 3}, {37, 23}, {70, 9}};
const std::vector<BorderMode> kBorders = {{BorderKind::replicate, 0},
                                          {BorderKind::reflect101, 0},
                                          {BorderKind::constant, 0},
                                          {BorderKind::constant, 201}};
const std::vector<SeSpec> kElements = {{SeShape::rect, 1, 1},     {SeShape::rect, 3, 3},
                                       {SeShape::rect, 4, 2},     {SeShape::rect, 15, 15},
                                       {SeShape::cross, 5, 3},    {SeShape::ellipse, 7, 5},
                                       {SeShape::ellipse, 70, 50}};

/// An image at `depth` with content in every bit.
Image input(Shape shape, int channels, Depth depth) {
  const auto seed = static_cast<std::uint32_t>(shape.width * 7 + shape.height + channels);
  return depth == Depth::u8 ? test::synthetic_image(shape.width, shape.height, channels, seed)
                            : test::synthetic_image_16(shape.width, shape.height, channels, seed);
}

/// Runs fill(rows) over the image's rows in three blocks (or fewer), as a scheduler splits them.
template <typename Fill>
void in_blocks(int height, Fill&& fill) {
  constexpr int kBlocks = 3;
  for (int b = 0; b < kBlocks; ++b) {
    const RowRange rows{height * b / kBlocks, height * (b + 1) / kBlocks};
    if (!rows.empty()) fill(rows);
  }
}

/// What the reference's rows give, run over the whole image at once, and what the kernel's give,
/// run in blocks: each fills an image of `channels` (the input's size and depth) through
/// rows(out, range).
struct ExpectedAndActual {
  Image expected;
  Image actual;
};
template <typename Sample, typename ReferenceRows, typename KernelRows>
ExpectedAndActual run_both(const Image& in, int channels, const ReferenceRows& reference_rows,
                           const KernelRows& kernel_rows) {
  ExpectedAndActual images{Image(in.width(), in.height(), channels, in.depth()),
                           Image(in.width(), in.height(), channels, in.depth())};
  reference_rows(images.expected.view_of<Sample>(), RowRange{0, in.height()});
  in_blocks(in.height(),
            [&](RowRange rows) { kernel_rows(images.actual.view_of<Sample>(), rows); });
  return images;
}

template <typename Sample>
void check_depth_case(const Image& in, const std::string& where) {
  const auto src = in.view_of<Sample>();
  const int channels = in.channels();
  for (const BorderMode border : kBorders) {
    for (const double sigma : {1.5, 0.8}) {
      const GaussianWeights weights = gaussian_weights(sigma);
      const auto [expected, actual] = run_both<Sample>(
          in, channels,
          [&](auto out, RowRange rows) {
            reference::gaussian_rows(src, out, rows, weights, border);
          },
          [&](auto out, RowRange rows) {
            kernels::gaussian_separable_deep_rows(src, out, rows, weights, border);
          });
      EXPECT_EQ(actual, expected) << "gaussian " << to_string(border) << " sigma " << sigma << " "
                                  << where;
    }
  }
  for (const BorderMode border : kBorders) {
    const auto [expected, actual] = run_both<Sample>(
        in, channels,
        [&](auto out, RowRange rows) { reference::sharpen_rows(src, out, rows, border); },
        [&](auto out, RowRange rows) { kernels::sharpen_deep_rows(src, out, rows, border); });
    EXPECT_EQ(actual, expected) << "sharpen " << to_string(border) << " " << where;
    if (channels != 1) continue;  // Sobel reads a gray image
    for (const SobelOutput output :
         {SobelOutput::magnitude, SobelOutput::l1, SobelOutput::dx, SobelOutput::dy}) {
      const auto [sobel_expected, sobel_actual] = run_both<Sample>(
          in, 1,
          [&](auto out, RowRange rows) { reference::sobel_rows(src, out, rows, border, output); },
          [&](auto out, RowRange rows) {
            kernels::sobel_deep_rows(src, out, rows, border, output);
          });
      EXPECT_EQ(sobel_actual, sobel_expected)
          << "sobel " << to_string(output) << " " << to_string(border) << " " << where;
    }
  }
  for (const SeSpec& spec : kElements) {
    const StructuringElement se = make_structuring_element(spec);
    for (const MorphOp morph : {MorphOp::erode, MorphOp::dilate}) {
      const auto [expected, actual] = run_both<Sample>(
          in, channels,
          [&](auto out, RowRange rows) { reference::morphology_rows(src, out, rows, se, morph); },
          [&](auto out, RowRange rows) {
            kernels::morphology_deep_rows(src, out, rows, se, morph);
          });
      EXPECT_EQ(actual, expected) << (morph == MorphOp::erode ? "erode " : "dilate ")
                                  << to_string(spec) << " " << where;
    }
  }
}

// Gradients at the extremes of 16 bits (up to 4 T in each direction): checkerboards of 0 and
// T and ramps, where the magnitude's square root is largest.
TEST(DeepRowKernels, SobelMagnitudeAtTheExtremesOf16Bits) {
  constexpr int kSide = 64;
  Image in(kSide, kSide, 1, Depth::u16);
  for (int y = 0; y < kSide; ++y) {
    for (int x = 0; x < kSide; ++x) {
      const bool checker = ((x / 2) + (y / 3)) % 2 == 0;
      in.set_sample(x, y, 0, x < kSide / 2 ? (checker ? 65535 : 0) : (x * 1021 + y * 997) % 65536);
    }
  }
  const auto src = std::as_const(in).view_of<std::uint16_t>();
  for (const BorderMode border : kBorders) {
    Image expected(kSide, kSide, 1, Depth::u16);
    Image actual(kSide, kSide, 1, Depth::u16);
    reference::sobel_rows(src, expected.view_of<std::uint16_t>(), RowRange{0, kSide}, border,
                          SobelOutput::magnitude);
    kernels::sobel_deep_rows(src, actual.view_of<std::uint16_t>(), RowRange{0, kSide}, border,
                             SobelOutput::magnitude);
    EXPECT_EQ(actual, expected) << to_string(border);
  }
}

TEST(DeepRowKernels, GiveTheSpecsBytesAtBothDepths) {
  for (const Depth depth : {Depth::u8, Depth::u16}) {
    for (const Shape shape : kShapes) {
      for (const int channels : {1, 3, 4}) {
        const Image in = input(shape, channels, depth);
        const std::string where = std::to_string(bits_of(depth)) + "-bit " +
                                  std::to_string(shape.width) + "x" + std::to_string(shape.height) +
                                  "x" + std::to_string(channels);
        if (depth == Depth::u8) {
          check_depth_case<std::uint8_t>(in, where);
        } else {
          check_depth_case<std::uint16_t>(in, where);
        }
      }
    }
  }
}

}  // namespace
}  // namespace parfilter
