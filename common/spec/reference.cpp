// The reference implementation of docs/FILTERS.md: plain per-pixel loops, written for
// obviousness rather than speed, and independent of every optimised kernel. It is the oracle
// every backend is compared with, bit for bit.
#include "reference.hpp"

#include <algorithm>
#include <cstdint>
#include <functional>
#include <span>
#include <utility>
#include <vector>

#include "filter_math.hpp"
#include "reference_rows.hpp"

namespace parfilter::reference {
namespace {

using Histogram = std::vector<std::uint64_t>;

/// Runs fn(range) on the schedule's blocks.
void for_rows(const RowBlocks& schedule, int rows, const std::function<void(RowRange)>& fn) {
  schedule.for_each(rows, [&](RowRange range, int /*block*/) { fn(range); });
}

/// `spec(args...)`, or at 16 bits `tuned(args...)` where the backend gave a tuned loop: the
/// same output rows from the same inputs (TunedRows).
template <typename Sample, typename Tuned, typename Spec, typename... Args>
void spec_or_tuned(Tuned tuned, Spec spec, Args&&... args) {
  if constexpr (kDepthOf<Sample> == Depth::u16) {
    if (tuned != nullptr) {
      tuned(std::forward<Args>(args)...);
      return;
    }
  }
  spec(std::forward<Args>(args)...);
}

/// The spec's ops at one sample type, each loop of reference_rows.hpp run over the schedule.
template <typename Sample>
class Ops {
 public:
  Ops(const RowBlocks& schedule, const TunedRows& tuned) : schedule_(schedule), tuned_(tuned) {}

  Image image_like(const Image& in, int channels) const {
    return Image::uninitialized(in.width(), in.height(), channels, kDepthOf<Sample>);
  }

  /// A 1-channel input is its own gray.
  Image gray(const Image& in) const {
    if (in.channels() == 1) return in;
    Image out = image_like(in, 1);
    for_rows(schedule_, in.height(),
             [&](RowRange rows) { gray_rows(in_view(in), out_view(out), rows); });
    return out;
  }

  Histogram histogram(const Image& in, int channel) const {
    return counted(in, [&](RowRange rows, std::span<std::uint64_t> hist) {
      histogram_rows(in_view(in), channel, rows, hist);
    });
  }

  Histogram luma_histogram(const Image& in) const {
    return counted(in, [&](RowRange rows, std::span<std::uint64_t> hist) {
      luma_histogram_rows(in_view(in), rows, hist);
    });
  }

  Image gaussian(const Image& in, const OpParams& params) const {
    const GaussianWeights weights = gaussian_weights(params.sigma);
    return same_shape(in, [&](RowRange rows, const Image& out) {
      spec_or_tuned<Sample>(tuned_.gaussian, &gaussian_rows<Sample>, in_view(in), out_view(out),
                            rows, weights, params.border);
    });
  }

  Image sobel(const Image& in, const OpParams& params) const {
    const Image g = gray(in);
    return same_shape(g, [&](RowRange rows, const Image& out) {
      spec_or_tuned<Sample>(tuned_.sobel, &sobel_rows<Sample>, in_view(g), out_view(out), rows,
                            params.border, params.sobel_output);
    });
  }

  Image sharpen(const Image& in, const OpParams& params) const {
    return same_shape(in, [&](RowRange rows, const Image& out) {
      spec_or_tuned<Sample>(tuned_.sharpen, &sharpen_rows<Sample>, in_view(in), out_view(out), rows,
                            params.border);
    });
  }

  Image equalize(const Image& in) const {
    if (in.channels() == 1) {
      const std::vector<std::uint16_t> lut = equalize_levels(histogram(in, 0));
      return same_shape(in, [&](RowRange rows, const Image& out) {
        lut_rows(in_view(in), out_view(out), rows, lut);
      });
    }
    // Colour: equalize the Y of YCrCb, keep Cr and Cb, convert back; alpha is copied.
    const std::vector<std::uint16_t> lut = equalize_levels(luma_histogram(in));
    return same_shape(in, [&](RowRange rows, const Image& out) {
      equalize_color_rows(in_view(in), out_view(out), rows, lut);
    });
  }

  Image threshold(const Image& g, int t) const {
    return same_shape(g, [&](RowRange rows, const Image& out) {
      threshold_rows(in_view(g), out_view(out), rows, t);
    });
  }

  Image adaptive_segment(const Image& g, const OpParams& params, int global_t) const {
    return same_shape(g, [&](RowRange rows, const Image& out) {
      adaptive_segment_rows(in_view(g), out_view(out), rows, params.window, params.min_contrast,
                            global_t);
    });
  }

