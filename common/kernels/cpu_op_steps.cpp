#include "cpu_op_steps.hpp"

#include <algorithm>
#include <cstdlib>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "row_kernels.hpp"

namespace parfilter {
namespace {

using kernels::MorphOp;

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

/// Rows a fused two-step band computes at least, and per row of the second step's halo: its
/// first step recomputes the halo rows, so a band of 8 halos costs at most 1/8 extra work.
constexpr int kFusedBandRows = 64;
constexpr int kFusedBandPerHalo = 8;

/// Two steps (open, close) fused: each block runs them band by band, the first step's rows
/// (the band and the second step's halo) in a per-block buffer that the second reads back
/// from cache, instead of a full-size intermediate image written and read back whole.
Image run_fused_steps(const CpuOpContext& context, const ConstImageView& input,
                      const RowPass& first, const RowPass& second) {
  Image out =
      Image::uninitialized(input.width(), input.height(), input.channels(), context.outputs);
  const ImageView dst = out.view();
  const Writes writes = output_writes(out);
  const RowHalo halo = second.halo;
  const int band = std::max(kFusedBandRows, kFusedBandPerHalo * (halo.above + halo.below));
  const auto row_samples = static_cast<std::size_t>(input.row_samples());
  context.scheduler.for_each_block(input.height(), [&](RowRange block, int /*index*/) {
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

}  // namespace

RowRange all_rows(const ConstImageView& input) { return {0, input.height()}; }

Writes output_writes(const Image& out) {
  return out.size_bytes() >= stream_min_bytes() ? Writes::streamed : Writes::cached;
}

Image run_pass(const CpuOpContext& context, const RowPass& pass, const ConstImageView& src,
               int channels) {
  Image out = Image::uninitialized(src.width(), src.height(), channels, context.outputs);
  pass.run(context.scheduler, src, out.view(), all_rows(src), output_writes(out));
  return out;
}

GrayPlane gray_plane(const CpuOpContext& context, const ConstImageView& input,
                     std::string_view variant, HistogramBins* hist) {
  const kernels::Loops loops = loops_for(variant);
  GrayPlane plane;
  const bool convert = input.channels() != 1;
  if (convert) {
    plane.storage = Image::uninitialized(input.width(), input.height(), 1, context.outputs);
    plane.view = plane.storage.view();
  } else {
    plane.view = input;
  }
  if (!convert && hist == nullptr) return plane;  // nothing to convert or count
  const ImageView out = convert ? plane.storage.view() : ImageView{};
  // One histogram per block, merged after the join.
  const HistogramBins counts =
      count_rows(context.scheduler, all_rows(input), [&](RowRange rows, HistogramBins& block_hist) {
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

OpOutput run_thresholding(const CpuOpContext& context, Op op, const ConstImageView& input,
                          const OpParams& params) {
  HistogramBins hist{};
  const GrayPlane gray = gray_plane(context, input, params.variant, &hist);
  const int threshold = global_threshold(op, hist);
  OpOutput output;
  output.threshold = threshold;
  const bool adaptive = op == Op::segment && params.adaptive;
  output.image = run_pass(context,
                          adaptive ? adaptive_segment_pass(params, threshold)
                                   : threshold_pass(threshold, params.variant),
                          gray.view, 1);
  return output;
}

Image run_morphology(const CpuOpContext& context, Op op, const ConstImageView& input,
                     const OpParams& params) {
  const StructuringElement se = make_structuring_element(params.se);
  const RowPass erode = morphology_pass(se, MorphOp::erode, params.variant);
  const RowPass dilate = morphology_pass(se, MorphOp::dilate, params.variant);
  const std::vector<MorphOp> steps = morphology_steps(op, params.iterations);
  const auto pass = [&](MorphOp step) -> const RowPass& {
    return step == MorphOp::erode ? erode : dilate;
  };
  constexpr std::size_t kPair = 2;
  if (steps.size() == kPair) return run_fused_steps(context, input, pass(steps[0]), pass(steps[1]));
  // Ping-pong: each step reads the previous step's output. A buffer is allocated when first
  // written (a single erosion needs one) and uninitialized: each step writes every sample.
  Image buffers[2];
  ConstImageView src = input;
  int target = 0;
  for (std::size_t i = 0; i < steps.size(); ++i) {
    if (buffers[target].empty()) {
      buffers[target] =
          Image::uninitialized(input.width(), input.height(), input.channels(), context.outputs);
    }
    // The next step reads a step's output back: only the last one's may be streamed.
    const Writes writes = i + 1 == steps.size() ? output_writes(buffers[target]) : Writes::cached;
    pass(steps[i]).run(context.scheduler, src, buffers[target].view(), all_rows(input), writes);
    src = buffers[target].view();
    target = 1 - target;
  }
  return std::move(buffers[1 - target]);
}

RowHalo row_halo(Op op, const OpParams& params) {
  const CpuOp& defined = cpu_op(op);
  if (defined.single_pass != nullptr) return defined.single_pass(params).halo;
  if (defined.halo == nullptr) {
    throw std::logic_error("row_halo: " + std::string(op_name(op)) + " has no halo of its own");
  }
  return defined.halo(params);
}

int single_pass_channels(Op op, int input_channels) {
  return op_info(op).traits.gray_result ? 1 : input_channels;
}

OpOutput run_single_pass(const CpuOpContext& context, Op op, const ConstImageView& input,
                         const OpParams& params) {
  return image_output(run_pass(context, cpu_op(op).single_pass(params), input,
                               single_pass_channels(op, input.channels())));
}

RowHalo morphology_halo(Op op, const OpParams& params) {
  const StructuringElement se = make_structuring_element(params.se);
  const auto steps = static_cast<int>(morphology_steps(op, params.iterations).size());
  return {steps * kernels::morphology_halo_above(se), steps * kernels::morphology_halo_below(se)};
}

}  // namespace parfilter
