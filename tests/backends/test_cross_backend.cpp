// The cross-backend suite: every registered backend x op x variant x shape x channels x
// border (x the parameter sets that matter) against the reference, bit for bit. A backend
// joins by registering; one whose device is absent is skipped with its reason.
//
// Synthetic shapes get the full product. The real images in data/ (astronaut RGB, camera
// gray, horse RGBA) get each op with its default parameters, every variant and, for the ops
// with borders, every border mode, plus adaptive segmentation and per-channel histograms:
// a representative subset that keeps the suite fast.
//
// A threaded backend (BackendInfo::threaded: pthread, OpenMP) gets the whole product at each
// of kThreadCounts, named <backend>_t<N>: 1 (one block), 2 (this machine's cores), 3 (uneven
// blocks) and 7 (more threads than cores, and than the rows of the small shapes).
//
// The slice-safety tests below run the CPU composition and the row kernels over schedulers
// and slices that hand out many small or uneven blocks.
#include <gtest/gtest.h>

#include <algorithm>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "parfilter/backend.hpp"
#include "cpu_backend.hpp"
#include "parfilter/error.hpp"
#include "filter_math.hpp"
#include "reference.hpp"
#include "row_kernels.hpp"
#include "support/test_images.hpp"

namespace parfilter {
namespace {

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

const std::vector<Shape>& synthetic_shapes() {
  // 67x5: the CPU kernels' vector loops with odd tails, transposes with a partial tile.
  static const std::vector<Shape> shapes = {
      {"1x1", 1, 1, ""},     {"1x7", 1, 7, ""},  {"7x1", 7, 1, ""},   {"2x2", 2, 2, ""},
      {"3x5", 3, 5, ""},     {"4x4", 4, 4, ""},  {"17x9", 17, 9, ""}, {"33x31", 33, 31, ""},
      {"64x48", 64, 48, ""}, {"67x5", 67, 5, ""}};
  return shapes;
}

struct DataImage {
  Shape shape;
  int channels;
};
const std::vector<DataImage>& data_images() {
  static const std::vector<DataImage> images = {{{"astronaut", 0, 0, "astronaut.png"}, 3},
                                                {{"camera", 0, 0, "camera.png"}, 1},
                                                {{"horse", 0, 0, "horse.png"}, 4}};
  return images;
}

constexpr std::array kChannelCounts = {1, 3, 4};
constexpr std::array kThreadCounts = {1, 2, 3, 7};
constexpr std::uint8_t kOddBorderValue = 77;
const std::array kBorders = {
    BorderMode{BorderKind::replicate, 0}, BorderMode{BorderKind::reflect101, 0},
    BorderMode{BorderKind::constant, 0}, BorderMode{BorderKind::constant, kOddBorderValue}};

bool uses_border(Op op) { return op == Op::gaussian || op == Op::sobel || op == Op::sharpen; }
bool is_morphology(Op op) {
  return op == Op::erode || op == Op::dilate || op == Op::open || op == Op::close;
}

ParamSet with(std::string name, const std::function<void(OpParams&)>& set) {
  ParamSet p{std::move(name), {}};
  set(p.params);
  return p;
}

/// The parameter sets worth covering for each op on the synthetic shapes.
std::vector<ParamSet> param_sets(Op op) {
  const auto se = [](SeShape shape, int w, int h, int iterations = 1) {
    return [=](OpParams& p) {
      p.se = {shape, w, h};
      p.iterations = iterations;
    };
  };
  switch (op) {
    case Op::gaussian:
      return {with("sigma1p5", [](OpParams& p) { p.sigma = 1.5; }),
              with("sigma0p8", [](OpParams& p) { p.sigma = 0.8; })};
    case Op::sobel:
      return {with("magnitude", [](OpParams& p) { p.sobel_output = SobelOutput::magnitude; }),
              with("l1", [](OpParams& p) { p.sobel_output = SobelOutput::l1; }),
              with("dx", [](OpParams& p) { p.sobel_output = SobelOutput::dx; }),
              with("dy", [](OpParams& p) { p.sobel_output = SobelOutput::dy; })};
    case Op::histogram:
      return {with("gray", [](OpParams&) {}),
              with("perchannel", [](OpParams& p) { p.per_channel = true; })};
    case Op::segment:
      return {with("global", [](OpParams&) {}),
              with("adaptive_w3",
                   [](OpParams& p) {
                     p.adaptive = true;
                     p.window = 3;
                   }),
              with("adaptive_w7_contrast0",
                   [](OpParams& p) {
                     p.adaptive = true;
                     p.window = 7;
                     p.min_contrast = 0;
                   }),
              with("adaptive_w41", [](OpParams& p) {
                p.adaptive = true;
                p.window = 41;
              })};
    case Op::erode:
    case Op::dilate:
    case Op::open:
    case Op::close:
      return {with("rect3x3", se(SeShape::rect, 3, 3)),
              with("rect4x2", se(SeShape::rect, 4, 2)),
              with("cross5x3", se(SeShape::cross, 5, 3)),
              with("ellipse7x5", se(SeShape::ellipse, 7, 5)),
              with("ellipse70x50", se(SeShape::ellipse, 70, 50)),
              with("cross3x5_iter2", se(SeShape::cross, 3, 5, 2)),
              with("rect3x3_iter2", se(SeShape::rect, 3, 3, 2))};
    default:
      return {with("default", [](OpParams&) {})};
  }
}

/// More parameter sets for the CPU kernels' paths (large, even and line elements, elements
/// larger than the image, window sizes), run by the slice-safety test through run_cpu_op: every
/// CPU backend runs the same kernels, so one scheduler family covers them.
std::vector<ParamSet> kernel_param_sets(Op op) {
  const auto se = [](SeShape shape, int w, int h, int iterations = 1) {
    return [=](OpParams& p) {
      p.se = {shape, w, h};
      p.iterations = iterations;
    };
  };
  const auto adaptive = [](int window, int min_contrast) {
    return [=](OpParams& p) {
      p.adaptive = true;
      p.window = window;
      p.min_contrast = min_contrast;
    };
  };
  switch (op) {
    case Op::segment:
      return {with("adaptive_w1", adaptive(1, 0)),
              with("adaptive_w9_contrast256", adaptive(9, 256)),
              with("adaptive_w101", adaptive(101, 1))};
    case Op::erode:
    case Op::dilate:
    case Op::open:
    case Op::close:
      return {with("rect15x15", se(SeShape::rect, 15, 15)),
              with("rect31x31", se(SeShape::rect, 31, 31)),
              with("rect12x6_iter2", se(SeShape::rect, 12, 6, 2)),
              with("rect1x9", se(SeShape::rect, 1, 9)),
              with("rect9x1", se(SeShape::rect, 9, 1)),
              with("cross31x31", se(SeShape::cross, 31, 31)),
              with("ellipse31x31", se(SeShape::ellipse, 31, 31)),
              with("ellipse16x12", se(SeShape::ellipse, 16, 12))};
    default:
      return {};
  }
}

/// The representative subset for the real images.
std::vector<ParamSet> data_param_sets(Op op) {
  std::vector<ParamSet> sets = {with("default", [](OpParams&) {})};
  if (op == Op::segment) {
    sets.push_back(with("adaptive_w31", [](OpParams& p) { p.adaptive = true; }));
  }
  if (op == Op::histogram) {
    sets.push_back(with("perchannel", [](OpParams& p) { p.per_channel = true; }));
  }
  if (is_morphology(op)) {
    sets.push_back(with("ellipse7x5", [](OpParams& p) { p.se = {SeShape::ellipse, 7, 5}; }));
  }
  return sets;
}

std::vector<std::string> backend_variants(const BackendInfo& info, Op op) {
  try {
    return info.create(BackendOptions{})->variants(op);
  } catch (const std::exception&) {
    return {"default"};  // the test itself reports why the backend cannot be created
  }
}

std::vector<Case> all_cases() {
  std::vector<Case> cases;
  const auto add = [&](const BackendInfo& info, int threads, Op op, const std::string& variant,
                       const Shape& shape, int channels, const ParamSet& param) {
    const std::string name(info.name);
    if (!uses_border(op)) {
      cases.push_back({name, threads, op, variant, shape, channels, false, param});
      return;
    }
    for (const BorderMode border : kBorders) {
      ParamSet bordered = param;
      bordered.params.border = border;
      cases.push_back({name, threads, op, variant, shape, channels, true, bordered});
    }
  };
  for (const BackendInfo& info : registered_backends()) {
    std::vector<int> thread_counts = {0};
    if (info.threaded) thread_counts.assign(kThreadCounts.begin(), kThreadCounts.end());
    for (const int threads : thread_counts) {
      for (const Op op : kAllOps) {
        for (const std::string& variant : backend_variants(info, op)) {
          for (const Shape& shape : synthetic_shapes()) {
            for (const int channels : kChannelCounts) {
              for (const ParamSet& param : param_sets(op)) {
                add(info, threads, op, variant, shape, channels, param);
              }
            }
          }
          for (const DataImage& image : data_images()) {
            for (const ParamSet& param : data_param_sets(op)) {
              add(info, threads, op, variant, image.shape, image.channels, param);
            }
          }
        }
      }
    }
  }
  return cases;
}

std::string sanitize(std::string text) {
  for (char& ch : text) {
    if (std::isalnum(static_cast<unsigned char>(ch)) == 0) ch = '_';
  }
  return text;
}

/// The parts separated by `separator` (appends only: GCC 12 warns falsely on "lit" + string).
std::string joined(std::initializer_list<std::string_view> parts, std::string_view separator) {
  std::string text;
  for (const std::string_view part : parts) {
    if (!text.empty()) text.append(separator);
    text.append(part);
  }
  return text;
}

std::string border_label(BorderMode border) {
  if (border.kind != BorderKind::constant) return to_string(border);
  return joined({"constant", std::to_string(border.value)}, "");
}

/// "serial", or "pthread_t3" for a threaded backend run with 3 threads.
std::string backend_label(const std::string& backend, int threads) {
  if (threads == 0) return backend;
  return joined({backend, joined({"t", std::to_string(threads)}, "")}, "_");
}

std::string case_name(const Case& c) {
  const std::string channels = joined({"c", std::to_string(c.channels)}, "");
  const std::string border = c.uses_border ? border_label(c.param.params.border) : "";
  std::string name = joined(
      {backend_label(c.backend, c.threads), op_name(c.op), c.variant, c.shape.name, channels}, "_");
  if (c.uses_border) name = joined({name, border}, "_");
  return sanitize(joined({name, c.param.name}, "_"));
}

/// A fixed seed per synthetic shape and channel count.
std::uint32_t seed_of(const Shape& shape, int channels) {
  constexpr std::uint32_t kWidthFactor = 7919;
  constexpr std::uint32_t kHeightFactor = 104729;
  return static_cast<std::uint32_t>(shape.width) * kWidthFactor +
         static_cast<std::uint32_t>(shape.height) * kHeightFactor +
         static_cast<std::uint32_t>(channels);
}

// ---- caches: inputs, reference outputs (independent of backend and variant), backends ------
std::mutex cache_mutex;

const Image& input_image(const Shape& shape, int channels) {
  static std::map<std::string, Image> cache;
  const std::string key = joined({shape.name, std::to_string(channels)}, "/");
  const std::scoped_lock lock(cache_mutex);
  auto it = cache.find(key);
  if (it == cache.end()) {
    Image img = shape.file.empty() ? test::synthetic_image(shape.width, shape.height, channels,
                                                           seed_of(shape, channels))
                                   : test::load_data_image(shape.file);
    it = cache.emplace(key, std::move(img)).first;
  }
  return it->second;
}

const OpOutput& reference_output(const Case& c, const Image& input) {
  static std::map<std::string, OpOutput> cache;
  const std::string border = c.uses_border ? to_string(c.param.params.border) : "none";
  const std::string key =
      joined({op_name(c.op), c.shape.name, std::to_string(c.channels), c.param.name, border}, "/");
  {
    const std::scoped_lock lock(cache_mutex);
    if (auto it = cache.find(key); it != cache.end()) return it->second;
  }
  OpOutput output = reference::run(c.op, input, c.param.params);
  const std::scoped_lock lock(cache_mutex);
  return cache.emplace(key, std::move(output)).first->second;
}

/// One instance per backend and thread count, kept for the whole run (as the CLI keeps its
/// one backend): a threaded backend starts its workers once.
Backend& backend_named(const std::string& name, int threads) {
  static std::map<std::string, std::unique_ptr<Backend>> cache;
  const std::string label = backend_label(name, threads);
  auto it = cache.find(label);
  if (it == cache.end()) {
    const BackendInfo* info = find_backend(name);
    if (info == nullptr) throw std::runtime_error("backend " + name + " is not registered");
    BackendOptions options;
    options.threads = threads;
    it = cache.emplace(label, info->create(options)).first;
  }
  return *it->second;
}

::testing::AssertionResult same_output(const OpOutput& expected, const OpOutput& actual) {
  if (expected.threshold != actual.threshold) {
    return ::testing::AssertionFailure()
           << "threshold differs: expected " << expected.threshold.value_or(-1) << ", got "
           << actual.threshold.value_or(-1);
  }
  if (expected.histogram.size() != actual.histogram.size()) {
    return ::testing::AssertionFailure()
           << "histogram count differs: expected " << expected.histogram.size() << ", got "
           << actual.histogram.size();
  }
  for (std::size_t h = 0; h < expected.histogram.size(); ++h) {
    for (std::size_t v = 0; v < expected.histogram[h].size(); ++v) {
      if (expected.histogram[h][v] != actual.histogram[h][v]) {
        return ::testing::AssertionFailure()
               << "histogram " << h << " bin " << v << ": expected " << expected.histogram[h][v]
               << ", got " << actual.histogram[h][v];
      }
    }
  }
  return test::same_image(expected.image, actual.image);
}

/// Test names say what a case is; gtest prints the parameter with this too.
void PrintTo(const Case& c, std::ostream* os) { *os << case_name(c); }

class CrossBackend : public ::testing::TestWithParam<Case> {};

TEST_P(CrossBackend, MatchesReference) {
  const Case& c = GetParam();
  Backend& backend = backend_named(c.backend, c.threads);
  const Availability availability = backend.availability();
  if (!availability.present) GTEST_SKIP() << c.backend << ": " << availability.reason;
  if (c.threads != 0) {
    ASSERT_EQ(backend.threads(), c.threads);
  }
  const Image& input = input_image(c.shape, c.channels);
  ASSERT_EQ(input.channels(), c.channels) << "data/" << c.shape.file << " changed channels";
  const OpOutput& expected = reference_output(c, input);
  OpParams params = c.param.params;
  params.variant = c.variant;
  const OpOutput actual = backend.run(c.op, input.view(), params);
  EXPECT_TRUE(same_output(expected, actual));
}

INSTANTIATE_TEST_SUITE_P(AllBackends, CrossBackend, ::testing::ValuesIn(all_cases()),
                         [](const ::testing::TestParamInfo<Case>& info) {
                           return case_name(info.param);
                         });

// ---- slice safety ----------------------------------------------------------------------------
/// Hands out blocks in reverse order, so that no result can depend on the order of blocks.
class SplittingScheduler final : public RowScheduler {
 public:
  /// One row per block (max_rows bounds the rows of any phase), or three uneven blocks.
  enum class Split { one_row, three_uneven };
  SplittingScheduler(Split split, int max_rows) : split_(split), max_rows_(max_rows) {}

