// The CPU backend seam: each op composed from the shared row kernels over a RowScheduler.
// A multi-phase op (sobel = gray then gradients; otsu = gray and histogram, threshold, apply)
// runs one for_each_block per phase; its return is the barrier between phases. Each block
// gets only the input rows its kernel may read (its rows widened by the halo), so a kernel
// that strays outside them trips the view's bounds assertion in debug builds.
#include "cpu_backend.hpp"

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <stdexcept>
#include <utility>
#include <vector>

#include "buffer_pool.hpp"
#include "cpu_batch.hpp"
#include "filter_math.hpp"
#include "op_kernels.hpp"
#include "parfilter/error.hpp"
#include "row_kernels.hpp"

namespace parfilter {
namespace {

using kernels::MorphOp;

RowRange all_rows(const ConstImageView& input) { return {0, input.height()}; }

/// Where op outputs and intermediates come from: a backend's BufferPool, or the heap (null).
using Outputs = std::shared_ptr<SampleAllocator>;

/// Op outputs from this size on are written with streaming stores (Writes::streamed): well
/// past a core's L2, and shared L3 holds little of an image when every core writes its block;
/// a streaming store skips reading each output line first (erode 3x3 of 64 MiB on the 2-vCPU
/// VM: 23 -> 15 ms). PARFILTER_STREAM_MIN_BYTES overrides it (for measurements elsewhere).
constexpr std::size_t kStreamMinBytes = std::size_t{8} << 20;

std::size_t stream_min_bytes() {
  static const std::size_t bytes = [] {
    const char* value = std::getenv("PARFILTER_STREAM_MIN_BYTES");
    return value != nullptr && *value != '\0'
               ? static_cast<std::size_t>(std::strtoull(value, nullptr, 10))
               : kStreamMinBytes;
  }();
  return bytes;
}

/// How a pass writes `out`, an op's output (not an intermediate read back).
Writes output_writes(const Image& out) {
  return out.size_bytes() >= stream_min_bytes() ? Writes::streamed : Writes::cached;
}

/// The gray plane of an input: the input itself when it is gray, else a converted copy.
/// With `hist`, also counts the gray values, fused into the same pass: one histogram per
/// block, merged after the join.
struct GrayPlane {
  Image storage;
  ConstImageView view;
};

GrayPlane gray_plane(RowScheduler& scheduler, const Outputs& outputs, const ConstImageView& input,
                     std::string_view variant, HistogramBins* hist = nullptr) {
  const kernels::Loops loops = loops_for(variant);
  GrayPlane plane;
  const bool convert = input.channels() != 1;
  if (convert) {
    plane.storage = Image::uninitialized(input.width(), input.height(), 1, outputs);
    plane.view = plane.storage.view();
  } else {
    plane.view = input;
  }
  const ImageView out = convert ? plane.storage.view() : ImageView{};
  const HistogramBins counts =
      count_rows(scheduler, all_rows(input), [&](RowRange rows, HistogramBins& block_hist) {
        if (convert && hist != nullptr) {
          kernels::gray_rows_counted(input.slice(rows), out.slice(rows), rows, block_hist, loops);
        } else if (convert) {
          kernels::gray_rows(input.slice(rows), out.slice(rows), rows, loops);
        } else if (hist != nullptr) {
          kernels::histogram_rows(plane.view.slice(rows), rows, 0, block_hist);
        }
      });
  if (hist != nullptr) *hist = counts;
  return plane;
}

/// An image of `channels` the input's size, with `pass` run over all its rows. Every pass
/// writes every sample of its rows, so the output starts uninitialized: no serial zero-fill,
/// and each block first-touches its own rows' pages.
Image run_pass(RowScheduler& scheduler, const Outputs& outputs, const RowPass& pass,
               const ConstImageView& src, int channels) {
  Image out = Image::uninitialized(src.width(), src.height(), channels, outputs);
  pass.run(scheduler, src, out.view(), all_rows(src), output_writes(out));
  return out;
}

std::vector<HistogramBins> run_histogram(RowScheduler& scheduler, const ConstImageView& input,
                                         const OpParams& params) {
  if (!params.per_channel || input.channels() == 1) {
    // No gray image: each block converts a row at a time into a buffer and counts it.
    const kernels::Loops loops = loops_for(params.variant);
    return {count_rows(scheduler, all_rows(input), [&](RowRange rows, HistogramBins& h) {
      kernels::gray_histogram_rows(input.slice(rows), rows, h, loops);
    })};
  }
  std::vector<HistogramBins> result;
  for (int c = 0; c < input.channels(); ++c) {
    result.push_back(count_rows(scheduler, all_rows(input), [&](RowRange rows, HistogramBins& h) {
      kernels::histogram_rows(input.slice(rows), rows, c, h);
    }));
  }
  return result;
}

Image run_equalize(RowScheduler& scheduler, const Outputs& outputs, const ConstImageView& input,
                   std::string_view variant) {
  const HistogramBins hist = count_rows(scheduler, all_rows(input), equalize_count(input, variant));
  return run_pass(scheduler, outputs, equalize_pass(input.channels(), equalize_lut(hist), variant),
                  input, input.channels());
}

/// otsu and segment: gray and its histogram, a global threshold, then global or adaptive.
OpOutput run_thresholding(RowScheduler& scheduler, const Outputs& outputs, Op op,
                          const ConstImageView& input, const OpParams& params) {
  HistogramBins hist{};
  const GrayPlane gray = gray_plane(scheduler, outputs, input, params.variant, &hist);
  const int threshold = op == Op::otsu ? otsu_threshold(hist) : isodata_threshold(hist);
  OpOutput output;
  output.threshold = threshold;
  const bool adaptive = op == Op::segment && params.adaptive;
  output.image = run_pass(scheduler, outputs,
                          adaptive ? adaptive_segment_pass(params, threshold)
                                   : threshold_pass(threshold, params.variant),
                          gray.view, 1);
  return output;
}

/// Rows a fused two-step band computes at least, and per row of the second step's halo: its
/// first step recomputes the halo rows, so a band of 8 halos costs at most 1/8 extra work.
constexpr int kFusedBandRows = 64;
constexpr int kFusedBandPerHalo = 8;

/// Two steps (open, close) fused: each block runs them band by band, the first step's rows
/// (the band and the second step's halo) in a per-block buffer that the second reads back
/// from cache, instead of a full-size intermediate image written and read back whole.
Image run_fused_steps(RowScheduler& scheduler, const Outputs& outputs, const ConstImageView& input,
                      const RowPass& first, const RowPass& second) {
  Image out = Image::uninitialized(input.width(), input.height(), input.channels(), outputs);
  const ImageView dst = out.view();
  const Writes writes = output_writes(out);
  const RowHalo halo = second.halo;
  const int band = std::max(kFusedBandRows, kFusedBandPerHalo * (halo.above + halo.below));
  const auto row_samples = static_cast<std::size_t>(input.row_samples());
  scheduler.for_each_block(input.height(), [&](RowRange block, int /*index*/) {
    std::vector<std::uint8_t, DefaultInitAllocator<std::uint8_t>> buffer(
        static_cast<std::size_t>(band + halo.above + halo.below) * row_samples);
    for (int y = block.begin; y < block.end; y += band) {
      const RowRange rows{y, std::min(y + band, block.end)};
      const RowRange needed = widen(rows, halo, input.height());
      const ImageView mid(buffer.data(), input.width(), input.height(), input.channels(),
                          input.row_samples(), needed);
      first.kernel(input, mid, needed, Writes::cached);  // read back at once
      second.kernel(mid, dst.slice(rows), rows, writes);
    }
  });
  return out;
}

Image run_morphology(RowScheduler& scheduler, const Outputs& outputs, Op op,
                     const ConstImageView& input, const OpParams& params) {
  const StructuringElement se = make_structuring_element(params.se);
  const RowPass erode = morphology_pass(se, MorphOp::erode, params.variant);
  const RowPass dilate = morphology_pass(se, MorphOp::dilate, params.variant);
  const std::vector<MorphOp> steps = morphology_steps(op, params.iterations);
  constexpr std::size_t kPair = 2;
  if (steps.size() == kPair) {
    const auto pass = [&](MorphOp step) -> const RowPass& {
      return step == MorphOp::erode ? erode : dilate;
    };
    return run_fused_steps(scheduler, outputs, input, pass(steps[0]), pass(steps[1]));
  }
  // Ping-pong: each step reads the previous step's output. A buffer is allocated when first
  // written (a single erosion needs one) and uninitialized: each step writes every sample.
  Image buffers[2];
  ConstImageView src = input;
  int target = 0;
  for (std::size_t i = 0; i < steps.size(); ++i) {
    if (buffers[target].empty()) {
      buffers[target] =
          Image::uninitialized(input.width(), input.height(), input.channels(), outputs);
    }
    // The next step reads a step's output back: only the last one's may be streamed.
    const Writes writes = i + 1 == steps.size() ? output_writes(buffers[target]) : Writes::cached;
    (steps[i] == MorphOp::erode ? erode : dilate)
        .run(scheduler, src, buffers[target].view(), all_rows(input), writes);
    src = buffers[target].view();
    target = 1 - target;
  }
  return std::move(buffers[1 - target]);
}

Image run_pool(RowScheduler& scheduler, const Outputs& outputs, const ConstImageView& input,
               std::string_view variant) {
  Image out = Image::uninitialized(pool_extent(input.width()), pool_extent(input.height()),
                                   input.channels(), outputs);
  const kernels::Loops loops = streamed(loops_for(variant), output_writes(out));
  const ImageView dst = out.view();
  scheduler.for_each_block(out.height(), [&](RowRange rows, int) {
    kernels::pool2x2_rows(input.slice(pool_input_rows(rows, input.height())), dst.slice(rows), rows,
                          loops);
  });
  return out;
}

/// A Backend that runs every op through run_cpu_op on its scheduler.
class CpuBackend final : public Backend {
 public:
  CpuBackend(std::string name, std::unique_ptr<RowScheduler> scheduler, int threads,
             bool takes_threads)
      : name_(std::move(name)),
        scheduler_(std::move(scheduler)),
        threads_(threads),
        takes_threads_(takes_threads) {}

