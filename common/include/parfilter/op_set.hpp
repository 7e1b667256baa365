// The op set: every filter parfilter runs, its parameters and its result.
// docs/FILTERS.md specifies what each op computes; every backend implements all of them.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "parfilter/image.hpp"

namespace parfilter {

enum class Op : std::uint8_t {
  gray,
  gaussian,
  sobel,
  sharpen,
  histogram,
  equalize,
  otsu,
  segment,
  erode,
  dilate,
  open,
  close,
  pool,
};

inline constexpr std::array kAllOps = {Op::gray,     Op::gaussian, Op::sobel, Op::sharpen,
                                       Op::histogram, Op::equalize, Op::otsu,  Op::segment,
                                       Op::erode,    Op::dilate,   Op::open,  Op::close,
                                       Op::pool};

[[nodiscard]] std::string_view op_name(Op op);
/// One line describing the op, for --list and --help.
[[nodiscard]] std::string_view op_summary(Op op);
[[nodiscard]] std::optional<Op> parse_op(std::string_view name);

/// How gaussian, sobel and sharpen see pixels outside the image.
enum class BorderKind : std::uint8_t {
  replicate,   ///< the nearest edge pixel: aaa|abcd|ddd
  reflect101,  ///< mirror without repeating the edge: cb|abcd|cb
  constant,    ///< a fixed value V: VV|abcd|VV
};

struct BorderMode {
  BorderKind kind = BorderKind::replicate;
  std::uint8_t value = 0;  ///< used by BorderKind::constant only
  friend bool operator==(const BorderMode&, const BorderMode&) = default;
};

/// Parses "replicate", "reflect101", "constant" or "constant:V" (0 <= V <= 255).
[[nodiscard]] std::optional<BorderMode> parse_border(std::string_view text);
[[nodiscard]] std::string to_string(BorderMode border);

enum class SobelOutput : std::uint8_t { magnitude, l1, dx, dy };
[[nodiscard]] std::optional<SobelOutput> parse_sobel_output(std::string_view text);
[[nodiscard]] std::string_view to_string(SobelOutput output);

enum class SeShape : std::uint8_t { rect, cross, ellipse };

/// A structuring element as the user names it: "rect:3x3", "cross:5x5", "ellipse:7x5".
struct SeSpec {
  SeShape shape = SeShape::rect;
  int width = 3;
  int height = 3;
  friend bool operator==(const SeSpec&, const SeSpec&) = default;
};

/// Parses "SHAPE:WxH"; W and H from 1 to kMaxSeSize.
[[nodiscard]] std::optional<SeSpec> parse_se(std::string_view text);
[[nodiscard]] std::string to_string(const SeSpec& se);
inline constexpr int kMaxSeSize = 255;

/// Every parameter any op takes. Each op reads the ones docs/FILTERS.md lists for it.
struct OpParams {
  std::string variant;  ///< empty: the backend's default variant
  BorderMode border{};
  double sigma = 1.5;
  SobelOutput sobel_output = SobelOutput::magnitude;
  bool per_channel = false;  ///< histogram: one histogram per channel instead of gray
  SeSpec se{};
  int iterations = 1;
  bool adaptive = false;  ///< segment
  int window = 31;        ///< segment --adaptive: odd window size
  int min_contrast = 15;  ///< segment --adaptive
};

/// Checks the parameters an op reads; throws parfilter::UsageError naming the bad one.
void validate_params(Op op, const OpParams& params);

inline constexpr int kHistogramBins = 256;
using HistogramBins = std::array<std::uint64_t, kHistogramBins>;

/// What an op produces. Every op but histogram fills `image`; histogram fills `histogram`
/// (one entry for gray, or one per channel with --per-channel); otsu and segment also give
/// the global threshold they applied.
struct OpOutput {
  Image image;
  std::vector<HistogramBins> histogram;
  std::optional<int> threshold;
};

}  // namespace parfilter
