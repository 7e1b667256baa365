#include "parfilter/op_set.hpp"

#include <charconv>
#include <cmath>
#include <string>

#include "parfilter/error.hpp"

namespace parfilter {
namespace {

struct OpDescription {
  Op op;
  std::string_view name;
  std::string_view summary;
};

constexpr std::array<OpDescription, kAllOps.size()> kOpDescriptions = {{
    {Op::gray, "gray", "BT.601 luma in Q15; 1-channel output"},
    {Op::gaussian, "gaussian", "5x5 Gaussian blur (--sigma, --border)"},
    {Op::sobel, "sobel", "Sobel gradient of gray (--output, --border); 1-channel output"},
    {Op::sharpen, "sharpen", "5c - up - down - left - right, saturated (--border)"},
    {Op::histogram, "histogram", "256-bin histogram as .csv or a .png chart (--per-channel)"},
    {Op::equalize, "equalize", "histogram equalization (of YCrCb luma for colour images)"},
    {Op::otsu, "otsu", "Otsu threshold of gray; 1-channel output (--print-threshold)"},
    {Op::segment, "segment", "isodata threshold, global or --adaptive --window W"},
    {Op::erode, "erode", "minimum over the structuring element (--se, --iterations)"},
    {Op::dilate, "dilate", "maximum over the structuring element (--se, --iterations)"},
    {Op::open, "open", "erode then dilate (--se, --iterations)"},
    {Op::close, "close", "dilate then erode (--se, --iterations)"},
    {Op::pool, "pool", "2x2 max pooling, stride 2; output ceil(W/2) x ceil(H/2)"},
}};

const OpDescription& describe(Op op) { return kOpDescriptions.at(static_cast<std::size_t>(op)); }

/// Parses a whole decimal integer.
std::optional<int> parse_int(std::string_view text) {
  int value = 0;
  const auto* end = text.data() + text.size();
  const auto [ptr, ec] = std::from_chars(text.data(), end, value);
  if (ec != std::errc{} || ptr != end || text.empty()) return std::nullopt;
  return value;
}

}  // namespace

std::string_view op_name(Op op) { return describe(op).name; }
std::string_view op_summary(Op op) { return describe(op).summary; }

std::optional<Op> parse_op(std::string_view name) {
  for (const auto& d : kOpDescriptions) {
    if (d.name == name) return d.op;
  }
  return std::nullopt;
}

std::optional<BorderMode> parse_border(std::string_view text) {
  if (text == "replicate") return BorderMode{BorderKind::replicate, 0};
  if (text == "reflect101") return BorderMode{BorderKind::reflect101, 0};
  constexpr std::string_view kConstant = "constant";
  if (text == kConstant) return BorderMode{BorderKind::constant, 0};
  if (text.starts_with(kConstant) && text.size() > kConstant.size() &&
      text[kConstant.size()] == ':') {
    const auto value = parse_int(text.substr(kConstant.size() + 1));
    if (value && *value >= 0 && *value <= 255) {
      return BorderMode{BorderKind::constant, static_cast<std::uint8_t>(*value)};
    }
  }
  return std::nullopt;
}

std::string to_string(BorderMode border) {
  switch (border.kind) {
    case BorderKind::replicate:
      return "replicate";
    case BorderKind::reflect101:
      return "reflect101";
    case BorderKind::constant:
      return "constant:" + std::to_string(border.value);
  }
  return "?";
}

std::optional<SobelOutput> parse_sobel_output(std::string_view text) {
  if (text == "magnitude") return SobelOutput::magnitude;
  if (text == "l1") return SobelOutput::l1;
  if (text == "dx") return SobelOutput::dx;
  if (text == "dy") return SobelOutput::dy;
  return std::nullopt;
}

std::string_view to_string(SobelOutput output) {
  switch (output) {
    case SobelOutput::magnitude:
      return "magnitude";
    case SobelOutput::l1:
      return "l1";
    case SobelOutput::dx:
      return "dx";
    case SobelOutput::dy:
      return "dy";
  }
  return "?";
}

std::optional<SeSpec> parse_se(std::string_view text) {
  const auto colon = text.find(':');
  if (colon == std::string_view::npos) return std::nullopt;
  const auto shape_name = text.substr(0, colon);
  SeSpec spec;
  if (shape_name == "rect") {
    spec.shape = SeShape::rect;
  } else if (shape_name == "cross") {
    spec.shape = SeShape::cross;
  } else if (shape_name == "ellipse") {
    spec.shape = SeShape::ellipse;
  } else {
    return std::nullopt;
  }
  const auto size = text.substr(colon + 1);
  const auto x = size.find('x');
  if (x == std::string_view::npos) return std::nullopt;
  const auto w = parse_int(size.substr(0, x));
  const auto h = parse_int(size.substr(x + 1));
  if (!w || !h || *w < 1 || *h < 1 || *w > kMaxSeSize || *h > kMaxSeSize) return std::nullopt;
  spec.width = *w;
  spec.height = *h;
  return spec;
}

std::string to_string(const SeSpec& se) {
  const char* shape = se.shape == SeShape::rect    ? "rect"
                      : se.shape == SeShape::cross ? "cross"
                                                   : "ellipse";
  return std::string(shape) + ":" + std::to_string(se.width) + "x" + std::to_string(se.height);
}

void validate_params(Op op, const OpParams& params) {
  constexpr double kMaxSigma = 1000.0;
  constexpr int kMaxIterations = 10000;
  constexpr int kMaxWindow = 4095;
  switch (op) {
    case Op::gaussian:
      if (!std::isfinite(params.sigma) || params.sigma <= 0.0 || params.sigma > kMaxSigma) {
        throw UsageError("--sigma must be a number in (0, 1000], got " +
                         std::to_string(params.sigma));
      }
      break;
    case Op::erode:
    case Op::dilate:
    case Op::open:
    case Op::close:
      if (params.iterations < 1 || params.iterations > kMaxIterations) {
        throw UsageError("--iterations must be from 1 to 10000, got " +
                         std::to_string(params.iterations));
      }
      if (params.se.width < 1 || params.se.height < 1 || params.se.width > kMaxSeSize ||
          params.se.height > kMaxSeSize) {
        throw UsageError("--se sizes must be from 1 to 255, got " + to_string(params.se));
      }
      break;
    case Op::segment:
      if (params.adaptive) {
        if (params.window < 1 || params.window % 2 == 0 || params.window > kMaxWindow) {
          throw UsageError("--window must be odd, from 1 to 4095, got " +
                           std::to_string(params.window));
        }
        if (params.min_contrast < 0 || params.min_contrast > 256) {
          throw UsageError("--min-contrast must be from 0 to 256, got " +
                           std::to_string(params.min_contrast));
        }
      }
      break;
    default:
      break;
  }
}

}  // namespace parfilter
