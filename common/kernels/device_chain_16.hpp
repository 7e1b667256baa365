// The 16-bit spec of docs/FILTERS.md on a GPU, written once for the device backends: the steps
// of the ops whose kernels both backends' Devices launch, in what order, and the host math
// between them (filter_math's tables and thresholds), over a Device that owns the buffers and
// launches the kernels (CUDA's deep_device.hpp, OpenCL's). Each backend's table of ops says
// which step runs an op (CudaOp::run_16, ClOp::run_16), so an op of its own kernels is one
// entry there and nothing here. The image stays on the device from the upload to the last
// step's download; only histograms come back in between.
//
// A Device provides, every buffer holding packed rows of 16-bit samples unless noted:
//   using Buffer = ...;                             a copyable handle
//   Buffer alloc(std::size_t samples);
//   Buffer upload(const Image& image);              image.depth() == Depth::u16
//   Buffer table(std::span<const std::uint16_t>);   an equalize table
//   Buffer mask(std::span<const std::uint8_t>);     a structuring element's mask
//   void end_step(const Buffer& result);            every other buffer may serve the next step
//   std::shared_ptr<SampleAllocator> host_results();  where results go (null: the heap)
//   void download(const Buffer&, Image& into);
//   and one launcher per kernel the steps below call (gray ... pool); the histograms' launchers,
//   count_samples(in, first, stride, count, bins) and count_luma(in, first, channels, count,
//   bins), fill `bins` (kLevels16 32-bit counts) from `count` samples (pixels) and return
//   once they are on the host.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "filter_math.hpp"
#include "parfilter/image.hpp"
#include "parfilter/op_set.hpp"

namespace parfilter::deep {

inline constexpr int kLevels16 = 1 << 16;
/// Pixels per histogram launch: the kernels count in 32-bit bins.
inline constexpr std::uint64_t kHistogramChunk = std::uint64_t{1} << 31;

/// A device image's shape: width x height pixels of `channels` samples, rows packed.
struct Shape {
  int width = 0;
  int height = 0;
  int channels = 0;
  [[nodiscard]] std::uint64_t pixels() const {
    return static_cast<std::uint64_t>(width) * static_cast<std::uint64_t>(height);
  }
  [[nodiscard]] std::size_t samples() const {
    return static_cast<std::size_t>(pixels()) * static_cast<std::size_t>(channels);
  }
};

/// The variant name of the Gaussian's direct 5x5 sum; every other variant at 16 bits runs the
/// row and column passes, which gives the same bytes (the row sums are exact in 32 bits) in
/// about half the time (an H100: 0.82 ms against 1.51 for 4096x4096 RGBA, OpenCL).
inline constexpr std::string_view kDirectVariant = "direct";

template <typename Device>
class DeviceChain16 {
 public:
  using Buffer = typename Device::Buffer;
  struct Plane {
    Buffer buffer;
    Shape shape;
  };
  /// One op at 16 bits, as a backend's table of ops gives it (CudaOp, ClOp): its result on the
  /// device (none after a histogram), its histograms and threshold in `output`. An op of its
  /// own kernels launches them through chain.device(); the others name one of the steps below.
  using Step = std::optional<Plane> (*)(DeviceChain16& chain, Op op, const Plane& in,
                                        const OpParams& params, OpOutput& output);
  /// A member of this class with a Step's arguments, as a Step.
  template <std::optional<Plane> (DeviceChain16::*method)(Op, const Plane&, const OpParams&,
                                                          OpOutput&)>
  static std::optional<Plane> step_of(DeviceChain16& chain, Op op, const Plane& in,
                                      const OpParams& params, OpOutput& output) {
    return (chain.*method)(op, in, params, output);
  }

  /// `step`, the Step `backend`'s op table gives `op`; std::logic_error naming both if none.
  static Step required(Step step, std::string_view backend, Op op) {
    if (step == nullptr) {
      throw std::logic_error(std::string(backend) + ": " + std::string(op_info(op).name) +
                             " has no 16-bit step (run_16 in its ops/ file)");
    }
    return step;
  }

