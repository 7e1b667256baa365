#include "parfilter/op_set.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "filter_math.hpp"
#include "parfilter/error.hpp"

namespace parfilter {
namespace {

constexpr double kMaxSigma = 1000.0;
constexpr int kMaxIterations = 10000;
constexpr int kMaxMinContrast = 65536;

using namespace std::string_view_literals;
// Values the tests (every backend against the reference) and the benchmarks try besides each
// parameter's default: the borders' every kind, an odd constant, Sobel's every output, each
// element shape and one larger than small test images, the adaptive window's extremes.
constexpr std::array kBorderSamples{"reflect101"sv, "constant"sv, "constant:77"sv};
constexpr std::array kSigmaSamples{"0.8"sv};
constexpr std::array kSobelSamples{"l1"sv, "dx"sv, "dy"sv};
constexpr std::array kSeSamples{"rect:4x2"sv, "cross:5x3"sv, "ellipse:7x5"sv, "ellipse:70x50"sv};
constexpr std::array kIterationSamples{"2"sv};
constexpr std::array kWindowSamples{"3"sv, "7"sv, "41"sv};
constexpr std::array kMinContrastSamples{"0"sv};

constexpr std::array<ParamInfo, 9> kParams = {{
    {Param::border, "--border", "MODE", "pixels outside the image", ParamKind::word, 0, 0,
     "replicate|reflect101|constant[:V]", kBorderSamples, std::nullopt},
    {Param::sigma, "--sigma", "S", "Gaussian sigma", ParamKind::real, 0.0, kMaxSigma, "",
     kSigmaSamples, std::nullopt},
    {Param::sobel_output, "--output", "WHAT", "what Sobel outputs", ParamKind::word, 0, 0,
     "magnitude|l1|dx|dy", kSobelSamples, std::nullopt},
    {Param::per_channel,
     "--per-channel",
     "",
     "one histogram per channel instead of gray",
     ParamKind::flag,
     0,
     0,
     "",
     {},
     std::nullopt},
    {Param::se, "--se", "SE", "structuring element", ParamKind::word, 1, kMaxSeSize,
     "rect|cross|ellipse:WxH", kSeSamples, std::nullopt},
    {Param::iterations, "--iterations", "N", "repetitions", ParamKind::integer, 1, kMaxIterations,
     "", kIterationSamples, std::nullopt},
    {Param::adaptive,
     "--adaptive",
     "",
     "local thresholds over a window",
     ParamKind::flag,
     0,
     0,
     "",
     {},
     std::nullopt},
    {Param::window, "--window", "W", "odd window size", ParamKind::integer, 1, kMaxWindow, "",
     kWindowSamples, Param::adaptive},
    {Param::min_contrast, "--min-contrast", "C", "a window flatter than this is background",
     ParamKind::integer, 0, kMaxMinContrast, "", kMinContrastSamples, Param::adaptive},
}};

constexpr std::array<Param, 0> kNoParams{};
constexpr std::array kGaussianParams{Param::sigma, Param::border};
constexpr std::array kSobelParams{Param::sobel_output, Param::border};
constexpr std::array kSharpenParams{Param::border};
constexpr std::array kHistogramParams{Param::per_channel};
constexpr std::array kSegmentParams{Param::adaptive, Param::window, Param::min_contrast};
constexpr std::array kMorphologyParams{Param::se, Param::iterations};

constexpr int kFilter3x3Radius = 1;
constexpr OpTraits kGrayResult{.gray_result = true};
constexpr OpTraits morphology(MorphologyOrder order) {
  return OpTraits{.morphology = order, .reach = RowReach::element};
}
constexpr OpTraits kOtsu{
    .gray_result = true, .whole_image = true, .threshold = ThresholdRule::otsu};

constexpr std::array<OpInfo, kAllOps.size()> kOps = {{
    {Op::gray, "gray", "BT.601 luma in Q15; 1-channel output", kNoParams, kGrayResult},
    {Op::gaussian, "gaussian", "5x5 Gaussian blur", kGaussianParams,
     OpTraits{.reach = RowReach::radius, .radius = kGaussianRadius}},
    {Op::sobel, "sobel", "Sobel gradient of gray; 1-channel output", kSobelParams,
     OpTraits{.gray_result = true, .reach = RowReach::radius, .radius = kFilter3x3Radius}},
    {Op::sharpen, "sharpen", "5c - up - down - left - right, saturated", kSharpenParams,
     OpTraits{.reach = RowReach::radius, .radius = kFilter3x3Radius}},
    {Op::histogram, "histogram", "256-bin histogram as .csv or a .png chart", kHistogramParams,
     OpTraits{.whole_image = true, .histogram_result = true}},
    {Op::equalize, "equalize", "histogram equalization (of YCrCb luma for colour images)",
     kNoParams, OpTraits{.whole_image = true}},
    {Op::otsu, "otsu", "Otsu threshold of gray; 1-channel output", kNoParams, kOtsu},
    {Op::segment, "segment", "isodata threshold, global or local (--adaptive)", kSegmentParams,
     OpTraits{.gray_result = true,
              .whole_image = true,
              .threshold = ThresholdRule::isodata,
              .reach = RowReach::window}},
    {Op::erode, "erode", "minimum over the structuring element", kMorphologyParams,
     morphology(MorphologyOrder::erode)},
    {Op::dilate, "dilate", "maximum over the structuring element", kMorphologyParams,
     morphology(MorphologyOrder::dilate)},
    {Op::open, "open", "erode then dilate", kMorphologyParams,
     morphology(MorphologyOrder::erode_then_dilate)},
    {Op::close, "close", "dilate then erode", kMorphologyParams,
     morphology(MorphologyOrder::dilate_then_erode)},
    {Op::pool, "pool", "2x2 max pooling, stride 2; output ceil(W/2) x ceil(H/2)", kNoParams,
     OpTraits{.halves_size = true, .reach = RowReach::stride}},
}};

constexpr bool ops_in_enum_order() {
  for (std::size_t i = 0; i < kOps.size(); ++i) {
    if (static_cast<std::size_t>(kOps[i].op) != i || kOps[i].op != kAllOps[i]) return false;
  }
  for (std::size_t i = 0; i < kParams.size(); ++i) {
    if (static_cast<std::size_t>(kParams[i].param) != i) return false;
  }
  return true;
}
static_assert(ops_in_enum_order(), "kOps and kParams follow the enums' order");

/// "1.5", "3", "1000": a number as a person writes it.
std::string number_text(double value) {
  std::ostringstream out;
  out << value;
  return out.str();
}

/// All of `text` as a T by std::from_chars (a decimal integer for int, a number for double);
/// nullopt for empty text or any left over.
template <class T>
std::optional<T> parse_whole(std::string_view text) {
  T value{};
  const auto* end = text.data() + text.size();
  const auto [ptr, ec] = std::from_chars(text.data(), end, value);
  if (ec != std::errc{} || ptr != end || text.empty()) return std::nullopt;
  return value;
}

}  // namespace

std::span<const OpInfo> op_table() { return kOps; }
const OpInfo& op_info(Op op) { return kOps.at(static_cast<std::size_t>(op)); }
std::span<const ParamInfo> param_table() { return kParams; }
const ParamInfo& param_info(Param param) { return kParams.at(static_cast<std::size_t>(param)); }

bool reads(Op op, Param param) {
  const auto& params = op_info(op).params;
  return std::find(params.begin(), params.end(), param) != params.end();
}

std::string ops_reading(Param param) {
  std::vector<std::string_view> names;
  for (const OpInfo& info : kOps) {
    if (reads(info.op, param)) names.push_back(info.name);
  }
  std::string text;
  for (std::size_t i = 0; i < names.size(); ++i) {
    text += i == 0 ? "" : i + 1 == names.size() ? " and " : ", ";
    text += names[i];
  }
  return text;
}

std::string_view op_name(Op op) { return op_info(op).name; }
std::string_view op_summary(Op op) { return op_info(op).summary; }

std::optional<Op> parse_op(std::string_view name) {
  for (const OpInfo& info : kOps) {
    if (info.name == name) return info.op;
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
    const auto value = parse_whole<int>(text.substr(kConstant.size() + 1));
    if (value && *value >= 0 && *value <= top_of(Depth::u16)) {
      return BorderMode{BorderKind::constant, static_cast<std::uint16_t>(*value)};
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
  const auto w = parse_whole<int>(size.substr(0, x));
  const auto h = parse_whole<int>(size.substr(x + 1));
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

namespace {

[[noreturn]] void bad_value(Param param, std::string_view text) {
  const ParamInfo& info = param_info(param);
  std::string accepted;
  switch (info.kind) {
    case ParamKind::flag:
      accepted = "true or false";
      break;
    case ParamKind::integer:
      accepted = "an integer from " + number_text(info.min) + " to " + number_text(info.max);
      if (param == Param::window) accepted = "an odd integer from 1 to " + number_text(info.max);
      break;
    case ParamKind::real:
      accepted = "a number in (" + number_text(info.min) + ", " + number_text(info.max) + "]";
      break;
    case ParamKind::word:
      accepted = std::string(info.choices);
      if (param == Param::se) accepted += " with W and H from 1 to " + number_text(info.max);
      if (param == Param::border) accepted += " with V from 0 to 255";
      break;
  }
  throw UsageError(std::string(info.option) + " must be " + accepted + ", got '" +
                   std::string(text) + "'");
}

/// A value of an integer or real parameter, checked against its range.
/// Whether `value` is one the parameter takes (its range, an integer's wholeness, odd windows).
bool valid_number(Param param, double value) {
  const ParamInfo& info = param_info(param);
  const bool in_range = info.kind == ParamKind::real
                            ? std::isfinite(value) && value > info.min && value <= info.max
                            : value >= info.min && value <= info.max && value == std::floor(value);
  const bool odd = param != Param::window || static_cast<long long>(value) % 2 == 1;
  return in_range && odd;
}

double checked_number(Param param, double value, std::string_view text) {
  if (!valid_number(param, value)) bad_value(param, text);
  return value;
}

}  // namespace

void set_param(Param param, std::string_view text, OpParams& params) {
  const ParamInfo& info = param_info(param);
  if (info.kind == ParamKind::flag) {
    if (text != "true" && text != "false") bad_value(param, text);
    (param == Param::per_channel ? params.per_channel : params.adaptive) = text == "true";
    return;
  }
  if (info.kind == ParamKind::integer || info.kind == ParamKind::real) {
    const auto number = parse_whole<double>(text);
    if (!number) bad_value(param, text);
    const double value = checked_number(param, *number, text);
    switch (param) {
      case Param::sigma:
        params.sigma = value;
        break;
      case Param::iterations:
        params.iterations = static_cast<int>(value);
        break;
      case Param::window:
        params.window = static_cast<int>(value);
        break;
      case Param::min_contrast:
        params.min_contrast = static_cast<int>(value);
        params.min_contrast_given = true;
        break;
      case Param::border:
      case Param::sobel_output:
      case Param::per_channel:
      case Param::se:
      case Param::adaptive:
        throw std::logic_error("set_param: not a number");
    }
    return;
  }
  if (param == Param::border) {
    const auto border = parse_border(text);
    if (!border) bad_value(param, text);
    params.border = *border;
  } else if (param == Param::sobel_output) {
    const auto output = parse_sobel_output(text);
    if (!output) bad_value(param, text);
    params.sobel_output = *output;
  } else {
    const auto se = parse_se(text);
    if (!se) bad_value(param, text);
    params.se = *se;
  }
}

std::string param_text(Param param, const OpParams& params) {
  switch (param) {
    case Param::border:
      return to_string(params.border);
    case Param::sigma:
      return number_text(params.sigma);
    case Param::sobel_output:
      return std::string(to_string(params.sobel_output));
    case Param::per_channel:
      return params.per_channel ? "true" : "false";
    case Param::se:
      return to_string(params.se);
    case Param::iterations:
      return std::to_string(params.iterations);
    case Param::adaptive:
      return params.adaptive ? "true" : "false";
    case Param::window:
      return std::to_string(params.window);
    case Param::min_contrast:
      return std::to_string(params.min_contrast);
  }
  return "?";
}

void validate_params(Op op, const OpParams& params) {
  for (const Param param : op_info(op).params) {
    const ParamInfo& info = param_info(param);
    if (info.needs && param_text(*info.needs, params) != "true") continue;  // not in use
    switch (param) {
      // The values' text only for the message: every call validates (Python's per-call cost).
      case Param::sigma:
        if (!valid_number(param, params.sigma)) bad_value(param, number_text(params.sigma));
        break;
      case Param::iterations:
      case Param::window:
      case Param::min_contrast: {
        const int value = param == Param::iterations ? params.iterations
                          : param == Param::window   ? params.window
                                                     : params.min_contrast;
        if (!valid_number(param, value)) bad_value(param, std::to_string(value));
        break;
      }
      case Param::se:
        if (params.se.width < info.min || params.se.height < info.min ||
            params.se.width > info.max || params.se.height > info.max) {
          bad_value(param, to_string(params.se));
        }
        break;
      case Param::border:  // border, sobel_output and the flags hold only valid values
      case Param::sobel_output:
      case Param::per_channel:
      case Param::adaptive:
        break;
    }
  }
}

void validate_params(Op op, const OpParams& params, Depth depth) {
  validate_params(op, params);
  const int top = top_of(depth);
  const auto levels = [depth] {
    return " (the top of a " + std::to_string(bits_of(depth)) + "-bit image)";
  };
  if (reads(op, Param::border) && params.border.kind == BorderKind::constant &&
      params.border.value > top) {
    throw UsageError("--border " + to_string(params.border) + ": V is above " +
                     std::to_string(top) + levels());
  }
  if (reads(op, Param::min_contrast) && params.adaptive && params.min_contrast > top + 1) {
    throw UsageError("--min-contrast " + std::to_string(params.min_contrast) + " is above " +
                     std::to_string(top + 1) + levels());
  }
}

OpParams at_depth(const OpParams& params, Depth depth) {
  OpParams resolved = params;
  if (depth == Depth::u16 && !params.min_contrast_given) resolved.min_contrast = kMinContrast16;
  return resolved;
}

std::string chain_name(const OpChain& chain) {
  std::string name;
  for (const OpStep& step : chain)
    name += (name.empty() ? "" : ",") + std::string(op_name(step.op));
  return name;
}

void validate_chain(const OpChain& chain) {
  if (chain.empty()) throw UsageError("no op to run");
  for (std::size_t i = 0; i < chain.size(); ++i) {
    if (op_info(chain[i].op).traits.histogram_result && i + 1 != chain.size()) {
      throw UsageError("histogram can only be the last op of a chain (its result is no image)");
    }
    validate_params(chain[i].op, chain[i].params);
  }
}

ImageShape result_shape(Op op, ImageShape input) {
  const OpTraits& traits = op_info(op).traits;
  ImageShape out = input;
  if (traits.gray_result) out.channels = 1;
  if (traits.halves_size) {
    out.width = pool_extent(input.width);
    out.height = pool_extent(input.height);
  }
  return out;
}

}  // namespace parfilter
