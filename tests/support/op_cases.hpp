// The cases the backend and kernel suites run, derived from the op table (op_set.hpp): each op
// with its default parameters and, one at a time, each sample value of each parameter it
// reads; ops that read --border cross every set with every border sample. Plus the shapes
// (synthetic, down to 1x1, and data/ photographs), the inputs and reference outputs (cached),
// the names tests print, and the comparison of two outputs.
#pragma once

#include <gtest/gtest.h>

#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "parfilter/backend.hpp"
#include "parfilter/op_set.hpp"
#include "support/test_images.hpp"

namespace parfilter::test {

struct Shape {
  std::string name;
  int width = 0;
  int height = 0;
  std::string file;  ///< data/ image (its own channels), empty for a synthetic image
};

struct ParamSet {
  std::string name;
  OpParams params;
};

struct Case {
  std::string backend;
  int threads = 0;  ///< BackendOptions::threads for a threaded backend, else 0 (its default)
  Op op = Op::gray;
  std::string variant;
  Shape shape;
  int channels = 1;
  bool uses_border = false;
  ParamSet param;
};

struct DataImage {
  Shape shape;
  int channels;
};

inline constexpr std::array kChannelCounts = {1, 3, 4};

[[nodiscard]] const std::vector<Shape>& synthetic_shapes();
[[nodiscard]] const std::vector<DataImage>& data_images();
/// The border modes of the table: the default and every sample.
[[nodiscard]] const std::vector<BorderMode>& border_modes();
[[nodiscard]] bool uses_border(Op op);

/// The default set, then each parameter's samples one at a time (a flag's set alone).
[[nodiscard]] std::vector<ParamSet> param_sets(Op op);
/// The representative subset for the real images: the default, and the flags' sets.
[[nodiscard]] std::vector<ParamSet> data_param_sets(Op op);

[[nodiscard]] std::string sanitize(std::string text);
/// The parts separated by `separator` (appends only: GCC 12 warns falsely on "lit" + string).
[[nodiscard]] std::string joined(std::initializer_list<std::string_view> parts,
                                 std::string_view separator);
[[nodiscard]] std::string border_label(BorderMode border);
/// "serial", or "pthread_t3" for a threaded backend run with 3 threads.
[[nodiscard]] std::string backend_label(const std::string& backend, int threads);
[[nodiscard]] std::string case_name(const Case& c);

/// The input of a shape with `channels` (a fixed seed per synthetic shape), cached.
[[nodiscard]] const Image& input_image(const Shape& shape, int channels);
/// The reference's output for a case (independent of backend and variant), cached.
[[nodiscard]] const OpOutput& reference_output(const Case& c, const Image& input);
/// One instance per backend and thread count, kept for the whole run.
[[nodiscard]] Backend& backend_named(const std::string& name, int threads);

}  // namespace parfilter::test
