// The reference against OpenCV 4.6, an independent oracle: exact agreement on the data/
// images for gray, Sobel, sharpen, the sigma-1.5 Gaussian, equalization, morphology and
// Otsu's threshold, under every border mode. Our images are RGB(A); OpenCV is told so. Also
// the loader's EXIF orientation against cv::imread's.
#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <opencv2/core.hpp>
#include <opencv2/imgcodecs.hpp>
#include <opencv2/imgproc.hpp>
#include <string>
#include <vector>

#include "filter_math.hpp"
#include "parfilter/image_io.hpp"
#include "reference.hpp"
#include "support/image_files.hpp"
#include "support/test_images.hpp"

namespace parfilter {
namespace {

using test::same_image;

const std::vector<std::string> kDataImages = {"astronaut.png", "camera.png", "coins.png",
                                              "horse.png",     "text.png",   "rocket.jpg"};

const Image& data_image(const std::string& name) {
  static std::map<std::string, Image> cache;
  auto it = cache.find(name);
  if (it == cache.end()) it = cache.emplace(name, test::load_data_image(name)).first;
  return it->second;
}

cv::Mat to_mat(const Image& img) {
  cv::Mat mat(img.height(), img.width(), CV_8UC(img.channels()));
  for (int y = 0; y < img.height(); ++y) {
    std::copy(img.row(y), img.row(y) + img.stride(), mat.ptr<std::uint8_t>(y));
  }
  return mat;
}

Image from_mat(const cv::Mat& mat) {
  EXPECT_EQ(mat.depth(), CV_8U);
  Image img(mat.cols, mat.rows, mat.channels());
  for (int y = 0; y < img.height(); ++y) {
    std::copy(mat.ptr<std::uint8_t>(y), mat.ptr<std::uint8_t>(y) + img.stride(), img.row(y));
  }
  return img;
}

/// OpenCV filters every channel; the spec copies alpha. Put the input's alpha back.
Image with_alpha_of(Image filtered, const Image& input) {
  if (input.channels() == 4) {
    for (int y = 0; y < input.height(); ++y) {
      for (int x = 0; x < input.width(); ++x) filtered.at(x, y, 3) = input.at(x, y, 3);
    }
  }
  return filtered;
}

Image gray_of_image(const Image& img) { return reference::run(Op::gray, img, {}).image; }

const std::vector<BorderMode> kBorders = {{BorderKind::replicate, 0},
                                          {BorderKind::reflect101, 0},
                                          {BorderKind::constant, 0},
                                          {BorderKind::constant, 77}};

/// Runs `filter` (which reads at most `radius` pixels away) under `border` the OpenCV way.
/// OpenCV's filters take no border value (BORDER_CONSTANT means 0), so constant:V pads the
/// image with V first and crops the result.
template <typename Filter>
cv::Mat filter_with_border(const cv::Mat& src, BorderMode border, int radius, Filter filter) {
  cv::Mat dst;
  switch (border.kind) {
    case BorderKind::replicate:
      filter(src, dst, cv::BORDER_REPLICATE);
      return dst;
    case BorderKind::reflect101:
      filter(src, dst, cv::BORDER_REFLECT_101);
      return dst;
    case BorderKind::constant:
      if (border.value == 0) {
        filter(src, dst, cv::BORDER_CONSTANT);
        return dst;
      }
      break;
  }
  cv::Mat padded;
  cv::copyMakeBorder(src, padded, radius, radius, radius, radius, cv::BORDER_CONSTANT,
                     cv::Scalar::all(border.value));
  filter(padded, dst, cv::BORDER_REPLICATE);  // the outer ring is cropped away
  return dst(cv::Rect(radius, radius, src.cols, src.rows)).clone();
}

class OracleOnImage : public ::testing::TestWithParam<std::string> {
 protected:
  const Image& input() const { return data_image(GetParam()); }
  cv::Mat input_mat() const { return to_mat(input()); }
  cv::Mat gray_mat() const { return to_mat(gray_of_image(input())); }
};

TEST_P(OracleOnImage, Gray) {
  const Image& in = input();
  if (in.channels() == 1) GTEST_SKIP() << "gray input is copied";
  cv::Mat gray;
  cv::cvtColor(to_mat(in), gray, in.channels() == 4 ? cv::COLOR_RGBA2GRAY : cv::COLOR_RGB2GRAY);
  EXPECT_TRUE(same_image(from_mat(gray), gray_of_image(in)));
}

TEST_P(OracleOnImage, SobelEveryOutputAndBorder) {
  const cv::Mat gray = gray_mat();
  for (const auto border : kBorders) {
    SCOPED_TRACE(to_string(border));
    const auto derivative = [](int dx, int dy) {
      return [dx, dy](const cv::Mat& s, cv::Mat& d, int type) {
        cv::Sobel(s, d, CV_16S, dx, dy, 3, 1, 0, type);
      };
    };
    const cv::Mat gx = filter_with_border(gray, border, 1, derivative(1, 0));
    const cv::Mat gy = filter_with_border(gray, border, 1, derivative(0, 1));
    for (const auto output :
         {SobelOutput::magnitude, SobelOutput::l1, SobelOutput::dx, SobelOutput::dy}) {
      Image expected(gray.cols, gray.rows, 1);
      for (int y = 0; y < gray.rows; ++y) {
        for (int x = 0; x < gray.cols; ++x) {
          const int ax = std::abs(gx.at<std::int16_t>(y, x));
          const int ay = std::abs(gy.at<std::int16_t>(y, x));
          const int magnitude = static_cast<int>(std::floor(std::hypot(ax, ay) + 0.5));
          const int v = output == SobelOutput::magnitude ? magnitude
                        : output == SobelOutput::l1      ? ax + ay
                        : output == SobelOutput::dx      ? ax
                                                         : ay;
          expected.at(x, y) = static_cast<std::uint8_t>(std::min(v, 255));
        }
      }
      OpParams p;
      p.border = border;
      p.sobel_output = output;
      EXPECT_TRUE(same_image(expected, reference::run(Op::sobel, input(), p).image))
          << to_string(output);
    }
  }
}

TEST_P(OracleOnImage, SharpenIsFilter2D) {
  const cv::Mat kernel = (cv::Mat_<float>(3, 3) << 0, -1, 0, -1, 5, -1, 0, -1, 0);
  for (const auto border : kBorders) {
    const cv::Mat out =
        filter_with_border(input_mat(), border, 1, [&](const cv::Mat& s, cv::Mat& d, int type) {
          cv::filter2D(s, d, CV_8U, kernel, {-1, -1}, 0, type);
        });
    OpParams p;
    p.border = border;
    EXPECT_TRUE(same_image(with_alpha_of(from_mat(out), input()),
                           reference::run(Op::sharpen, input(), p).image))
        << to_string(border);
  }
}

TEST_P(OracleOnImage, GaussianSigmaOnePointFive) {
  constexpr double kSigma = 1.5;  // where OpenCV's 8-bit weights are also 31 60 74 60 31
  for (const auto border : kBorders) {
    const cv::Mat out = filter_with_border(
        input_mat(), border, kGaussianRadius, [&](const cv::Mat& s, cv::Mat& d, int type) {
          cv::GaussianBlur(s, d, {kGaussianTaps, kGaussianTaps}, kSigma, kSigma, type);
        });
    OpParams p;
    p.border = border;
    p.sigma = kSigma;
    EXPECT_TRUE(same_image(with_alpha_of(from_mat(out), input()),
                           reference::run(Op::gaussian, input(), p).image))
        << to_string(border);
  }
}

TEST_P(OracleOnImage, GrayEqualizeHist) {
  cv::Mat out;
  cv::equalizeHist(gray_mat(), out);
  EXPECT_TRUE(
      same_image(from_mat(out), reference::run(Op::equalize, gray_of_image(input()), {}).image));
}

TEST_P(OracleOnImage, ColourEqualizeThroughYCrCb) {
  const Image& in = input();
  if (in.channels() == 1) GTEST_SKIP() << "gray input";
  cv::Mat rgb = to_mat(in);
  if (in.channels() == 4) cv::cvtColor(rgb, rgb, cv::COLOR_RGBA2RGB);
  cv::Mat ycrcb;
  cv::cvtColor(rgb, ycrcb, cv::COLOR_RGB2YCrCb);
  std::vector<cv::Mat> planes;
  cv::split(ycrcb, planes);
  cv::equalizeHist(planes[0], planes[0]);
  cv::merge(planes, ycrcb);
  cv::cvtColor(ycrcb, rgb, cv::COLOR_YCrCb2RGB);
  if (in.channels() == 4) cv::cvtColor(rgb, rgb, cv::COLOR_RGB2RGBA);
  EXPECT_TRUE(
      same_image(with_alpha_of(from_mat(rgb), in), reference::run(Op::equalize, in, {}).image));
}

TEST_P(OracleOnImage, OtsuThreshold) {
  const cv::Mat gray = gray_mat();
  cv::Mat out;
  const double t = cv::threshold(gray, out, 0, 255, cv::THRESH_BINARY | cv::THRESH_OTSU);
  const auto ours = reference::run(Op::otsu, input(), {});
  EXPECT_EQ(ours.threshold, static_cast<int>(t));
  EXPECT_TRUE(same_image(from_mat(out), ours.image));
}

// The oracle states OpenCV's names itself, apart from bench/opencv_ops.cpp's: the tests do not
// depend on the benchmarks.
int cv_shape(SeShape shape) {
  switch (shape) {
    case SeShape::rect:
      return cv::MORPH_RECT;
    case SeShape::cross:
      return cv::MORPH_CROSS;
    case SeShape::ellipse:
      return cv::MORPH_ELLIPSE;
  }
  return cv::MORPH_RECT;
}

TEST_P(OracleOnImage, MorphologyEachShape) {
  // Morphology is the slowest reference op, so a few sizes: odd, even and non-square.
  const std::vector<SeSpec> elements = {{SeShape::rect, 3, 3},    {SeShape::cross, 5, 5},
                                        {SeShape::ellipse, 7, 5}, {SeShape::rect, 4, 2},
                                        {SeShape::cross, 4, 6},   {SeShape::ellipse, 6, 6}};
  const cv::Mat src = input_mat();
  for (const auto& se : elements) {
    const cv::Mat kernel = cv::getStructuringElement(cv_shape(se.shape), {se.width, se.height});
    struct Case {
      Op op;
      int cv_op;
      int iterations;
    };
    for (const Case c : {Case{Op::erode, cv::MORPH_ERODE, 1}, Case{Op::dilate, cv::MORPH_DILATE, 2},
                         Case{Op::open, cv::MORPH_OPEN, 2}, Case{Op::close, cv::MORPH_CLOSE, 2}}) {
      cv::Mat out;
      // Default border: BORDER_CONSTANT with morphologyDefaultBorderValue(), the neutral
      // value, which is the same as ignoring outside pixels.
      cv::morphologyEx(src, out, c.cv_op, kernel, {-1, -1}, c.iterations);
      OpParams p;
      p.se = se;
      p.iterations = c.iterations;
      EXPECT_TRUE(
          same_image(with_alpha_of(from_mat(out), input()), reference::run(c.op, input(), p).image))
          << op_name(c.op) << " " << to_string(se) << " x" << c.iterations;
    }
  }
}

INSTANTIATE_TEST_SUITE_P(DataImages, OracleOnImage, ::testing::ValuesIn(kDataImages),
                         [](const auto& info) {
                           std::string name = info.param;
                           return name.substr(0, name.find('.'));
                         });

// ---- where OpenCV is the odd one out (docs/FILTERS.md, "OpenCV as an oracle") --------------
// OpenCV computes these in floating point; the spec is exact. They agree on every data/ image
// above; these tiny cases pin the known differences so that a change on either side shows.

TEST(OracleDivergence, EqualizeHistRoundsExactHalvesToEven) {
  // Values 0, 1, 2 x5: D = 6, c(1) = 1, 255 / 6 = 42.5. The spec rounds half up (43);
  // OpenCV multiplies by the float 255.f / 6 and cvRound()s half to even (42).
  const Image in = test::make_image(7, 1, 1, {0, 1, 2, 2, 2, 2, 2});
  cv::Mat out;
  cv::equalizeHist(to_mat(in), out);
  EXPECT_EQ(out.at<std::uint8_t>(0, 1), 42);
  EXPECT_EQ(reference::run(Op::equalize, in, {}).image.at(1, 0), 43);
}

TEST(OracleDivergence, OtsuOnASingleValue) {
  // OpenCV skips every t (one class is always empty) and returns 0, so 42 > 0 becomes 255;
  // the spec returns the value itself and leaves everything background.
  const Image in = test::make_image(5, 1, 1, {42, 42, 42, 42, 42});
  cv::Mat out;
  EXPECT_EQ(cv::threshold(to_mat(in), out, 0, 255, cv::THRESH_BINARY | cv::THRESH_OTSU), 0.0);
  EXPECT_EQ(reference::run(Op::otsu, in, {}).threshold, 42);
}

TEST(OracleDivergence, OtsuOnAnExactTie) {
  // Values 0 1 1 2: t = 0 and t = 1 give the same variance, 16/3. The spec takes the smaller;
  // OpenCV's rounding makes t = 1 look larger by an ulp.
  const Image in = test::make_image(4, 1, 1, {0, 1, 1, 2});
  cv::Mat out;
  EXPECT_EQ(cv::threshold(to_mat(in), out, 0, 255, cv::THRESH_BINARY | cv::THRESH_OTSU), 1.0);
  EXPECT_EQ(reference::run(Op::otsu, in, {}).threshold, 0);
}

// ---- the shared math, exhaustively -----------------------------------------------------------
TEST(OracleMath, StructuringElementsForEveryShapeUpTo15x15) {
  for (const auto shape : {SeShape::rect, SeShape::cross, SeShape::ellipse}) {
    for (int h = 1; h <= 15; ++h) {
      for (int w = 1; w <= 15; ++w) {
        const cv::Mat expected = cv::getStructuringElement(cv_shape(shape), {w, h});
        const auto se = make_structuring_element({shape, w, h});
        for (int y = 0; y < h; ++y) {
          for (int x = 0; x < w; ++x) {
            ASSERT_EQ(se.at(x, y), expected.at<std::uint8_t>(y, x) != 0)
                << to_string(SeSpec{shape, w, h}) << " at " << x << "," << y;
          }
        }
      }
    }
  }
}

/// Every 24-bit value once: a 4096 x 4096 image whose pixel i holds (i >> 16, i >> 8, i).
cv::Mat every_triple() {
  constexpr int kSide = 4096;
  cv::Mat mat(kSide, kSide, CV_8UC3);
  for (int y = 0; y < kSide; ++y) {
    auto* row = mat.ptr<std::uint8_t>(y);
    for (int x = 0; x < kSide; ++x) {
      const int i = y * kSide + x;
      row[3 * x] = static_cast<std::uint8_t>(i >> 16);
      row[3 * x + 1] = static_cast<std::uint8_t>(i >> 8);
      row[3 * x + 2] = static_cast<std::uint8_t>(i);
    }
  }
  return mat;
}

TEST(OracleMath, GrayAndYCrCbOnEveryTriple) {
  const cv::Mat all = every_triple();
  cv::Mat gray;
  cv::Mat ycrcb;
  cv::Mat rgb;
  cv::cvtColor(all, gray, cv::COLOR_RGB2GRAY);
  cv::cvtColor(all, ycrcb, cv::COLOR_RGB2YCrCb);
  cv::cvtColor(all, rgb, cv::COLOR_YCrCb2RGB);  // the same triples read as (Y, Cr, Cb)
  for (int y = 0; y < all.rows; ++y) {
    const auto* in = all.ptr<std::uint8_t>(y);
    const auto* g = gray.ptr<std::uint8_t>(y);
    const auto* ycc = ycrcb.ptr<std::uint8_t>(y);
    const auto* back = rgb.ptr<std::uint8_t>(y);
    for (int x = 0; x < all.cols; ++x) {
      const int r = in[3 * x];
      const int gr = in[3 * x + 1];
      const int b = in[3 * x + 2];
      ASSERT_EQ(gray_of(r, gr, b), g[x]) << r << " " << gr << " " << b;
      const YCrCb ours = rgb_to_ycrcb(r, gr, b);
      ASSERT_EQ(ours.y, ycc[3 * x]);
      ASSERT_EQ(ours.cr, ycc[3 * x + 1]);
      ASSERT_EQ(ours.cb, ycc[3 * x + 2]);
      std::uint8_t ours_rgb[3];
      ycrcb_to_rgb({static_cast<std::uint8_t>(r), static_cast<std::uint8_t>(gr),
                    static_cast<std::uint8_t>(b)},
                   ours_rgb);
      ASSERT_EQ(ours_rgb[0], back[3 * x]);
      ASSERT_EQ(ours_rgb[1], back[3 * x + 1]);
      ASSERT_EQ(ours_rgb[2], back[3 * x + 2]);
    }
  }
}

// cv::imread turns a JPEG upright by its EXIF orientation too: the same pixels as load_image
// (both decode with libjpeg-turbo) for every orientation, on a JPEG written by parfilter.
TEST(OracleIo, ExifOrientationMatchesImread) {
  constexpr int kOrientations = 8;
  test::TempDir dir;
  const auto jpeg = encode_image(test::synthetic_image(37, 21, 3, 4).view(), ImageFormat::jpeg,
                                 SaveOptions{}, "exif.jpg");
  for (int orientation = 1; orientation <= kOrientations; ++orientation) {
    SCOPED_TRACE("orientation " + std::to_string(orientation));
    const auto path = dir / ("exif" + std::to_string(orientation) + ".jpg");
    test::files::write_bytes(path, test::files::with_exif_orientation(jpeg, orientation));
    cv::Mat bgr = cv::imread(path.string(), cv::IMREAD_COLOR);
    ASSERT_FALSE(bgr.empty());
    cv::Mat rgb;
    cv::cvtColor(bgr, rgb, cv::COLOR_BGR2RGB);
    EXPECT_TRUE(same_image(from_mat(rgb), load_image(path)));
  }
}

}  // namespace
}  // namespace parfilter