  /// `step_for(op)` is the backend's Step for op.
  DeviceChain16(Device& device, Step (*step_for)(Op)) : device_(device), step_for_(step_for) {}

  /// The chain's steps (variants resolved) on a 16-bit image: one upload, one download.
  OpOutput run(const OpChain& resolved, const Image& input) {
    OpOutput output;
    const std::optional<Plane> current = run_on_device(
        resolved, Plane{device_.upload(input), {input.width(), input.height(), input.channels()}},
        output);
    if (current) {
      const Shape& s = current->shape;
      output.image =
          Image::uninitialized(s.width, s.height, s.channels, Depth::u16, device_.host_results());
      device_.download(current->buffer, output.image);
    }
    return output;
  }

  /// The steps on an image already on the device, which they only read; the last step's image
  /// (none after a histogram) stays there, its histograms and threshold in `output`.
  std::optional<Plane> run_on_device(const OpChain& resolved, const Plane& input,
                                     OpOutput& output) {
    std::optional<Plane> current = input;
    for (const OpStep& step : resolved) {
      if (!current) break;  // a histogram ends the chain
      output = OpOutput{};
      current =
          step_for_(step.op)(*this, step.op, *current, at_depth(step.params, Depth::u16), output);
      if (current) device_.end_step(current->buffer);
    }
    return current;
  }

  Device& device() { return device_; }

  /// A new device image of `shape`.
  Plane like(Shape shape) { return {device_.alloc(shape.samples()), shape}; }

  // The steps of the ops whose kernels the Device launches, each a Step (step_of).

  std::optional<Plane> gray(Op /*op*/, const Plane& in, const OpParams& /*params*/,
                            OpOutput& /*output*/) {
    return gray(in);
  }

  std::optional<Plane> gaussian(Op /*op*/, const Plane& in, const OpParams& params,
                                OpOutput& /*output*/) {
    Plane out = like(in.shape);
    device_.gaussian(in.buffer, out.buffer, in.shape, gaussian_weights(params.sigma).q,
                     params.border, params.variant != kDirectVariant);
    return out;
  }

  std::optional<Plane> sobel(Op /*op*/, const Plane& in, const OpParams& params,
                             OpOutput& /*output*/) {
    const Plane g = gray(in);
    Plane out = like(g.shape);
    device_.sobel(g.buffer, out.buffer, g.shape, params.border, params.sobel_output);
    return out;
  }

  std::optional<Plane> sharpen(Op /*op*/, const Plane& in, const OpParams& params,
                               OpOutput& /*output*/) {
    Plane out = like(in.shape);
    device_.sharpen(in.buffer, out.buffer, in.shape, params.border);
    return out;
  }

  std::optional<Plane> histogram(Op /*op*/, const Plane& in, const OpParams& params,
                                 OpOutput& output) {
    if (params.per_channel) {
      for (int c = 0; c < in.shape.channels; ++c) {
        output.wide_histogram.push_back(histogram(in, c));
      }
    } else {
      output.wide_histogram.push_back(histogram(gray(in), 0));
    }
    return std::nullopt;
  }

  std::optional<Plane> equalize(Op /*op*/, const Plane& in, const OpParams& /*params*/,
                                OpOutput& /*output*/) {
    Plane out = like(in.shape);
    if (in.shape.channels == 1) {
      const std::vector<std::uint16_t> lut = equalize_levels(histogram(in, 0));
      device_.apply_lut(in.buffer, out.buffer, in.shape, device_.table(lut));
    } else {
      // Colour: the Y of YCrCb through the table, Cr and Cb kept, alpha copied.
      const std::vector<std::uint16_t> lut = equalize_levels(luma_histogram(in));
      device_.equalize_color(in.buffer, out.buffer, in.shape, device_.table(lut));
    }
    return out;
  }

