// Slice safety of the CPU composition and row kernels: every op and parameter set through
// run_cpu_op over schedulers that hand out one-row and uneven blocks in reverse order, and
// each neighbourhood kernel given only its block's rows plus halo (the other rows poisoned),
// as an MPI rank holding only its block would be. Every result equals the reference's.
#include <gtest/gtest.h>

#include <algorithm>
#include <functional>
#include <string>
#include <vector>

#include "cpu_backend.hpp"
#include "filter_math.hpp"
#include "reference.hpp"
#include "row_kernels.hpp"
#include "support/op_cases.hpp"
#include "support/test_images.hpp"

namespace parfilter {
namespace {

using namespace test;  // NOLINT: the case vocabulary of these suites

ParamSet with(std::string name, const std::function<void(OpParams&)>& set) {
  ParamSet p{std::move(name), {}};
  set(p.params);
  return p;
}

/// A parameter set for the CPU kernels' paths, run for every op that reads all of `reads`.
struct KernelParamSet {
  std::vector<Param> reads;
  ParamSet set;
};

/// More parameter sets for the CPU kernels' paths (large, even and line elements, elements
/// larger than the image, window sizes), run by the slice-safety test through run_cpu_op: every
/// CPU backend runs the same kernels, so one scheduler family covers them. Keyed by the
/// parameters they set, so that an op reading none of them takes the table's own sets alone.
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
  const std::vector<Param> adaptive_params = {Param::adaptive, Param::window, Param::min_contrast};
  const std::vector<Param> se_params = {Param::se, Param::iterations};
  const std::vector<KernelParamSet> all = {
      {adaptive_params, with("adaptive_w1", adaptive(1, 0))},
      {adaptive_params, with("adaptive_w9_contrast256", adaptive(9, 256))},
      {adaptive_params, with("adaptive_w101", adaptive(101, 1))},
      {se_params, with("rect15x15", se(SeShape::rect, 15, 15))},
      {se_params, with("rect31x31", se(SeShape::rect, 31, 31))},
      {se_params, with("rect12x6_iter2", se(SeShape::rect, 12, 6, 2))},
      {se_params, with("rect1x9", se(SeShape::rect, 1, 9))},
      {se_params, with("rect9x1", se(SeShape::rect, 9, 1))},
      {se_params, with("cross31x31", se(SeShape::cross, 31, 31))},
      {se_params, with("ellipse31x31", se(SeShape::ellipse, 31, 31))},
      {se_params, with("ellipse16x12", se(SeShape::ellipse, 16, 12))},
  };
  std::vector<ParamSet> sets;
  for (const KernelParamSet& kernel_set : all) {
    if (std::all_of(kernel_set.reads.begin(), kernel_set.reads.end(),
                    [op](Param param) { return reads(op, param); })) {
      sets.push_back(kernel_set.set);
    }
  }
  return sets;
}

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
              for (const BorderMode border : border_modes()) {
                if (!uses_border(op) && border != border_modes()[0]) continue;
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
  /// The input rows of a kernel that reads `h` rows either side of its output.
  const auto halo = [](int h) {
    return [h](RowRange rows, int height) { return widen(rows, h, height); };
  };
  for (const BorderMode border : border_modes()) {
    OpParams p;
    p.border = border;
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
  for (const BorderMode border : {border_modes()[1], border_modes()[3]}) {
    OpParams p;
    p.border = border;
    const std::string b = border_label(border);
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

TEST(BlockRange, CoversRowsInNearEqualBlocks) {
  EXPECT_EQ(block_range(10, 3, 0), (RowRange{0, 4}));
  EXPECT_EQ(block_range(10, 3, 1), (RowRange{4, 7}));
  EXPECT_EQ(block_range(10, 3, 2), (RowRange{7, 10}));
  EXPECT_TRUE(block_range(2, 4, 3).empty());
  EXPECT_EQ(block_range(2, 4, 3).begin, 2);
}

}  // namespace
}  // namespace parfilter
