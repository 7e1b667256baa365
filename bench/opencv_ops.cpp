// OpenCV's counterparts of the benchmarked ops. Each does the same job as the parfilter op,
// the way an OpenCV program would write it (not bit-identical: the benchmark grades speed,
// the tests grade bytes).
#include <opencv2/core.hpp>
#include <opencv2/core/utility.hpp>
#include <opencv2/imgproc.hpp>

#include <map>
#include <memory>
#include <sstream>

#include "opencv_ops.hpp"

namespace parfilter::bench {
namespace {

/// The input as a Mat over the same bytes (no copy; OpenCV only reads it).
cv::Mat wrap(const Image& input) {
  // cv::Mat takes a non-const pointer even for a read-only header.
  auto* data =
      const_cast<std::uint8_t*>(input.data());  // NOLINT(cppcoreguidelines-pro-type-const-cast)
  return {input.height(), input.width(), CV_MAKETYPE(CV_8U, input.channels()), data,
          static_cast<std::size_t>(input.stride())};
}

int cv_border(BorderMode border) {
  switch (border.kind) {
    case BorderKind::replicate:
      return cv::BORDER_REPLICATE;
    case BorderKind::reflect101:
      return cv::BORDER_REFLECT_101;
    case BorderKind::constant:
      break;
  }
  return cv::BORDER_CONSTANT;  // OpenCV's filters take no border value: 0
}

int cv_morph_shape(SeShape shape) {
  switch (shape) {
    case SeShape::rect:
      return cv::MORPH_RECT;
    case SeShape::cross:
      return cv::MORPH_CROSS;
    case SeShape::ellipse:
      break;
  }
  return cv::MORPH_ELLIPSE;
}

/// The Mats one counterpart keeps between runs: its input and its intermediates/outputs.
struct Mats {
  cv::Mat src, gray, a, b, c, d, e, out;
};

/// src to gray (a copy for a gray input, as parfilter's gray op copies too).
void to_gray(const cv::Mat& src, cv::Mat& gray) {
  if (src.channels() == 1) {
    src.copyTo(gray);
  } else {
    cv::cvtColor(src, gray, src.channels() == 4 ? cv::COLOR_RGBA2GRAY : cv::COLOR_RGB2GRAY);
  }
}

}  // namespace

std::optional<std::string> opencv_description() {
  // The line "Parallel framework: TBB (ver ...)" of the build information.
  const std::string info = cv::getBuildInformation();
  std::string framework = "unknown";
  std::istringstream lines(info);
  for (std::string line; std::getline(lines, line);) {
    const auto colon = line.find(':');
    if (line.find("Parallel framework") != std::string::npos && colon != std::string::npos) {
      framework = line.substr(line.find_first_not_of(' ', colon + 1));
      break;
    }
  }
  return std::string("OpenCV ") + CV_VERSION + ", parallel framework " + framework;
}

void opencv_set_threads(int threads) { cv::setNumThreads(threads); }

namespace {

/// Makes one op's counterpart on the Mats it keeps; `border` is params.border in OpenCV's terms.
using MakeCounterpart = OpenCvCounterpart (*)(const std::shared_ptr<Mats>& m, Op op,
                                              const OpParams& params, const Image& input,
                                              int border);

OpenCvCounterpart gray(const std::shared_ptr<Mats>& m, Op, const OpParams&, const Image&, int) {
  return {[m] { to_gray(m->src, m->out); }, "cvtColor(RGB2GRAY)"};
}

OpenCvCounterpart gaussian(const std::shared_ptr<Mats>& m, Op, const OpParams& params, const Image&,
                           int border) {
  return {[m, border, sigma = params.sigma] {
            cv::GaussianBlur(m->src, m->out, cv::Size(5, 5), sigma, sigma, border);
          },
          "GaussianBlur(5x5)"};
}

OpenCvCounterpart sobel(const std::shared_ptr<Mats>& m, Op, const OpParams&, const Image&,
                        int border) {
  // Gray, both 3x3 gradients in 16 bits, then the rounded magnitude in float.
  return {[m, border] {
            to_gray(m->src, m->gray);
            cv::Sobel(m->gray, m->a, CV_16S, 1, 0, 3, 1, 0, border);
            cv::Sobel(m->gray, m->b, CV_16S, 0, 1, 3, 1, 0, border);
            m->a.convertTo(m->c, CV_32F);
            m->b.convertTo(m->d, CV_32F);
            cv::magnitude(m->c, m->d, m->e);
            m->e.convertTo(m->out, CV_8U);
          },
          "cvtColor + Sobel dx, dy (16S) + magnitude (32F) + convertTo 8U"};
}

OpenCvCounterpart sharpen(const std::shared_ptr<Mats>& m, Op, const OpParams&, const Image&,
                          int border) {
  const cv::Mat kernel = (cv::Mat_<float>(3, 3) << 0, -1, 0, -1, 5, -1, 0, -1, 0);
  return {[m, kernel, border] {
            cv::filter2D(m->src, m->out, -1, kernel, cv::Point(-1, -1), 0, border);
          },
          "filter2D(3x3 sharpen)"};
}

OpenCvCounterpart histogram(const std::shared_ptr<Mats>& m, Op, const OpParams&, const Image&,
                            int) {
  return {[m] {
            to_gray(m->src, m->gray);
            const int channel = 0;
            const int bins = kHistogramBins;
            const float range[] = {0, static_cast<float>(kHistogramBins)};
            const float* ranges[] = {range};
            cv::calcHist(&m->gray, 1, &channel, cv::Mat(), m->out, 1, &bins, ranges);
          },
          "cvtColor + calcHist"};
}

OpenCvCounterpart equalize(const std::shared_ptr<Mats>& m, Op, const OpParams&, const Image& input,
                           int) {
  if (input.channels() == 1) {
    return {[m] { cv::equalizeHist(m->src, m->out); }, "equalizeHist"};
  }
  // Equalize the luma, as parfilter does for colour (alpha is not carried here).
  return {[m] {
            cv::cvtColor(m->src, m->a, cv::COLOR_RGB2YCrCb);
            cv::extractChannel(m->a, m->gray, 0);
            cv::equalizeHist(m->gray, m->gray);
            cv::insertChannel(m->gray, m->a, 0);
            cv::cvtColor(m->a, m->out, cv::COLOR_YCrCb2RGB);
          },
          "cvtColor(YCrCb) + equalizeHist(Y) + cvtColor(RGB)"};
}

OpenCvCounterpart otsu(const std::shared_ptr<Mats>& m, Op, const OpParams&, const Image&, int) {
  return {[m] {
            to_gray(m->src, m->gray);
            cv::threshold(m->gray, m->out, 0, 255, cv::THRESH_BINARY | cv::THRESH_OTSU);
          },
          "cvtColor + threshold(OTSU)"};
}

OpenCvCounterpart segment(const std::shared_ptr<Mats>&, Op, const OpParams&, const Image&, int) {
  // Isodata is not in OpenCV; adaptiveThreshold uses a different, cheaper local rule.
  return {{}, "none (OpenCV has no isodata threshold)"};
}

OpenCvCounterpart morphology(const std::shared_ptr<Mats>& m, Op op, const OpParams& params,
                             const Image&, int) {
  const cv::Mat element = cv::getStructuringElement(cv_morph_shape(params.se.shape),
                                                    cv::Size(params.se.width, params.se.height));
  const int morph = op == Op::erode    ? cv::MORPH_ERODE
                    : op == Op::dilate ? cv::MORPH_DILATE
                    : op == Op::open   ? cv::MORPH_OPEN
                                       : cv::MORPH_CLOSE;
  return {[m, element, morph, iterations = params.iterations] {
            cv::morphologyEx(m->src, m->out, morph, element, cv::Point(-1, -1), iterations);
          },
          "morphologyEx"};
}

OpenCvCounterpart pool(const std::shared_ptr<Mats>& m, Op, const OpParams&, const Image& input,
                       int) {
  // No max-pool in imgproc: a 2x2 dilation anchored at its top-left makes each pixel the max
  // of its window, and a nearest-neighbour halving picks every second one.
  const cv::Size pooled(pool_extent(input.width()), pool_extent(input.height()));
  return {[m, pooled] {
            cv::dilate(m->src, m->a, cv::Mat::ones(2, 2, CV_8U), cv::Point(0, 0));
            cv::resize(m->a, m->out, pooled, 0, 0, cv::INTER_NEAREST);
          },
          "dilate(2x2, anchor 0,0) + resize(INTER_NEAREST, 1/2)"};
}

/// The ops OpenCV has a counterpart for (an op without a row is benchmarked without one).
const std::map<Op, MakeCounterpart> kCounterparts = {
    {Op::gray, gray},         {Op::gaussian, gaussian},   {Op::sobel, sobel},
    {Op::sharpen, sharpen},   {Op::histogram, histogram}, {Op::equalize, equalize},
    {Op::otsu, otsu},         {Op::segment, segment},     {Op::erode, morphology},
    {Op::dilate, morphology}, {Op::open, morphology},     {Op::close, morphology},
    {Op::pool, pool}};

}  // namespace

OpenCvCounterpart opencv_counterpart(Op op, const OpParams& params, const Image& input) {
  const auto found = kCounterparts.find(op);
  if (found == kCounterparts.end()) return {{}, "none (no OpenCV counterpart listed)"};
  auto m = std::make_shared<Mats>();
  m->src = wrap(input);
  return found->second(m, op, params, input, cv_border(params.border));
}

}  // namespace parfilter::bench
