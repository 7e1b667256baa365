// The steps that read the whole image's histogram, streamed: a first pass counts, strip by
// strip, and a second maps, with the spec's row loops (reference_rows.hpp) at either depth,
// each strip's rows spread over the host's threads. Every backend gives the spec's bytes, so
// these are the backend's bytes too.
#include <algorithm>
#include <stdexcept>

#include "filter_math.hpp"
#include "reference_rows.hpp"
#include "strip_stages.hpp"

namespace parfilter::strips {
namespace {

using Histogram = std::vector<std::uint64_t>;
namespace ref = reference;

/// Calls fn(rows, part) for `parts` near-equal parts of `rows`, over options' threads.
template <typename Fn>
void for_each_part(const StripOptions& options, RowRange rows, int parts, Fn&& fn) {
  const auto part_rows = [&](int part) {
    const auto at = [&](int i) {
      return rows.begin + static_cast<int>(static_cast<std::int64_t>(rows.size()) * i / parts);
    };
    return RowRange{at(part), at(part + 1)};
  };
  if (parts <= 1 || !options.parallel_for) {
    for (int part = 0; part < parts; ++part) fn(part_rows(part), part);
    return;
  }
  options.parallel_for(static_cast<std::size_t>(parts),
                       [&](std::size_t part) { fn(part_rows(static_cast<int>(part)), part); });
}

/// What the first pass counts: the gray values (a gray input's own, else its gray), the luma
/// of a colour image (equalize), or one channel (histogram --per-channel).
enum class Counted { gray, luma_or_gray, channel };

template <typename Sample>
class HistogramPass {
 public:
  HistogramPass(RowStage& upstream, const StripOptions& options)
      : upstream_(upstream),
        options_(options),
        shape_(upstream.shape()),
        strip_rows_(strip_rows_for(shape_, 0, options)),
        window_(upstream, strip_rows_) {}

  /// The counts of `counted` (channel `channel`) over every row, from row 0; rewinds after.
  Histogram count(Counted counted, int channel = 0) {
    const int parts = std::max(options_.threads, 1);
    std::vector<Histogram> part_hist(static_cast<std::size_t>(parts),
                                     Histogram(ref::kLevels<Sample>, 0));
    Image gray;
    for (int begin = 0; begin < shape_.height; begin += strip_rows_) {
      const RowRange strip{begin, std::min(begin + strip_rows_, shape_.height)};
      window_.hold(strip);
      if (options_.follower) continue;  // the strips run (each collective matched); no counts
      const BasicImageView<const Sample> in = window_.view<Sample>(strip);
      for_each_part(options_, strip, parts, [&](RowRange rows, std::size_t part) {
        Histogram& hist = part_hist[part];
        if (counted == Counted::channel || shape_.channels == 1) {
          ref::histogram_rows(in, counted == Counted::channel ? channel : 0, rows, hist);
        } else if (counted == Counted::luma_or_gray) {
          ref::luma_histogram_rows(in, rows, hist);
        } else {
          gray_histogram(in, rows, hist);
        }
      });
    }
    window_.rewind();
    Histogram total(ref::kLevels<Sample>, 0);
    for (const Histogram& hist : part_hist) {
      for (std::size_t v = 0; v < total.size(); ++v) total[v] += hist[v];
    }
    return total;
  }

 private:
  /// The gray of `rows`, a row at a time, counted.
  void gray_histogram(const BasicImageView<const Sample>& in, RowRange rows, Histogram& hist) {
    Image row_gray = Image::uninitialized(shape_.width, 1, 1, kDepthOf<Sample>);
    for (int y = rows.begin; y < rows.end; ++y) {
      const BasicImageView<Sample> out(row_gray.samples<Sample>(), shape_.width, shape_.height, 1,
                                       shape_.width, RowRange{y, y + 1});
      ref::gray_rows(in, out, RowRange{y, y + 1});
      ref::histogram_rows(BasicImageView<const Sample>(out), 0, RowRange{y, y + 1}, hist);
    }
  }

  RowStage& upstream_;
  const StripOptions& options_;
  StreamShape shape_;
  int strip_rows_;
  RowWindow window_;
};

/// equalize, otsu or segment: the first pass on the first read, then the mapping.
template <typename Sample>
class GlobalStage final : public RowStage {
 public:
  GlobalStage(const OpStep& step, RowStage& upstream, const StripOptions& options)
      : op_(step.op),
        params_(at_depth(step.params, kDepthOf<Sample>)),
        upstream_(upstream),
        options_(options),
        input_(upstream.shape()),
        shape_{input_.width, input_.height, op_ == Op::equalize ? input_.channels : 1,
               input_.depth},
        halo_(row_halo_of(op_, params_)),
        strip_rows_(strip_rows_for(shape_, halo_, options)),
        window_(upstream, strip_rows_ + 2 * halo_) {}

  [[nodiscard]] StreamShape shape() const override { return shape_; }

