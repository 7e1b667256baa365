// The CPU backend seam: each op composed from the shared row kernels over a RowScheduler.
// A multi-phase op (sobel = gray then gradients; otsu = gray and histogram, threshold, apply)
// runs one for_each_block per phase; its return is the barrier between phases. Each block
// gets only the input rows its kernel may read (its rows widened by the halo), so a kernel
// that strays outside them trips the view's bounds assertion in debug builds.
#include "parfilter/cpu_backend.hpp"

#include <algorithm>
#include <chrono>
#include <stdexcept>
#include <utility>

#include "parfilter/error.hpp"
#include "parfilter/filter_math.hpp"
#include "parfilter/row_kernels.hpp"

namespace parfilter {
namespace {

constexpr std::string_view kDefaultVariant = "default";
constexpr std::string_view kGaussianDirect = "direct";
constexpr std::string_view kGaussianLut = "lut";
constexpr std::string_view kGaussianSeparable = "separable";
constexpr int kPoolStride = 2;

using kernels::MorphOp;

/// A block's input: `rows` widened by halo_above / halo_below, clipped to the image.
ConstImageView halo_slice(const ConstImageView& src, RowRange rows, int halo_above,
                          int halo_below) {
  return src.slice(
      {std::max(0, rows.begin - halo_above), std::min(src.height(), rows.end + halo_below)});
}

ConstImageView halo_slice(const ConstImageView& src, RowRange rows, int halo) {
  return halo_slice(src, rows, halo, halo);
}

/// The gray plane of an input: the input itself when it is gray, else a converted copy.
/// With `hist`, also counts the gray values, fused into the same pass: one histogram per
/// block, merged after the join.
struct GrayPlane {
  Image storage;
  ConstImageView view;
};

GrayPlane gray_plane(RowScheduler& scheduler, const ConstImageView& input,
                     HistogramBins* hist = nullptr) {
  GrayPlane plane;
  const bool convert = input.channels() != 1;
  if (convert) {
    plane.storage = Image(input.width(), input.height(), 1);
    plane.view = plane.storage.view();
  } else {
    plane.view = input;
  }
  std::vector<HistogramBins> block_hists(hist != nullptr ? scheduler.max_blocks() : 0);
  const ImageView out = convert ? plane.storage.view() : ImageView{};
  scheduler.for_each_block(input.height(), [&](RowRange rows, int block) {
    if (convert) kernels::gray_rows(input.slice(rows), out.slice(rows), rows);
    if (hist != nullptr) {
      kernels::histogram_rows(plane.view.slice(rows), rows, 0,
                              block_hists[static_cast<std::size_t>(block)]);
    }
  });
  if (hist != nullptr) {
    *hist = HistogramBins{};
    for (const auto& block_hist : block_hists) {
      for (int v = 0; v < kHistogramBins; ++v)
        (*hist)[static_cast<std::size_t>(v)] += block_hist[static_cast<std::size_t>(v)];
    }
  }
  return plane;
}

/// Per-block histograms, merged: `count(rows, hist)` adds the counts of rows to hist.
template <typename Count>
HistogramBins merged_histogram(RowScheduler& scheduler, int rows, Count&& count) {
  std::vector<HistogramBins> block_hists(static_cast<std::size_t>(scheduler.max_blocks()));
  scheduler.for_each_block(rows, [&](RowRange range, int block) {
    count(range, block_hists[static_cast<std::size_t>(block)]);
  });
  HistogramBins total{};
  for (const auto& block_hist : block_hists) {
    for (std::size_t v = 0; v < total.size(); ++v) total[v] += block_hist[v];
  }
  return total;
}

Image run_gaussian(RowScheduler& scheduler, const ConstImageView& input, const OpParams& params,
                   std::string_view variant) {
  Image out(input.width(), input.height(), input.channels());
  const ImageView dst = out.view();
  const GaussianWeights weights = gaussian_weights(params.sigma);
  const BorderMode border = params.border;
  if (variant == kGaussianLut) {
    const GaussianLut lut = gaussian_lut(weights);
    scheduler.for_each_block(input.height(), [&](RowRange rows, int) {
      kernels::gaussian5x5_lut_rows(halo_slice(input, rows, kernels::kGaussianHalo),
                                    dst.slice(rows), rows, lut, border);
    });
  } else if (variant == kGaussianSeparable) {
    scheduler.for_each_block(input.height(), [&](RowRange rows, int) {
      kernels::gaussian5x5_separable_rows(halo_slice(input, rows, kernels::kGaussianHalo),
                                          dst.slice(rows), rows, weights, border);
    });
  } else if (variant == kGaussianDirect) {
    scheduler.for_each_block(input.height(), [&](RowRange rows, int) {
      kernels::gaussian5x5_direct_rows(halo_slice(input, rows, kernels::kGaussianHalo),
                                       dst.slice(rows), rows, weights, border);
    });
  } else {
    throw UsageError("unknown gaussian variant '" + std::string(variant) + "'");
  }
  return out;
}

Image run_sobel(RowScheduler& scheduler, const ConstImageView& input, const OpParams& params) {
  const GrayPlane gray = gray_plane(scheduler, input);
  Image out(input.width(), input.height(), 1);
  const ImageView dst = out.view();
  scheduler.for_each_block(input.height(), [&](RowRange rows, int) {
    kernels::sobel_rows(halo_slice(gray.view, rows, kernels::kSobelHalo), dst.slice(rows), rows,
                        params.border, params.sobel_output);
  });
  return out;
}

Image run_sharpen(RowScheduler& scheduler, const ConstImageView& input, const OpParams& params) {
  Image out(input.width(), input.height(), input.channels());
  const ImageView dst = out.view();
  scheduler.for_each_block(input.height(), [&](RowRange rows, int) {
    kernels::sharpen_rows(halo_slice(input, rows, kernels::kSharpenHalo), dst.slice(rows), rows,
                          params.border);
  });
  return out;
}

std::vector<HistogramBins> run_histogram(RowScheduler& scheduler, const ConstImageView& input,
                                         const OpParams& params) {
  if (!params.per_channel || input.channels() == 1) {
    HistogramBins hist{};
    (void)gray_plane(scheduler, input, &hist);
    return {hist};
  }
  std::vector<HistogramBins> result;
  for (int c = 0; c < input.channels(); ++c) {
    result.push_back(
        merged_histogram(scheduler, input.height(), [&](RowRange rows, HistogramBins& h) {
          kernels::histogram_rows(input.slice(rows), rows, c, h);
        }));
  }
  return result;
}

Image run_equalize(RowScheduler& scheduler, const ConstImageView& input) {
  Image out(input.width(), input.height(), input.channels());
  const ImageView dst = out.view();
  const bool gray = input.channels() == 1;
  const HistogramBins hist =
      merged_histogram(scheduler, input.height(), [&](RowRange rows, HistogramBins& h) {
        if (gray) {
          kernels::histogram_rows(input.slice(rows), rows, 0, h);
        } else {
          kernels::luma_histogram_rows(input.slice(rows), rows, h);
        }
      });
  const auto lut = equalize_lut(hist);
  scheduler.for_each_block(input.height(), [&](RowRange rows, int) {
    if (gray) {
      kernels::apply_lut_rows(input.slice(rows), dst.slice(rows), rows, lut);
    } else {
      kernels::equalize_color_rows(input.slice(rows), dst.slice(rows), rows, lut);
    }
  });
  return out;
}

/// otsu and segment: gray and its histogram, a global threshold, then global or adaptive.
OpOutput run_thresholding(RowScheduler& scheduler, Op op, const ConstImageView& input,
                          const OpParams& params) {
  HistogramBins hist{};
  const GrayPlane gray = gray_plane(scheduler, input, &hist);
  const int threshold = op == Op::otsu ? otsu_threshold(hist) : isodata_threshold(hist);
  OpOutput output;
  output.threshold = threshold;
  output.image = Image(input.width(), input.height(), 1);
  const ImageView dst = output.image.view();
  const bool adaptive = op == Op::segment && params.adaptive;
  scheduler.for_each_block(input.height(), [&](RowRange rows, int) {
    if (adaptive) {
      kernels::adaptive_segment_rows(halo_slice(gray.view, rows, params.window / 2),
                                     dst.slice(rows), rows, params.window, params.min_contrast,
                                     threshold);
    } else {
      kernels::threshold_rows(gray.view.slice(rows), dst.slice(rows), rows, threshold);
    }
  });
  return output;
}

/// The erosions and dilations an op performs, in order (OpenCV's morphologyEx).
std::vector<MorphOp> morphology_steps(Op op, int iterations) {
  const auto repeat = [iterations](std::vector<MorphOp>& steps, MorphOp step) {
    steps.insert(steps.end(), static_cast<std::size_t>(iterations), step);
  };
  std::vector<MorphOp> steps;
  switch (op) {
    case Op::erode:
      repeat(steps, MorphOp::erode);
      break;
    case Op::dilate:
      repeat(steps, MorphOp::dilate);
      break;
    case Op::open:
      repeat(steps, MorphOp::erode);
      repeat(steps, MorphOp::dilate);
      break;
    case Op::close:
      repeat(steps, MorphOp::dilate);
      repeat(steps, MorphOp::erode);
      break;
    default:
      throw std::logic_error("morphology_steps: not a morphology op");
  }
  return steps;
}

Image run_morphology(RowScheduler& scheduler, Op op, const ConstImageView& input,
                     const OpParams& params) {
  const StructuringElement se = make_structuring_element(params.se);
  const int above = kernels::morphology_halo_above(se);
  const int below = kernels::morphology_halo_below(se);
  // Ping-pong: each step reads the previous step's output.
  Image buffers[2] = {Image(input.width(), input.height(), input.channels()),
                      Image(input.width(), input.height(), input.channels())};
  ConstImageView src = input;
  int target = 0;
  for (const MorphOp step : morphology_steps(op, params.iterations)) {
    const ImageView dst = buffers[target].view();
    scheduler.for_each_block(input.height(), [&](RowRange rows, int) {
      kernels::morphology_rows(halo_slice(src, rows, above, below), dst.slice(rows), rows, se,
                               step);
    });
    src = buffers[target].view();
    target = 1 - target;
  }
  return std::move(buffers[1 - target]);
}

Image run_pool(RowScheduler& scheduler, const ConstImageView& input) {
  const int out_width = (input.width() + kPoolStride - 1) / kPoolStride;
  const int out_height = (input.height() + kPoolStride - 1) / kPoolStride;
  Image out(out_width, out_height, input.channels());
  const ImageView dst = out.view();
  scheduler.for_each_block(out_height, [&](RowRange rows, int) {
    const RowRange in_rows{kPoolStride * rows.begin,
                           std::min(kPoolStride * rows.end, input.height())};
    kernels::pool2x2_rows(input.slice(in_rows), dst.slice(rows), rows);
  });
  return out;
}

/// A Backend that runs every op through run_cpu_op on its scheduler.
class CpuBackend final : public Backend {
 public:
  CpuBackend(std::string name, std::unique_ptr<RowScheduler> scheduler, int threads)
      : name_(std::move(name)), scheduler_(std::move(scheduler)), threads_(threads) {}

