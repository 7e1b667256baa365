// 16-bit images on the OpenCL device: the Device of common/kernels/device_chain_16.hpp over
// kernels/deep.cl built with SAMPLE = ushort, and the chain that runs on it. An op of its own
// kernels runs them through ClDeepDevice::run from its ClOp::run_16.
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <string_view>

#include "cl_lane.hpp"
#include "device_chain_16.hpp"
#include "parfilter/backend.hpp"

namespace parfilter::opencl {

class ClDeepDevice {
 public:
  using Buffer = opencl::Buffer;

  explicit ClDeepDevice(Lane& lane);

  Buffer alloc(std::size_t samples);
  Buffer upload(const Image& image);
  Buffer table(std::span<const std::uint16_t> lut);
  Buffer mask(std::span<const std::uint8_t> mask);
  void end_step(const Buffer& result) { lane_.release_except(result); }
  [[nodiscard]] std::shared_ptr<SampleAllocator> host_results() const {
    return lane_.host_results();
  }
  void download(const Buffer& buffer, Image& into);

  /// Enqueues `kernel` of kernels/<program>.cl, built at 16 bits (SAMPLE = ushort, TOP =
  /// 65535), over `items` work items in groups of `local`.
  template <typename... Args>
  void run(std::string_view program, std::string_view kernel, Range items, Range local,
           const Args&... args) {
    lane_.run(program, kernel, defines_, items, local, args...);
  }

  // The launchers DeviceChain16's steps call (kernels/deep.cl).
  void gray(const Buffer& in, const Buffer& out, const deep::Shape& s);
  void gaussian(const Buffer& in, const Buffer& out, const deep::Shape& s,
                const std::array<int, kGaussianTaps>& q, BorderMode border, bool separable);
  void sobel(const Buffer& gray, const Buffer& out, const deep::Shape& s, BorderMode border,
             SobelOutput output);
  void sharpen(const Buffer& in, const Buffer& out, const deep::Shape& s, BorderMode border);
  void count_samples(const Buffer& in, std::uint64_t first, int stride, std::uint32_t count,
                     std::span<std::uint32_t> bins);
  void count_luma(const Buffer& in, std::uint64_t first, int channels, std::uint32_t count,
                  std::span<std::uint32_t> bins);
  void apply_lut(const Buffer& in, const Buffer& out, const deep::Shape& s, const Buffer& lut);
  void equalize_color(const Buffer& in, const Buffer& out, const deep::Shape& s, const Buffer& lut);
  void threshold(const Buffer& gray, const Buffer& out, const deep::Shape& s, int t);
  void adaptive_segment(const Buffer& gray, const Buffer& out, const deep::Shape& s, int window,
                        int min_contrast, int global_t);
  void morphology(const Buffer& in, const Buffer& out, const deep::Shape& s, const Buffer& mask,
                  const StructuringElement& se, MorphOp op);
  void pool(const Buffer& in, const Buffer& out, const deep::Shape& s, const deep::Shape& o);

 private:
  template <typename... Args>
  void run2d(std::string_view kernel, const deep::Shape& items, const Args&... args);
  template <typename... Args>
  void run1d(std::string_view kernel, std::uint64_t items, const Args&... args);
  /// Zeroed 32-bit bins on the device, launch(bins), the counts read into `bins` (waits).
  template <typename Launch>
  void read_counts(std::span<std::uint32_t> bins, Launch&& launch);

  Lane& lane_;
  Defines defines_;
};

using Chain16 = deep::DeviceChain16<ClDeepDevice>;
using Plane16 = Chain16::Plane;

/// The chain's steps (variants resolved) on a 16-bit image, on `lane`: one upload, the steps'
/// kernels, one download. Waits for the lane and fills `times`.
[[nodiscard]] OpOutput run_chain_16(Lane& lane, const OpChain& resolved, const Image& input,
                                    StageTimes* times);

}  // namespace parfilter::opencl
