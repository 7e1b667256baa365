// The matrix parfilter-bench runs: ops x variants x backends x image sizes x channels x SE
// sizes x thread counts, expanded into cases. A case is one op on one generated image; each
// case is timed at every thread count, with every selected backend and peer in turns.
#pragma once

#include <string>
#include <vector>

#include "parfilter/op_set.hpp"

namespace parfilter::bench {

struct ImageSize {
  int width = 0;
  int height = 0;
};

/// "1024" (square) or "2580x1319"; throws std::invalid_argument otherwise.
[[nodiscard]] ImageSize parse_size(const std::string& text);

struct Matrix {
  std::vector<std::string> backends;  ///< empty: every built backend
  std::vector<std::string> ops;       ///< op names, or "all"
  /// "default" (each backend's default variant), "all" (every variant), or variant names
  /// (each backend runs those of them it has).
  std::vector<std::string> variants = {"default"};
  std::vector<std::string> sizes = {"256", "1024"};
  std::vector<int> channels = {4};
  std::vector<int> depths = {8};  ///< bits per sample: 8, 16
  std::vector<int> se = {3};      ///< square SE sides, for erode, dilate, open and close
  std::vector<int> threads;       ///< empty: 1 and every hardware thread
  int batch = 0;                  ///< > 0: time run_batch over this many copies of the image
};

/// One op with its parameters on one generated image.
struct Case {
  Op op = Op::gray;
  OpParams params;
  ImageSize size;
  int channels = 4;
  Depth depth = Depth::u8;
  int se = 0;  ///< the SE side, 0 for ops without one
};

/// The default ops: every op but open and close (an erosion and a dilation each).
[[nodiscard]] std::vector<std::string> default_ops();

/// The cases of `matrix`: sizes outer, then channels, depths, ops and SE sizes (so that one image
/// is generated per size, channel count and depth). Throws std::invalid_argument on a bad name.
[[nodiscard]] std::vector<Case> expand_cases(const Matrix& matrix);

/// Whether `op` takes a structuring element.
[[nodiscard]] bool has_se(Op op);

}  // namespace parfilter::bench
