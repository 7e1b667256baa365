// The op set: every filter parfilter runs, its parameters and its result.
// docs/FILTERS.md specifies what each op computes; every backend implements all of them.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <span>
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

inline constexpr std::array kAllOps = {
    Op::gray,    Op::gaussian, Op::sobel,  Op::sharpen, Op::histogram, Op::equalize, Op::otsu,
    Op::segment, Op::erode,    Op::dilate, Op::open,    Op::close,     Op::pool};

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
  std::uint16_t value = 0;  ///< used by BorderKind::constant only, in the image's levels
  friend bool operator==(const BorderMode&, const BorderMode&) = default;
};

/// Parses "replicate", "reflect101", "constant" or "constant:V" (0 <= V <= 65535; an 8-bit
/// image takes V <= 255, validate_params at its depth checks that).
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
/// The largest adaptive window (--window). Every backend's segment kernel relies on it for its
/// overflow reasoning; the CPU and CUDA kernels check it (static_assert), OpenCL C states it.
inline constexpr int kMaxWindow = 4095;

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
  int min_contrast = 15;  ///< segment --adaptive, in the image's levels
  /// Whether min_contrast was given: if not, a 16-bit image takes kMinContrast16 (at_depth).
  bool min_contrast_given = false;
};

/// segment --adaptive's default --min-contrast at 16 bits: 15 * 257, the 8-bit default's level.
inline constexpr int kMinContrast16 = 15 * 257;

/// params as an image of `depth` takes them: at 16 bits, min_contrast's 16-bit default unless
/// it was given.
[[nodiscard]] OpParams at_depth(const OpParams& params, Depth depth);

// ---- the op table: each op and each parameter declared once ----------------------------------
// The command line's options, their validation, --help, --list, the tests' parameter sets and
// the benchmarks' matrix all come from these two tables (common/src/op_set.cpp).

/// A parameter some ops read. Each is one command-line option.
enum class Param : std::uint8_t {
  border,
  sigma,
  sobel_output,
  per_channel,
  se,
  iterations,
  adaptive,
  window,
  min_contrast,
};

inline constexpr std::size_t kParamCount = static_cast<std::size_t>(Param::min_contrast) + 1;

enum class ParamKind : std::uint8_t {
  flag,     ///< present or not
  integer,  ///< within [min, max]
  real,     ///< within (min, max]
  word,     ///< text in a small grammar (choices says which)
};

struct ParamInfo {
  Param param;
  std::string_view option;      ///< "--sigma"
  std::string_view value_name;  ///< "S"; empty for a flag
  std::string_view help;
  ParamKind kind;
  double min = 0.0;  ///< integer and real: the range
  double max = 0.0;
  std::string_view choices;  ///< word: the grammar, as --help shows it
  /// Values the tests and benchmarks try besides the default, as the command line spells them.
  std::span<const std::string_view> samples;
  /// The flag this one needs (window and min_contrast need adaptive).
  std::optional<Param> needs;
};

/// The erosions and dilations a morphology op runs, in this order, each --iterations times.
enum class MorphologyOrder : std::uint8_t {
  none,  ///< not a morphology op
  erode,
  dilate,
  erode_then_dilate,  ///< open
  dilate_then_erode,  ///< close
};

/// How far an op's output rows reach into its input's rows (for a whole-image op, those of
/// its last pass, once the statistic is known): the halo a strip of rows needs around it.
enum class RowReach : std::uint8_t {
  none,     ///< a pixel's own row: point ops, and equalize's, otsu's and segment's mapping
  radius,   ///< OpTraits::radius rows on either side (the 5x5 Gaussian, the 3x3 filters)
  element,  ///< half the structuring element's height for each of its passes (morphology)
  window,   ///< half of --window with --adaptive (segment), none without
  stride,   ///< kPoolStride input rows for each output row (pool)
};

/// How an op that thresholds the whole image finds its global level in the gray histogram.
enum class ThresholdRule : std::uint8_t {
  none,     ///< the op does not threshold
  otsu,     ///< the maximum between-class variance
  isodata,  ///< the isodata iteration (segment)
};