  [[nodiscard]] int max_blocks() const override {
    return split_ == Split::one_row ? max_rows_ : kUnevenBlocks;
  }
  void for_each_block(int rows, const std::function<void(RowRange, int)>& fn) override {
    std::vector<RowRange> blocks;
    if (split_ == Split::one_row) {
      for (int y = 0; y < rows; ++y) blocks.push_back({y, y + 1});
    } else {
      const int first_end = rows / 5;  // a short block, a long one, a middle one
      const int second_end = (rows * 3) / 4;
      blocks = {{0, first_end}, {first_end, second_end}, {second_end, rows}};
    }
    for (int b = static_cast<int>(blocks.size()) - 1; b >= 0; --b) {
      if (!blocks[static_cast<std::size_t>(b)].empty()) fn(blocks[static_cast<std::size_t>(b)], b);
    }
  }

 private:
  static constexpr int kUnevenBlocks = 3;
  Split split_;
  int max_rows_;
};

/// Every op and parameter set on odd shapes, through run_cpu_op with many small blocks.
TEST(SliceSafety, RunCpuOpWithSmallAndUnevenBlocks) {
  const std::vector<Shape> shapes = {{"1x7", 1, 7, ""},     {"4x4", 4, 4, ""},
                                     {"5x6", 5, 6, ""},     {"17x9", 17, 9, ""},
                                     {"33x31", 33, 31, ""}, {"67x5", 67, 5, ""}};
  for (const auto split :
       {SplittingScheduler::Split::one_row, SplittingScheduler::Split::three_uneven}) {
    for (const Shape& shape : shapes) {
      SplittingScheduler scheduler(split, shape.height);
      for (const int channels : kChannelCounts) {
        const Image& input = input_image(shape, channels);
        for (const Op op : kAllOps) {
          std::vector<ParamSet> params_to_run = param_sets(op);
          for (ParamSet& extra : kernel_param_sets(op)) params_to_run.push_back(std::move(extra));
          for (const std::string& variant : cpu_variants(op)) {
            for (const ParamSet& param : params_to_run) {
              for (const BorderMode border : kBorders) {
                if (!uses_border(op) && border != kBorders[0]) continue;
                Case c{"slice", 0, op, variant, shape, channels, uses_border(op), param};
                c.param.params.border = border;
                OpParams params = c.param.params;
                params.variant = variant;
                const OpOutput actual = run_cpu_op(scheduler, op, input.view(), params);
                EXPECT_TRUE(same_output(reference_output(c, input), actual)) << case_name(c);
              }
            }
          }
        }
      }
    }
  }
}

/// A copy of rows `keep` of an image in a buffer whose other rows, and guard rows beyond
/// the image, hold poison: a kernel given this view that reads outside `keep` (as an MPI
/// rank holding only its block and halo would) sees poison and gives different bytes.
class PoisonedSlice {
 public:
  PoisonedSlice(const Image& img, RowRange keep) {
    const std::ptrdiff_t stride = img.stride();
    buffer_.resize(static_cast<std::size_t>((img.height() + 2 * kGuardRows) * stride));
    for (std::size_t i = 0; i < buffer_.size(); ++i) buffer_[i] = (i % 2) != 0 ? 255 : 0;
    for (int y = keep.begin; y < keep.end; ++y) {
      std::copy_n(img.row(y), stride, buffer_.data() + (kGuardRows + y) * stride);
    }
    view_ = ConstImageView(buffer_.data() + (kGuardRows + keep.begin) * stride, img.width(),
                           img.height(), img.channels(), stride, keep);
  }
  [[nodiscard]] const ConstImageView& view() const { return view_; }

