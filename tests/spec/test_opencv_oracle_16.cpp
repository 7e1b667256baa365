// The reference at 16 bits against OpenCV 4.6, where OpenCV's 16-bit ops are exact: gray
// (cvtColor on CV_16U), sobel (Sobel into CV_32F, exact for these integers), sharpen (filter2D into CV_16U), morphology
// (erode / dilate on CV_16U) and the YCrCb conversions of colour equalize.
#include <gtest/gtest.h>

#include <opencv2/imgproc.hpp>

#include <cmath>
#include <cstdint>

#include "filter_math.hpp"
#include "reference.hpp"
#include "support/test_images.hpp"

namespace parfilter {
namespace {

using test::same_image;

constexpr int kTop = 65535;

cv::Mat to_mat(const Image& img) {
  cv::Mat mat(img.height(), img.width(), CV_16UC(img.channels()));
  for (int y = 0; y < img.height(); ++y) {
    std::copy_n(img.view_of<std::uint16_t>().row(y), img.stride(), mat.ptr<std::uint16_t>(y));
  }
  return mat;
}

Image from_mat(const cv::Mat& mat) {
  Image img(mat.cols, mat.rows, mat.channels(), Depth::u16);
  for (int y = 0; y < img.height(); ++y) {
    std::copy_n(mat.ptr<std::uint16_t>(y), img.stride(), img.view_of<std::uint16_t>().row(y));
  }
  return img;
}

/// The test images: content in every bit, and 12-bit data.
std::vector<Image> inputs(int channels) {
  return {test::synthetic_image_16(61, 37, channels, 11),
          test::synthetic_image_16(40, 29, channels, 12, 12)};
}

TEST(Oracle16, Gray) {
  for (const Image& in : inputs(3)) {
    cv::Mat gray;
    cv::cvtColor(to_mat(in), gray, cv::COLOR_RGB2GRAY);
    EXPECT_TRUE(same_image(from_mat(gray), reference::run(Op::gray, in, {}).image));
  }
}

TEST(Oracle16, SobelEveryOutput) {
  for (const Image& in : inputs(1)) {
    cv::Mat gx;
    cv::Mat gy;
    cv::Sobel(to_mat(in), gx, CV_32F, 1, 0, 3, 1, 0, cv::BORDER_REPLICATE);
    cv::Sobel(to_mat(in), gy, CV_32F, 0, 1, 3, 1, 0, cv::BORDER_REPLICATE);
    for (const auto output :
         {SobelOutput::magnitude, SobelOutput::l1, SobelOutput::dx, SobelOutput::dy}) {
      Image expected(in.width(), in.height(), 1, Depth::u16);
      for (int y = 0; y < in.height(); ++y) {
        for (int x = 0; x < in.width(); ++x) {
          // Floats hold the gradients (at most 4 T < 2^24) exactly.
          const auto ax = static_cast<std::int64_t>(std::abs(gx.at<float>(y, x)));
          const auto ay = static_cast<std::int64_t>(std::abs(gy.at<float>(y, x)));
          // The exact root of the 64-bit square, rounded half up (FILTERS.md).
          const auto magnitude = static_cast<std::int64_t>(
              isqrt_round(static_cast<std::uint64_t>(ax * ax + ay * ay)));
          const std::int64_t v = output == SobelOutput::magnitude ? magnitude
                                 : output == SobelOutput::l1      ? ax + ay
                                 : output == SobelOutput::dx      ? ax
                                                                  : ay;
          expected.set_sample(x, y, 0, static_cast<int>(std::min<std::int64_t>(v, kTop)));
        }
      }
      OpParams params;
      params.sobel_output = output;
      EXPECT_TRUE(same_image(expected, reference::run(Op::sobel, in, params).image))
          << to_string(output);
    }
  }
}

TEST(Oracle16, SharpenIsFilter2D) {
  const cv::Mat kernel = (cv::Mat_<float>(3, 3) << 0, -1, 0, -1, 5, -1, 0, -1, 0);
  for (const Image& in : inputs(3)) {
    cv::Mat out;
    cv::filter2D(to_mat(in), out, CV_16U, kernel, {-1, -1}, 0, cv::BORDER_REFLECT_101);
    OpParams params;
    params.border = {BorderKind::reflect101, 0};
    EXPECT_TRUE(same_image(from_mat(out), reference::run(Op::sharpen, in, params).image));
  }
}

TEST(Oracle16, MorphologyEachShape) {
  for (const Image& in : inputs(3)) {
    for (const auto& [shape, cv_shape] :
         {std::pair{SeShape::rect, cv::MORPH_RECT}, std::pair{SeShape::cross, cv::MORPH_CROSS},
          std::pair{SeShape::ellipse, cv::MORPH_ELLIPSE}}) {
      const SeSpec se{shape, 7, 5};
      const cv::Mat kernel = cv::getStructuringElement(cv_shape, {se.width, se.height});
      for (const auto& [op, cv_op] :
           {std::pair{Op::erode, cv::MORPH_ERODE}, std::pair{Op::dilate, cv::MORPH_DILATE}}) {
        cv::Mat out;
        // OpenCV's default border for morphology ignores the pixels outside, as the spec.
        cv::morphologyEx(to_mat(in), out, cv_op, kernel);
        OpParams params;
        params.se = se;
        EXPECT_TRUE(same_image(from_mat(out), reference::run(op, in, params).image))
            << to_string(se) << " " << op_name(op);
      }
    }
  }
}

TEST(Oracle16, YCrCbBothWays) {
  // Every 16-bit triple on a coarse grid, both conversions against cvtColor on CV_16UC3.
  constexpr int kStep = 4369;  // 65535 / 15: 16 levels per channel, both ends included
  cv::Mat rgb(16, 256, CV_16UC3);
  for (int i = 0; i < rgb.rows * rgb.cols; ++i) {
    rgb.at<cv::Vec3w>(i / rgb.cols, i % rgb.cols) = {
        static_cast<std::uint16_t>(i / 256 * kStep), static_cast<std::uint16_t>(i / 16 % 16 * kStep),
        static_cast<std::uint16_t>(i % 16 * kStep)};
  }
  cv::Mat ycrcb;
  cv::cvtColor(rgb, ycrcb, cv::COLOR_RGB2YCrCb);
  cv::Mat back;
  cv::cvtColor(ycrcb, back, cv::COLOR_YCrCb2RGB);
  for (int y = 0; y < rgb.rows; ++y) {
    for (int x = 0; x < rgb.cols; ++x) {
      const cv::Vec3w p = rgb.at<cv::Vec3w>(y, x);
      const auto ours = rgb_to_ycrcb<std::uint16_t>(p[0], p[1], p[2]);
      const cv::Vec3w theirs = ycrcb.at<cv::Vec3w>(y, x);
      ASSERT_EQ(ours.y, theirs[0]);
      ASSERT_EQ(ours.cr, theirs[1]);
      ASSERT_EQ(ours.cb, theirs[2]);
      std::array<std::uint16_t, 3> round_trip{};
      ycrcb_to_rgb(ours, round_trip.data());
      const cv::Vec3w expected = back.at<cv::Vec3w>(y, x);
      ASSERT_EQ(round_trip[0], expected[0]);
      ASSERT_EQ(round_trip[1], expected[1]);
      ASSERT_EQ(round_trip[2], expected[2]);
    }
  }
}

}  // namespace
}  // namespace parfilter