/// What an op's result is and what it reads, for the code that handles ops generically.
struct OpTraits {
  /// erode, dilate, open, close (--se and --iterations): their steps.
  MorphologyOrder morphology = MorphologyOrder::none;
  bool gray_result = false;  ///< one channel whatever the input's
  /// Reads a statistic of the whole image (its histogram), so that independent row blocks
  /// cannot compute it alone (MPI's slabs; the global threshold of segment, even --adaptive).
  bool whole_image = false;
  bool halves_size = false;  ///< pool: ceil(W/2) x ceil(H/2)
  bool histogram_result = false;
  /// Its global threshold's rule; an op with one also gives it (--print-threshold).
  ThresholdRule threshold = ThresholdRule::none;
  RowReach reach = RowReach::none;
  int radius = 0;  ///< RowReach::radius's rows

  [[nodiscard]] constexpr bool gives_threshold() const { return threshold != ThresholdRule::none; }
};

struct OpInfo {
  Op op;
  std::string_view name;
  std::string_view summary;
  std::span<const Param> params;  ///< the parameters it reads
  OpTraits traits;
};

[[nodiscard]] std::span<const OpInfo> op_table();
[[nodiscard]] const OpInfo& op_info(Op op);
[[nodiscard]] std::span<const ParamInfo> param_table();
[[nodiscard]] const ParamInfo& param_info(Param param);
/// Whether `op` reads `param`.
[[nodiscard]] bool reads(Op op, Param param);

/// The ops that read `param`, as "a, b and c".
[[nodiscard]] std::string ops_reading(Param param);

/// Sets `param` in `params` from its command-line text (a flag from "true"/"false"); throws
/// UsageError naming the option and what it accepts.
void set_param(Param param, std::string_view text, OpParams& params);
/// The value of `param` in `params`, spelled as the command line takes it.
[[nodiscard]] std::string param_text(Param param, const OpParams& params);

/// Checks every parameter `op` reads against its range; throws UsageError naming the bad one.
void validate_params(Op op, const OpParams& params);
/// The same for an image of `depth`: --border constant:V and --min-contrast within 0..T.
void validate_params(Op op, const OpParams& params, Depth depth);

/// The size and channels of `op`'s image result for an input of this size and channels.
struct ImageShape {
  int width = 0;
  int height = 0;
  int channels = 0;
};
[[nodiscard]] ImageShape result_shape(Op op, ImageShape input);

/// pool's window and stride.
inline constexpr int kPoolStride = 2;
/// ceil(n / 2): pool's output extent for an input extent n.
[[nodiscard]] constexpr int pool_extent(int n) { return (n + kPoolStride - 1) / kPoolStride; }
/// The input rows under output rows `rows` of the pool of an image `height` tall.
[[nodiscard]] constexpr RowRange pool_input_rows(RowRange rows, int height) {
  return {kPoolStride * rows.begin,
          kPoolStride * rows.end < height ? kPoolStride * rows.end : height};
}

inline constexpr int kHistogramBins = 256;
using HistogramBins = std::array<std::uint64_t, kHistogramBins>;

/// One step of a chain of ops: the op and its own parameters (variant included).
struct OpStep {
  Op op = Op::gray;
  OpParams params;
};

/// Ops run in order, each on the previous one's image ("gray,gaussian,sobel"). Only the last
/// step may be histogram (its result is no image). One op is a chain of one step.
using OpChain = std::vector<OpStep>;

/// The chain's ops joined by commas.
[[nodiscard]] std::string chain_name(const OpChain& chain);
/// Checks the chain's shape (not empty, histogram only last) and every step's parameters;
/// throws UsageError.
void validate_chain(const OpChain& chain);

/// What an op produces. Every op but histogram fills `image`; histogram fills `histogram`
/// (one entry for gray, or one per channel with --per-channel); otsu and segment also give
/// the global threshold they applied.
struct OpOutput {
  Image image;
  std::vector<HistogramBins> histogram;
  /// histogram's result for a 16-bit input: 65536 bins each, in the same order (histogram
  /// is then empty).
  std::vector<std::vector<std::uint64_t>> wide_histogram;
  std::optional<int> threshold;
};

}  // namespace parfilter