  [[nodiscard]] std::string_view name() const override { return name_; }
  [[nodiscard]] std::vector<std::string> variants(Op op) const override { return cpu_variants(op); }
  [[nodiscard]] Availability availability() const override { return {}; }
  [[nodiscard]] int threads() const override { return threads_; }
  [[nodiscard]] bool takes_threads() const override { return takes_threads_; }

  OpOutput run(Op op, const ConstImageView& input, const OpParams& params,
               StageTimes* times) override {
    validate_params(op, params);
    OpParams resolved = params;
    resolved.variant = resolve_variant(*this, op, params.variant);
    return timed_op(*scheduler_, op, input, resolved, times);
  }

  void run_batch(const OpChain& chain, const BatchCallbacks& callbacks) override {
    if (threads_ <= 1) {
      Backend::run_batch(chain, callbacks);
      return;
    }
    OpChain resolved;
    try {
      resolved = resolve_chain(*this, chain);
    } catch (const UsageError&) {
      Backend::run_batch(chain, callbacks);  // each image's failure, as one at a time gives it
      return;
    }
    run_images_side_by_side(*scheduler_, callbacks,
                     [&](RowScheduler& scheduler, const ConstImageView& input, StageTimes& times) {
                       return run_steps(scheduler, resolved, input, times);
                     });
  }