  void read(std::uint8_t* dst, std::ptrdiff_t stride, int count) override {
    if (!counted_) count_first();
    const auto samples = static_cast<std::ptrdiff_t>(stride / sizeof(Sample));
    while (count > 0) {
      const int rows = std::min(count, strip_rows_);
      const RowRange strip{next_, next_ + rows};
      if (strip.end > shape_.height) throw std::logic_error("GlobalStage: read past the end");
      const RowRange need{std::max(0, strip.begin - halo_),
                          std::min(input_.height, strip.end + halo_)};
      window_.hold(need);
      if (!options_.follower) {
        const BasicImageView<Sample> out(reinterpret_cast<Sample*>(dst), shape_.width,
                                         shape_.height, shape_.channels, samples, strip);
        map(window_.view<Sample>(need), need, out, strip);
      }
      dst += static_cast<std::ptrdiff_t>(rows) * stride;
      count -= rows;
      next_ += rows;
    }
  }

  void rewind() override {
    window_.rewind();
    next_ = 0;
  }

  [[nodiscard]] std::uint64_t held_bytes() const override {
    // The window, the counting pass's, and the gray of a colour window.
    const std::uint64_t gray = input_.channels > 1 ? window_.bytes() / input_.channels : 0;
    return 2 * window_.bytes() + gray;
  }

  [[nodiscard]] std::optional<int> threshold() const override { return threshold_; }

 private:
  void count_first() {
    HistogramPass<Sample> pass(upstream_, options_);
    if (op_ == Op::equalize) {
      lut_ = equalize_levels(pass.count(Counted::luma_or_gray));
    } else {
      const Histogram hist = pass.count(Counted::gray);
      threshold_ = global_threshold(op_, hist);
    }
    counted_ = true;
  }

  void map(const BasicImageView<const Sample>& in, RowRange need, const BasicImageView<Sample>& out,
           RowRange strip) {
    const int parts = std::max(options_.threads, 1);
    if (op_ == Op::equalize) {
      for_each_part(options_, strip, parts, [&](RowRange rows, std::size_t) {
        if (input_.channels == 1) {
          ref::lut_rows(in, out, rows, lut_);
        } else {
          ref::equalize_color_rows(in, out, rows, lut_);
        }
      });
      return;
    }
    BasicImageView<const Sample> gray = in;
    if (input_.channels > 1) {
      if (gray_.empty()) {
        gray_ = Image::uninitialized(input_.width, window_capacity(), 1, kDepthOf<Sample>);
      }
      const BasicImageView<Sample> gray_rows(gray_.samples<Sample>(), input_.width, input_.height,
                                             1, input_.width, need);
      for_each_part(options_, need, parts,
                    [&](RowRange rows, std::size_t) { ref::gray_rows(in, gray_rows, rows); });
      gray = gray_rows;
    }
    const int t = *threshold_;
    for_each_part(options_, strip, parts, [&](RowRange rows, std::size_t) {
      if (op_ == Op::segment && params_.adaptive) {
        ref::adaptive_segment_rows(gray, out, rows, params_.window, params_.min_contrast, t);
      } else {
        ref::threshold_rows(gray, out, rows, t);
      }
    });
  }

  [[nodiscard]] int window_capacity() const { return strip_rows_ + 2 * halo_; }

  Op op_;
  OpParams params_;
  RowStage& upstream_;
  const StripOptions& options_;
  StreamShape input_;
  StreamShape shape_;
  int halo_;
  int strip_rows_;
  RowWindow window_;
  bool counted_ = false;
  std::vector<std::uint16_t> lut_;
  std::optional<int> threshold_;
  Image gray_;
  int next_ = 0;
};

template <typename Sample>
OpOutput histogram_at_depth(const OpStep& step, RowStage& upstream, const StripOptions& options) {
  HistogramPass<Sample> pass(upstream, options);
  std::vector<Histogram> histograms;
  const int channels = upstream.shape().channels;
  if (step.params.per_channel && channels > 1) {
    for (int c = 0; c < channels; ++c) histograms.push_back(pass.count(Counted::channel, c));
  } else {
    histograms.push_back(pass.count(Counted::gray));
  }
  OpOutput output;
  reference::set_histograms<Sample>(output, std::move(histograms));
  return output;
}

}  // namespace

std::unique_ptr<RowStage> make_global_stage(const OpStep& step, RowStage& upstream,
                                            const StripOptions& options) {
  if (upstream.shape().depth == Depth::u8) {
    return std::make_unique<GlobalStage<std::uint8_t>>(step, upstream, options);
  }
  return std::make_unique<GlobalStage<std::uint16_t>>(step, upstream, options);
}

OpOutput stream_histogram(const OpStep& step, RowStage& upstream, const StripOptions& options) {
  return upstream.shape().depth == Depth::u8
             ? histogram_at_depth<std::uint8_t>(step, upstream, options)
             : histogram_at_depth<std::uint16_t>(step, upstream, options);
}

}  // namespace parfilter::strips