 private:
  static constexpr int kGuardRows = 8;
  std::vector<std::uint8_t> buffer_;
  ConstImageView view_;
};

struct KernelCase {
  std::string name;
  Op op;
  OpParams params;
  int channels;
  /// The input rows the kernel may read for output rows `rows` of an image `height` tall.
  std::function<RowRange(RowRange rows, int height)> input_rows;
  std::function<void(const ConstImageView&, const ImageView&, RowRange, const OpOutput&)> run;
};

std::vector<KernelCase> kernel_cases() {
  using kernels::widen;
  std::vector<KernelCase> cases;
  for (const BorderMode border : kBorders) {
    OpParams p;
    p.border = border;
    const auto halo = [](int h) {
      return [h](RowRange rows, int height) { return widen(rows, h, height); };
    };
    const auto weights = gaussian_weights(p.sigma);
    const auto lut = gaussian_lut(weights);
    const std::string b = border_label(border);
    cases.push_back({"gaussian_direct_" + b, Op::gaussian, p, 4, halo(kernels::kGaussianHalo),
                     [=](auto& src, auto& dst, RowRange rows, const OpOutput&) {
                       kernels::gaussian5x5_direct_rows(src, dst, rows, weights, border);
                     }});
    cases.push_back({"gaussian_lut_" + b, Op::gaussian, p, 3, halo(kernels::kGaussianHalo),
                     [=](auto& src, auto& dst, RowRange rows, const OpOutput&) {
                       kernels::gaussian5x5_lut_rows(src, dst, rows, lut, border);
                     }});
    cases.push_back({"gaussian_separable_" + b, Op::gaussian, p, 4, halo(kernels::kGaussianHalo),
                     [=](auto& src, auto& dst, RowRange rows, const OpOutput&) {
                       kernels::gaussian5x5_separable_rows(src, dst, rows, weights, border);
                     }});
    cases.push_back({"sobel_" + b, Op::sobel, p, 1, halo(kernels::kSobelHalo),
                     [=](auto& src, auto& dst, RowRange rows, const OpOutput&) {
                       kernels::sobel_rows(src, dst, rows, border, SobelOutput::magnitude);
                     }});
    cases.push_back({"sharpen_" + b, Op::sharpen, p, 3, halo(kernels::kSharpenHalo),
                     [=](auto& src, auto& dst, RowRange rows, const OpOutput&) {
                       kernels::sharpen_rows(src, dst, rows, border);
                     }});
  }
  for (const BorderMode border : {kBorders[1], kBorders[3]}) {
    OpParams p;
    p.border = border;
    const std::string b = border_label(border);
    const auto halo = [](int h) {
      return [h](RowRange rows, int height) { return kernels::widen(rows, h, height); };
    };
    cases.push_back({"sobel_naive_" + b, Op::sobel, p, 1, halo(kernels::kSobelHalo),
                     [=](auto& src, auto& dst, RowRange rows, const OpOutput&) {
                       kernels::sobel_naive_rows(src, dst, rows, border, SobelOutput::magnitude);
                     }});
    cases.push_back({"sharpen_naive_" + b, Op::sharpen, p, 4, halo(kernels::kSharpenHalo),
                     [=](auto& src, auto& dst, RowRange rows, const OpOutput&) {
                       kernels::sharpen_naive_rows(src, dst, rows, border);
                     }});
  }
  using kernels::MorphMethod;
  for (const SeSpec spec : {SeSpec{SeShape::rect, 4, 4}, SeSpec{SeShape::ellipse, 7, 5},
                            SeSpec{SeShape::rect, 15, 15}, SeSpec{SeShape::cross, 9, 6}}) {
    for (const MorphMethod method :
         {MorphMethod::fastest, MorphMethod::vhgw, MorphMethod::separable, MorphMethod::naive}) {
      for (const Op op : {Op::erode, Op::dilate}) {
        OpParams p;
        p.se = spec;
        const auto se = make_structuring_element(spec);
        const auto morph = op == Op::erode ? kernels::MorphOp::erode : kernels::MorphOp::dilate;
        cases.push_back(
            {joined(
                 {op_name(op), sanitize(to_string(spec)), std::to_string(static_cast<int>(method))},
                 "_"),
             op, p, 4,
             [se](RowRange rows, int height) {
               return RowRange{std::max(0, rows.begin - kernels::morphology_halo_above(se)),
                               std::min(height, rows.end + kernels::morphology_halo_below(se))};
             },
             [=](auto& src, auto& dst, RowRange rows, const OpOutput&) {
               kernels::morphology_rows(src, dst, rows, se, morph, method);
             }});
      }
    }
  }
  OpParams adaptive;
  adaptive.adaptive = true;
  adaptive.window = 5;
  cases.push_back({"adaptive_segment_w5", Op::segment, adaptive, 1,
                   [](RowRange rows, int height) { return kernels::widen(rows, 2, height); },
                   [=](auto& src, auto& dst, RowRange rows, const OpOutput& expected) {
                     kernels::adaptive_segment_rows(src, dst, rows, adaptive.window,
                                                    adaptive.min_contrast, *expected.threshold);
                   }});
  cases.push_back({"pool", Op::pool, OpParams{}, 3,
                   [](RowRange rows, int height) {
                     return RowRange{2 * rows.begin, std::min(2 * rows.end, height)};
                   },
                   [](auto& src, auto& dst, RowRange rows, const OpOutput&) {
                     kernels::pool2x2_rows(src, dst, rows);
                   }});
  return cases;
}

/// Each neighbourhood kernel, given only its block's rows plus halo, gives the reference's
/// bytes, for one-row blocks and uneven blocks.
TEST(SliceSafety, KernelsReadOnlyTheirHalo) {
  const std::vector<Shape> shapes = {
      {"1x7", 1, 7, ""}, {"17x9", 17, 9, ""}, {"33x31", 33, 31, ""}, {"67x5", 67, 5, ""}};
  for (const KernelCase& kc : kernel_cases()) {
    for (const Shape& shape : shapes) {
      const Image& input = input_image(shape, kc.channels);
      const OpOutput expected = reference::run(kc.op, input, kc.params);
      const int out_height = expected.image.height();
      for (const auto split :
           {SplittingScheduler::Split::one_row, SplittingScheduler::Split::three_uneven}) {
        SplittingScheduler scheduler(split, out_height);
        Image actual(expected.image.width(), out_height, expected.image.channels());
        scheduler.for_each_block(out_height, [&](RowRange rows, int) {
          const PoisonedSlice slice(input, kc.input_rows(rows, input.height()));
          kc.run(slice.view(), actual.view().slice(rows), rows, expected);
        });
        EXPECT_TRUE(test::same_image(expected.image, actual))
            << kc.name << " on " << shape.name
            << (split == SplittingScheduler::Split::one_row ? ", one row per block" : ", 3 blocks");
      }
    }
  }
}

// ---- threaded backends ----------------------------------------------------------------------
TEST(ThreadedBackends, ThreadsOptionSetsTheWorkerCount) {
  constexpr int kThreads = 3;
  for (const BackendInfo& info : registered_backends()) {
    if (!info.threaded) continue;
    EXPECT_EQ(info.create(BackendOptions{kThreads, "", ""})->threads(), kThreads) << info.name;
    EXPECT_GE(info.create(BackendOptions{})->threads(), 1) << info.name;
    EXPECT_THROW((void)info.create(BackendOptions{-1, "", ""}), UsageError) << info.name;
  }
}

/// Far more threads than rows: the blocks past the last row are empty and must be harmless.
TEST(ThreadedBackends, MoreThreadsThanRows) {
  constexpr int kManyThreads = 16;
  constexpr int kChannels = 3;
  const std::vector<Shape> shapes = {{"5x3", 5, 3, ""}, {"9x1", 9, 1, ""}};
  for (const BackendInfo& info : registered_backends()) {
    if (!info.threaded) continue;
    const auto backend = info.create(BackendOptions{kManyThreads, "", ""});
    for (const Shape& shape : shapes) {
      const Image& input = input_image(shape, kChannels);
      for (const Op op : kAllOps) {
        const Case c{std::string(info.name), kManyThreads, op, "default", shape, kChannels, false,
                     {"default", {}}};
        EXPECT_TRUE(same_output(reference_output(c, input), backend->run(op, input.view(), {})))
            << case_name(c);
      }
    }
  }
}

TEST(BlockRange, CoversRowsInNearEqualBlocks) {
  EXPECT_EQ(block_range(10, 3, 0), (RowRange{0, 4}));
  EXPECT_EQ(block_range(10, 3, 1), (RowRange{4, 7}));
  EXPECT_EQ(block_range(10, 3, 2), (RowRange{7, 10}));
  EXPECT_TRUE(block_range(2, 4, 3).empty());
  EXPECT_EQ(block_range(2, 4, 3).begin, 2);
}

}  // namespace
}  // namespace parfilter