 private:
  OpOutput timed_op(RowScheduler& scheduler, Op op, const ConstImageView& input,
                    const OpParams& resolved, StageTimes* times) {
    const auto start = std::chrono::steady_clock::now();
    OpOutput output = run_cpu_op(scheduler, op, input, resolved, outputs_);
    const auto stop = std::chrono::steady_clock::now();
    if (times != nullptr) {
      times->compute_ms = std::chrono::duration<double, std::milli>(stop - start).count();
    }
    return output;
  }

  /// A resolved chain's steps in turn on `scheduler`, each reading the previous one's image.
  OpOutput run_steps(RowScheduler& scheduler, const OpChain& resolved, const ConstImageView& input,
                     StageTimes& times) {
    OpOutput output;
    times = {};
    for (std::size_t i = 0; i < resolved.size(); ++i) {
      StageTimes step;
      OpOutput next =
          timed_op(scheduler, resolved[i].op, i == 0 ? input : ConstImageView(output.image.view()),
                   resolved[i].params, &step);
      add_stage_times(times, step);
      output = std::move(next);
    }
    return output;
  }

  std::string name_;
  std::unique_ptr<RowScheduler> scheduler_;
  int threads_;
  /// Outputs and intermediates are reused from one run to the next (buffer_pool.hpp); with
  /// one thread, a new one's pages are mapped at once.
  std::shared_ptr<BufferPool> outputs_ = make_buffer_pool(threads_ == 1);
  bool takes_threads_;
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
  const auto names = [](std::initializer_list<std::string_view> list) {
    return std::vector<std::string>(list.begin(), list.end());
  };
  switch (op) {
    case Op::gaussian:
      return names({kGaussianSeparable, kScalarVariant, kGaussianDirect, kGaussianLut});
    case Op::sobel:
    case Op::sharpen:
      return names({kDefaultVariant, kScalarVariant, kNaiveVariant});
    case Op::erode:
    case Op::dilate:
    case Op::open:
    case Op::close:
      return names(
          {kDefaultVariant, kScalarVariant, kMorphologyVhgw, kMorphologySeparable, kNaiveVariant});
    case Op::gray:
    case Op::histogram:
    case Op::equalize:
    case Op::otsu:
    case Op::segment:
    case Op::pool:
      return names({kDefaultVariant, kScalarVariant});
  }
  throw std::logic_error("cpu_variants: unknown op");
}

OpOutput run_cpu_op(RowScheduler& scheduler, Op op, const ConstImageView& input,
                    const OpParams& params, const std::shared_ptr<SampleAllocator>& outputs) {
  if (input.rows() != RowRange{0, input.height()}) {
    throw std::invalid_argument("run_cpu_op: the input view must address every row");
  }
  const std::string variant = params.variant.empty() ? cpu_variants(op).front() : params.variant;
  const auto variants = cpu_variants(op);
  if (std::find(variants.begin(), variants.end(), variant) == variants.end()) {
    throw UsageError("unknown variant '" + variant + "' for " + std::string(op_name(op)));
  }
  OpParams resolved = params;
  resolved.variant = variant;
  OpOutput output;
  switch (op) {
    case Op::gray:
      output.image = run_pass(scheduler, outputs, gray_pass(resolved.variant), input, 1);
      break;
    case Op::gaussian:
      output.image = run_pass(scheduler, outputs, gaussian_pass(resolved), input, input.channels());
      break;
    case Op::sobel: {
      const GrayPlane gray = gray_plane(scheduler, outputs, input, resolved.variant);
      output.image = run_pass(scheduler, outputs, sobel_pass(resolved), gray.view, 1);
      break;
    }
    case Op::sharpen:
      output.image = run_pass(scheduler, outputs, sharpen_pass(resolved), input, input.channels());
      break;
    case Op::histogram:
      output.histogram = run_histogram(scheduler, input, resolved);
      break;
    case Op::equalize:
      output.image = run_equalize(scheduler, outputs, input, resolved.variant);
      break;
    case Op::otsu:
    case Op::segment:
      output = run_thresholding(scheduler, outputs, op, input, resolved);
      break;
    case Op::erode:
    case Op::dilate:
    case Op::open:
    case Op::close:
      output.image = run_morphology(scheduler, outputs, op, input, resolved);
      break;
    case Op::pool:
      output.image = run_pool(scheduler, outputs, input, resolved.variant);
      break;
  }
  return output;
}

std::unique_ptr<Backend> make_cpu_backend(std::string name, std::unique_ptr<RowScheduler> scheduler,
                                          int threads, bool takes_threads) {
  return std::make_unique<CpuBackend>(std::move(name), std::move(scheduler), threads,
                                      takes_threads);
}

}  // namespace parfilter