  /// The op's erosions and dilations in turn (morphology_steps: FILTERS.md's order, each
  /// --iterations times).
  Image morphology(Op op, const Image& in, const OpParams& params) const {
    const StructuringElement se = make_structuring_element(params.se);
    Image current = in;
    for (const MorphOp step : morphology_steps(op, params.iterations)) {
      current = same_shape(current, [&](RowRange rows, const Image& out) {
        spec_or_tuned<Sample>(tuned_.morphology, &morphology_rows<Sample>, in_view(current),
                              out_view(out), rows, se, step);
      });
    }
    return current;
  }

  Image pool(const Image& in) const {
    Image out = Image::uninitialized(pool_extent(in.width()), pool_extent(in.height()),
                                     in.channels(), kDepthOf<Sample>);
    for_rows(schedule_, out.height(),
             [&](RowRange rows) { pool_rows(in_view(in), out_view(out), rows); });
    return out;
  }

 private:
  static In<Sample> in_view(const Image& image) { return image.view_of<Sample>(); }
  static Out<Sample> out_view(const Image& image) {
    // The outputs are this class's own new images, written once by disjoint row blocks.
    return const_cast<Image&>(image).view_of<Sample>();
  }

  /// A new image of in's shape, its rows from fill(rows, out) over the schedule.
  template <typename Fill>
  Image same_shape(const Image& in, Fill&& fill) const {
    Image out = image_like(in, in.channels());
    for_rows(schedule_, in.height(), [&](RowRange rows) { fill(rows, out); });
    return out;
  }

  /// Counts from count(rows, hist) in one histogram per block, summed.
  template <typename Count>
  Histogram counted(const Image& in, Count&& count) const {
    std::vector<Histogram> per_block(static_cast<std::size_t>(schedule_.blocks),
                                     Histogram(kLevels<Sample>, 0));
    schedule_.for_each(in.height(), [&](RowRange rows, int block) {
      count(rows, std::span<std::uint64_t>(per_block[static_cast<std::size_t>(block)]));
    });
    Histogram total(kLevels<Sample>, 0);
    for (const Histogram& hist : per_block) {
      for (std::size_t v = 0; v < total.size(); ++v) total[v] += hist[v];
    }
    return total;
  }

  const RowBlocks& schedule_;
  const TunedRows& tuned_;
};

template <typename Sample>
OpOutput run_at_depth(Op op, const Image& input, const OpParams& params, const RowBlocks& schedule,
                      const TunedRows& tuned) {
  const Ops<Sample> ops(schedule, tuned);
  OpOutput result;
  switch (op) {
    case Op::gray:
      result.image = ops.gray(input);
      break;
    case Op::gaussian:
      result.image = ops.gaussian(input, params);
      break;
    case Op::sobel:
      result.image = ops.sobel(input, params);
      break;
    case Op::sharpen:
      result.image = ops.sharpen(input, params);
      break;
    case Op::histogram: {
      std::vector<Histogram> histograms;
      if (params.per_channel) {
        for (int c = 0; c < input.channels(); ++c) histograms.push_back(ops.histogram(input, c));
      } else {
        histograms.push_back(ops.histogram(ops.gray(input), 0));
      }
      set_histograms<Sample>(result, std::move(histograms));
      break;
    }
    case Op::equalize:
      result.image = ops.equalize(input);
      break;
    case Op::otsu: {
      const Image g = ops.gray(input);
      const int t = otsu_threshold(ops.histogram(g, 0));
      result.image = ops.threshold(g, t);
      result.threshold = t;
      break;
    }
    case Op::segment: {
      const Image g = ops.gray(input);
      const int t = isodata_threshold(ops.histogram(g, 0));
      result.image = params.adaptive ? ops.adaptive_segment(g, params, t) : ops.threshold(g, t);
      result.threshold = t;
      break;
    }
    case Op::erode:
    case Op::dilate:
    case Op::open:
    case Op::close:
      result.image = ops.morphology(op, input, params);
      break;
    case Op::pool:
      result.image = ops.pool(input);
      break;
  }
  return result;
}

}  // namespace

RowBlocks one_block() {
  return {1, [](int rows, const std::function<void(RowRange, int)>& fn) {
            if (rows > 0) fn(RowRange{0, rows}, 0);
          }};
}

OpOutput run_scheduled(Op op, const Image& input, const OpParams& params, const RowBlocks& schedule,
                       const TunedRows& tuned) {
  validate_params(op, params, input.depth());
  const OpParams resolved = at_depth(params, input.depth());
  return input.depth() == Depth::u8
             ? run_at_depth<std::uint8_t>(op, input, resolved, schedule, tuned)
             : run_at_depth<std::uint16_t>(op, input, resolved, schedule, tuned);
}

OpOutput run(Op op, const Image& input, const OpParams& params) {
  return run_scheduled(op, input, params, one_block());
}

OpOutput run_chain(const OpChain& chain, const Image& input) {
  OpOutput output;
  Image current = input;
  for (const OpStep& step : chain) {
    output = run(step.op, current, step.params);
    current = output.image;
  }
  return output;
}

}  // namespace parfilter::reference
