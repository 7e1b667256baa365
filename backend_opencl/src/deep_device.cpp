// ClDeepDevice (deep_device.hpp) and the 16-bit chain over it.
#include "deep_device.hpp"

#include <algorithm>
#include <cstdint>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "cl_op.hpp"
#include "ops.hpp"

namespace parfilter::opencl {
namespace {

using Sample = std::uint16_t;
constexpr std::string_view kProgram = "deep";
constexpr int kTop = deep::kLevels16 - 1;

std::size_t bytes_of(std::size_t samples) { return samples * sizeof(Sample); }

Range pixels_of(const deep::Shape& shape) {
  return {static_cast<std::size_t>(shape.width), static_cast<std::size_t>(shape.height)};
}

Range flat(std::uint64_t items) { return {static_cast<std::size_t>(items), 1}; }

/// The Gaussian's five weights as the kernels take them (an int4 and an int).
struct GaussianArgs {
  cl_int4 q0123;
  cl_int q4;
};

GaussianArgs gaussian_args(const std::array<int, kGaussianTaps>& q) {
  GaussianArgs args{};
  for (int i = 0; i < 4; ++i) args.q0123.s[i] = q[static_cast<std::size_t>(i)];
  args.q4 = q[4];
  return args;
}

}  // namespace

ClDeepDevice::ClDeepDevice(Lane& lane) : lane_(lane) {
  defines_.add("SAMPLE", "ushort").add("TOP", kTop);
}

ClDeepDevice::Buffer ClDeepDevice::alloc(std::size_t samples) {
  return lane_.buffer(bytes_of(samples), "16-bit image");
}

ClDeepDevice::Buffer ClDeepDevice::upload(const Image& image) {
  Buffer buffer = lane_.buffer(image.size_bytes(), "input image");
  check(clEnqueueWriteBuffer(lane_.queue(), buffer.get(), CL_FALSE, 0, image.size_bytes(),
                             image.bytes(), 0, nullptr, lane_.track(Lane::Stage::upload)),
        "clEnqueueWriteBuffer(input image)");
  return buffer;
}

ClDeepDevice::Buffer ClDeepDevice::table(std::span<const std::uint16_t> lut) {
  return lane_.upload(lut.data(), lut.size_bytes(), "equalize table");
}

ClDeepDevice::Buffer ClDeepDevice::mask(std::span<const std::uint8_t> mask) {
  return lane_.upload(mask.data(), mask.size_bytes(), "structuring element");
}

void ClDeepDevice::download(const Buffer& buffer, Image& into) {
  lane_.download(buffer, into.bytes(), into.size_bytes(), "output image");
}

template <typename... Args>
void ClDeepDevice::run2d(std::string_view kernel, const deep::Shape& items, const Args&... args) {
  lane_.run(kProgram, kernel, defines_, pixels_of(items), kTile, args...);
}

template <typename... Args>
void ClDeepDevice::run1d(std::string_view kernel, std::uint64_t items, const Args&... args) {
  lane_.run(kProgram, kernel, defines_, flat(items), {kGroup1d, 1}, args...);
}

template <typename Launch>
void ClDeepDevice::read_counts(std::span<std::uint32_t> bins, Launch&& launch) {
  const Buffer device_bins = lane_.buffer(bins.size_bytes(), "16-bit histogram");
  lane_.zero(device_bins, bins.size_bytes(), "16-bit histogram");
  launch(device_bins);
  lane_.download(device_bins, bins.data(), bins.size_bytes(), "16-bit histogram");
}

void ClDeepDevice::gray(const Buffer& in, const Buffer& out, const deep::Shape& s) {
  run2d("deep_gray", s, in, out, s.width, s.height, s.channels);
}

void ClDeepDevice::gaussian(const Buffer& in, const Buffer& out, const deep::Shape& s,
                            const std::array<int, kGaussianTaps>& q, BorderMode border,
                            bool separable) {
  const GaussianArgs w = gaussian_args(q);
  const auto kind = static_cast<cl_int>(border.kind);
  const auto value = static_cast<cl_uint>(border.value);
  if (!separable) {
    run2d("deep_gaussian_direct", s, in, out, s.width, s.height, s.channels, w.q0123, w.q4, kind,
          value);
    return;
  }
  const Buffer sums = lane_.buffer(s.samples() * sizeof(cl_uint), "gaussian row sums");
  run2d("deep_gaussian_rows", s, in, sums, s.width, s.height, s.channels, w.q0123, w.q4, kind,
        value);
  run2d("deep_gaussian_columns", s, in, sums, out, s.width, s.height, s.channels, w.q0123, w.q4,
        kind, value);
}

void ClDeepDevice::sobel(const Buffer& gray, const Buffer& out, const deep::Shape& s,
                         BorderMode border, SobelOutput output) {
  run2d("deep_sobel", s, gray, out, s.width, s.height, static_cast<cl_int>(border.kind),
        static_cast<cl_uint>(border.value), static_cast<cl_int>(output));
}

void ClDeepDevice::sharpen(const Buffer& in, const Buffer& out, const deep::Shape& s,
                           BorderMode border) {
  run2d("deep_sharpen", s, in, out, s.width, s.height, s.channels, static_cast<cl_int>(border.kind),
        static_cast<cl_uint>(border.value));
}

void ClDeepDevice::count_samples(const Buffer& in, std::uint64_t first, int stride,
                                 std::uint32_t count, std::span<std::uint32_t> bins) {
  read_counts(bins, [&](const Buffer& device_bins) {
    lane_.run(kProgram, "deep_histogram", defines_, flat(count), {kGroup1d, 1}, in, cl_ulong{first},
              cl_int{stride}, cl_uint{count}, device_bins);
  });
}

void ClDeepDevice::count_luma(const Buffer& in, std::uint64_t first, int channels,
                              std::uint32_t count, std::span<std::uint32_t> bins) {
  read_counts(bins, [&](const Buffer& device_bins) {
    lane_.run(kProgram, "deep_luma_histogram", defines_, flat(count), {kGroup1d, 1}, in,
              cl_ulong{first}, cl_int{channels}, cl_uint{count}, device_bins);
  });
}

void ClDeepDevice::apply_lut(const Buffer& in, const Buffer& out, const deep::Shape& s,
                             const Buffer& lut) {
  run1d("deep_apply_lut", s.pixels(), in, out, cl_ulong{s.pixels()}, lut);
}

void ClDeepDevice::equalize_color(const Buffer& in, const Buffer& out, const deep::Shape& s,
                                  const Buffer& lut) {
  run1d("deep_equalize_color", s.pixels(), in, out, cl_ulong{s.pixels()}, cl_int{s.channels}, lut);
}

void ClDeepDevice::threshold(const Buffer& gray, const Buffer& out, const deep::Shape& s, int t) {
  run1d("deep_threshold", s.pixels(), gray, out, cl_ulong{s.pixels()}, cl_int{t});
}

void ClDeepDevice::adaptive_segment(const Buffer& gray, const Buffer& out, const deep::Shape& s,
                                    int window, int min_contrast, int global_t) {
  run2d("deep_adaptive_segment", s, gray, out, s.width, s.height, cl_int{window},
        cl_int{min_contrast}, cl_int{global_t});
}

void ClDeepDevice::morphology(const Buffer& in, const Buffer& out, const deep::Shape& s,
                              const Buffer& mask, const StructuringElement& se, MorphOp op) {
  run2d("deep_morphology", s, in, out, s.width, s.height, s.channels, mask, cl_int{se.width},
        cl_int{se.height}, cl_int{se.anchor_x}, cl_int{se.anchor_y},
        cl_int{op == MorphOp::erode ? 1 : 0});
}

void ClDeepDevice::pool(const Buffer& in, const Buffer& out, const deep::Shape& s,
                        const deep::Shape& o) {
  run2d("deep_pool", o, in, out, s.width, s.height, s.channels, o.width, o.height);
}

namespace {

/// The op's 16-bit step from its file in ops/.
Chain16::Step step_16(Op op) { return Chain16::required(cl_op(op).run_16, "opencl", op); }

}  // namespace

OpOutput run_chain_16(Lane& lane, const OpChain& resolved, const Image& input, StageTimes* times) {
  lane.begin_image();
  try {
    ClDeepDevice device(lane);
    OpOutput output = Chain16(device, step_16).run(resolved, input);
    lane.finish(times);
    return output;
  } catch (...) {
    lane.drain();  // before the buffers its commands use are released
    throw;
  }
}

}  // namespace parfilter::opencl