  /// otsu and segment: the global threshold of the gray histogram by the op's rule, then the
  /// threshold (or segment's adaptive one) on the device.
  std::optional<Plane> threshold(Op op, const Plane& in, const OpParams& params, OpOutput& output) {
    const Plane g = gray(in);
    const int t = global_threshold(op, histogram(g, 0));
    output.threshold = t;
    Plane out = like(g.shape);
    if (reads(op, Param::adaptive) && params.adaptive) {
      device_.adaptive_segment(g.buffer, out.buffer, g.shape, params.window, params.min_contrast,
                               t);
    } else {
      device_.threshold(g.buffer, out.buffer, g.shape, t);
    }
    return out;
  }

  /// The op's erosions and dilations in turn (morphology_steps).
  std::optional<Plane> morphology(Op op, const Plane& in, const OpParams& params,
                                  OpOutput& /*output*/) {
    const StructuringElement se = make_structuring_element(params.se);
    const Buffer mask = device_.mask(se.mask);
    Plane current = in;
    std::optional<Plane> spare;  // two buffers in turn, however many steps
    bool reading_input = true;
    for (const MorphOp step : morphology_steps(op, params.iterations)) {
      Plane out = spare ? *spare : like(current.shape);
      device_.morphology(current.buffer, out.buffer, current.shape, mask, se, step);
      spare.reset();
      if (!reading_input) spare = current;
      current = std::move(out);
      reading_input = false;
    }
    return current;
  }

  std::optional<Plane> pool(Op /*op*/, const Plane& in, const OpParams& /*params*/,
                            OpOutput& /*output*/) {
    Plane out =
        like({pool_extent(in.shape.width), pool_extent(in.shape.height), in.shape.channels});
    device_.pool(in.buffer, out.buffer, in.shape, out.shape);
    return out;
  }

 private:
  /// Channel `channel`'s histogram of `in`.
  std::vector<std::uint64_t> histogram(const Plane& in, int channel) {
    const auto channels = static_cast<std::uint64_t>(in.shape.channels);
    return counted(in.shape.pixels(), [&](std::uint64_t first, std::uint32_t count,
                                          std::span<std::uint32_t> bins) {
      device_.count_samples(in.buffer, first * channels + static_cast<std::uint64_t>(channel),
                            in.shape.channels, count, bins);
    });
  }

  /// The histogram of an RGB(A) image's YCrCb luma.
  std::vector<std::uint64_t> luma_histogram(const Plane& in) {
    return counted(in.shape.pixels(),
                   [&](std::uint64_t first, std::uint32_t count, std::span<std::uint32_t> bins) {
                     device_.count_luma(in.buffer, first, in.shape.channels, count, bins);
                   });
  }

  /// `pixels` counted in launches of at most kHistogramChunk, count(first, count, bins) each,
  /// summed here in 64 bits.
  template <typename Count>
  static std::vector<std::uint64_t> counted(std::uint64_t pixels, Count&& count) {
    std::vector<std::uint64_t> total(kLevels16, 0);
    std::vector<std::uint32_t> chunk(kLevels16);
    for (std::uint64_t first = 0; first < pixels; first += kHistogramChunk) {
      count(first, static_cast<std::uint32_t>(std::min(kHistogramChunk, pixels - first)),
            std::span<std::uint32_t>(chunk));
      for (std::size_t v = 0; v < total.size(); ++v) total[v] += chunk[v];
    }
    return total;
  }

  /// A 1-channel image is its own gray.
  Plane gray(const Plane& in) {
    if (in.shape.channels == 1) return in;
    Plane out = like({in.shape.width, in.shape.height, 1});
    device_.gray(in.buffer, out.buffer, in.shape);
    return out;
  }

  Device& device_;
  Step (*step_for_)(Op);
};

}  // namespace parfilter::deep
