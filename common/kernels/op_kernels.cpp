// Each op's passes: the kernel, its prepared tables and its halo (op_kernels.hpp).
#include "op_kernels.hpp"

#include <algorithm>
#include <memory>
#include <stdexcept>
#include <string>

#include "parfilter/error.hpp"

namespace parfilter {

RowRange widen(RowRange rows, RowHalo halo, int height) {
  return {std::max(0, rows.begin - halo.above), std::min(height, rows.end + halo.below)};
}

void RowPass::run(RowScheduler& scheduler, const ConstImageView& src, const ImageView& dst,
                  RowRange rows, Writes writes) const {
  scheduler.for_each_block(rows.size(), [&](RowRange block, int) {
    const RowRange out{rows.begin + block.begin, rows.begin + block.end};
    kernel(src.slice(widen(out, halo, src.height())), dst.slice(out), out, writes);
  });
}

RowPass gray_pass(std::string_view variant) {
  const kernels::Loops loops = loops_for(variant);
  return {{},
          [loops](const ConstImageView& src, const ImageView& dst, RowRange rows, Writes writes) {
            kernels::gray_rows(src, dst, rows, streamed(loops, writes));
          }};
}

RowPass threshold_pass(int threshold, std::string_view variant) {
  const kernels::Loops loops = loops_for(variant);
  return {{},
          [threshold, loops](const ConstImageView& src, const ImageView& dst, RowRange rows,
                             Writes writes) {
            kernels::threshold_rows(src, dst, rows, threshold, streamed(loops, writes));
          }};
}

RowPass equalize_pass(int channels, const std::array<std::uint8_t, 256>& lut,
                      std::string_view variant) {
  const kernels::Loops loops = loops_for(variant);
  if (channels == 1) {
    return {{},
            [lut, loops](const ConstImageView& src, const ImageView& dst, RowRange rows,
                         Writes writes) {
              kernels::apply_lut_rows(src, dst, rows, lut, streamed(loops, writes));
            }};
  }
  return {
      {},
      [lut, loops](const ConstImageView& src, const ImageView& dst, RowRange rows, Writes writes) {
        kernels::equalize_color_rows(src, dst, rows, lut, streamed(loops, writes));
      }};
}

RowPass gaussian_pass(const OpParams& params) {
  const RowHalo halo{kernels::kGaussianHalo, kernels::kGaussianHalo};
  const GaussianWeights weights = gaussian_weights(params.sigma);
  const BorderMode border = params.border;
  const std::string_view variant =
      params.variant.empty() ? kGaussianSeparable : std::string_view(params.variant);
  if (variant == kGaussianLut) {
    // Shared, not copied into every std::function copy: the table is 6 KiB.
    auto lut = std::make_shared<const GaussianLut>(gaussian_lut(weights));
    return {halo, [lut, border](const ConstImageView& src, const ImageView& dst, RowRange rows,
                                Writes /*writes*/) {
              kernels::gaussian5x5_lut_rows(src, dst, rows, *lut, border);
            }};
  }
  if (variant == kGaussianSeparable || variant == kScalarVariant) {
    const kernels::Loops loops = loops_for(variant);
    return {halo, [weights, border, loops](const ConstImageView& src, const ImageView& dst,
                                           RowRange rows, Writes writes) {
              kernels::gaussian5x5_separable_rows(src, dst, rows, weights, border,
                                                  streamed(loops, writes));
            }};
  }
  if (variant == kGaussianDirect) {
    return {halo, [weights, border](const ConstImageView& src, const ImageView& dst, RowRange rows,
                                    Writes /*writes*/) {
              kernels::gaussian5x5_direct_rows(src, dst, rows, weights, border);
            }};
  }
  throw UsageError("unknown gaussian variant '" + std::string(variant) + "'");
}

namespace {

/// True for the naive variant, false for the default (empty or "default") and the scalar
/// one; throws UsageError for anything else.
bool is_naive_variant(Op op, std::string_view variant) {
  if (variant.empty() || variant == kDefaultVariant || variant == kScalarVariant) return false;
  if (variant == kNaiveVariant) return true;
  throw UsageError("unknown " + std::string(op_name(op)) + " variant '" + std::string(variant) +
                   "'");
}

}  // namespace

RowPass sobel_pass(const OpParams& params) {
  const BorderMode border = params.border;
  const SobelOutput output = params.sobel_output;
  const RowHalo halo{kernels::kSobelHalo, kernels::kSobelHalo};
  if (is_naive_variant(Op::sobel, params.variant)) {
    return {halo, [border, output](const ConstImageView& src, const ImageView& dst, RowRange rows,
                                   Writes /*writes*/) {
              kernels::sobel_naive_rows(src, dst, rows, border, output);
            }};
  }
  const kernels::Loops loops = loops_for(params.variant);
  return {halo, [border, output, loops](const ConstImageView& src, const ImageView& dst,
                                        RowRange rows, Writes writes) {
            kernels::sobel_rows(src, dst, rows, border, output, streamed(loops, writes));
          }};
}

RowPass sharpen_pass(const OpParams& params) {
  const BorderMode border = params.border;
  const RowHalo halo{kernels::kSharpenHalo, kernels::kSharpenHalo};
  if (is_naive_variant(Op::sharpen, params.variant)) {
    return {halo,
            [border](const ConstImageView& src, const ImageView& dst, RowRange rows,
                     Writes /*writes*/) { kernels::sharpen_naive_rows(src, dst, rows, border); }};
  }
  const kernels::Loops loops = loops_for(params.variant);
  return {halo, [border, loops](const ConstImageView& src, const ImageView& dst, RowRange rows,
                                Writes writes) {
            kernels::sharpen_rows(src, dst, rows, border, streamed(loops, writes));
          }};
}

RowPass morphology_pass(const StructuringElement& se, kernels::MorphOp step,
                        std::string_view variant) {
  kernels::MorphMethod method = kernels::MorphMethod::fastest;
  if (variant == kNaiveVariant) {
    method = kernels::MorphMethod::naive;
  } else if (variant == kMorphologySeparable) {
    method = kernels::MorphMethod::separable;
  } else if (variant == kMorphologyVhgw) {
    method = kernels::MorphMethod::vhgw;
  } else if (!variant.empty() && variant != kDefaultVariant && variant != kScalarVariant) {
    throw UsageError("unknown morphology variant '" + std::string(variant) + "'");
  }
  const kernels::Loops loops = loops_for(variant);
  auto shared_se = std::make_shared<const StructuringElement>(se);
  return {{kernels::morphology_halo_above(se), kernels::morphology_halo_below(se)},
          [shared_se, step, method, loops](const ConstImageView& src, const ImageView& dst,
                                           RowRange rows, Writes writes) {
            kernels::morphology_rows(src, dst, rows, *shared_se, step, method,
                                     streamed(loops, writes));
          }};
}

RowPass adaptive_segment_pass(const OpParams& params, int global_threshold) {
  const int window = params.window;
  const int min_contrast = params.min_contrast;
  const int half = window / 2;
  return {{half, half},
          [=](const ConstImageView& src, const ImageView& dst, RowRange rows, Writes /*writes*/) {
            kernels::adaptive_segment_rows(src, dst, rows, window, min_contrast, global_threshold);
          }};
}

HistogramBins count_rows(RowScheduler& scheduler, RowRange rows, const HistogramCount& count) {
  std::vector<HistogramBins> block_hists(static_cast<std::size_t>(scheduler.max_blocks()));
  scheduler.for_each_block(rows.size(), [&](RowRange block, int index) {
    count({rows.begin + block.begin, rows.begin + block.end},
          block_hists[static_cast<std::size_t>(index)]);
  });
  HistogramBins total{};
  for (const auto& block_hist : block_hists) add_histogram(total, block_hist);
  return total;
}

HistogramCount equalize_count(const ConstImageView& src, std::string_view variant) {
  if (src.channels() == 1) {
    return [src](RowRange rows, HistogramBins& hist) {
      kernels::histogram_rows(src.slice(rows), rows, 0, hist);
    };
  }
  const kernels::Loops loops = loops_for(variant);
  return [src, loops](RowRange rows, HistogramBins& hist) {
    kernels::luma_histogram_rows(src.slice(rows), rows, hist, loops);
  };
}

void add_histogram(HistogramBins& into, const HistogramBins& from) {
  for (std::size_t v = 0; v < into.size(); ++v) into[v] += from[v];
}

}  // namespace parfilter