  [[nodiscard]] std::string_view name() const override { return name_; }
  [[nodiscard]] std::vector<std::string> variants(Op op) const override { return cpu_variants(op); }
  [[nodiscard]] Availability availability() const override { return {}; }
  [[nodiscard]] int threads() const override { return threads_; }

  OpOutput run(Op op, const ConstImageView& input, const OpParams& params,
               StageTimes* times) override {
    validate_params(op, params);
    OpParams resolved = params;
    resolved.variant = resolve_variant(*this, op, params.variant);
    const auto start = std::chrono::steady_clock::now();
    OpOutput output = run_cpu_op(*scheduler_, op, input, resolved);
    const auto stop = std::chrono::steady_clock::now();
    if (times != nullptr) {
      times->compute_ms = std::chrono::duration<double, std::milli>(stop - start).count();
    }
    return output;
  }

 private:
  std::string name_;
  std::unique_ptr<RowScheduler> scheduler_;
  int threads_;
};

}  // namespace

RowRange block_range(int rows, int blocks, int index) {
  const int base = rows / blocks;
  const int longer = rows % blocks;  // the first `longer` blocks get one extra row
  const int begin = index * base + std::min(index, longer);
  const int end = begin + base + (index < longer ? 1 : 0);
  return {std::min(begin, rows), std::min(end, rows)};
}

std::vector<std::string> cpu_variants(Op op) {
  if (op == Op::gaussian) {
    return {std::string(kGaussianDirect), std::string(kGaussianLut),
            std::string(kGaussianSeparable)};
  }
  return {std::string(kDefaultVariant)};
}

OpOutput run_cpu_op(RowScheduler& scheduler, Op op, const ConstImageView& input,
                    const OpParams& params) {
  if (input.rows() != RowRange{0, input.height()}) {
    throw std::invalid_argument("run_cpu_op: the input view must address every row");
  }
  const std::string variant = params.variant.empty() ? cpu_variants(op).front() : params.variant;
  const auto variants = cpu_variants(op);
  if (std::find(variants.begin(), variants.end(), variant) == variants.end()) {
    throw UsageError("unknown variant '" + variant + "' for " + std::string(op_name(op)));
  }
  OpOutput output;
  switch (op) {
    case Op::gray: {
      output.image = Image(input.width(), input.height(), 1);
      const ImageView dst = output.image.view();
      scheduler.for_each_block(input.height(), [&](RowRange rows, int) {
        kernels::gray_rows(input.slice(rows), dst.slice(rows), rows);
      });
      break;
    }
    case Op::gaussian:
      output.image = run_gaussian(scheduler, input, params, variant);
      break;
    case Op::sobel:
      output.image = run_sobel(scheduler, input, params);
      break;
    case Op::sharpen:
      output.image = run_sharpen(scheduler, input, params);
      break;
    case Op::histogram:
      output.histogram = run_histogram(scheduler, input, params);
      break;
    case Op::equalize:
      output.image = run_equalize(scheduler, input);
      break;
    case Op::otsu:
    case Op::segment:
      output = run_thresholding(scheduler, op, input, params);
      break;
    case Op::erode:
    case Op::dilate:
    case Op::open:
    case Op::close:
      output.image = run_morphology(scheduler, op, input, params);
      break;
    case Op::pool:
      output.image = run_pool(scheduler, input);
      break;
  }
  return output;
}

std::unique_ptr<Backend> make_cpu_backend(std::string name, std::unique_ptr<RowScheduler> scheduler,
                                          int threads) {
  return std::make_unique<CpuBackend>(std::move(name), std::move(scheduler), threads);
}

}  // namespace parfilter
