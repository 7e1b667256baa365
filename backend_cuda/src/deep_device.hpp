// 16-bit images on the CUDA device: the Device of common/kernels/device_chain_16.hpp over the
// kernels of kernels/deep_filters.cu and deep_levels.cu (deep_launchers.hpp), on a workspace's
// stream, and the chains that run on it. An op of its own kernels launches them through
// CudaDeepDevice::timed from its CudaOp::run_16.
#pragma once

#include <deque>
#include <memory>
#include <span>
#include <vector>

#include "cuda_ops.hpp"
#include "deep_launchers.hpp"
#include "device_chain_16.hpp"
#include "device_memory.hpp"
#include "parfilter/backend.hpp"

namespace parfilter::cuda {

class CudaDeepDevice {
 public:
  /// Device memory this object owns: images, tables and masks alike.
  using Buffer = void*;

  CudaDeepDevice(Workspace& ws, std::shared_ptr<SampleAllocator> results);

  Buffer alloc(std::size_t samples);
  /// The upload, then the kernels' start, timed by the workspace's events.
  Buffer upload(const Image& image);
  Buffer table(std::span<const std::uint16_t> lut);
  Buffer mask(std::span<const std::uint8_t> mask);
  /// The buffers live until the chain ends: a step's kernels are still queued when the next
  /// step's are.
  void end_step(Buffer /*result*/) {}
  [[nodiscard]] std::shared_ptr<SampleAllocator> host_results() const { return results_; }
  void download(Buffer buffer, Image& into);
  [[nodiscard]] bool downloaded() const { return downloaded_; }
  /// The kernels' own time: the sum over their launches' events, as OpenCL's profiling gives
  /// it (the histograms' read-backs and the host math between the steps left out).
  [[nodiscard]] double kernel_ms() const;

  [[nodiscard]] cudaStream_t stream() const { return stream_; }
  [[nodiscard]] static deep16::Sample* image(Buffer buffer) {
    return static_cast<deep16::Sample*>(buffer);
  }
  /// launch() (kernels enqueued on stream()), its time counted in kernel_ms().
  template <typename Launch>
  void timed(Launch&& launch) {
    launch_events_.emplace_back().record(stream_);
    launch();
    launch_events_.emplace_back().record(stream_);
  }

  // The launchers DeviceChain16's steps call.
  void gray(Buffer in, Buffer out, const deep::Shape& s);
  void gaussian(Buffer in, Buffer out, const deep::Shape& s, const deep16::GaussianTaps& q,
                BorderMode border, bool separable);
  void sobel(Buffer gray, Buffer out, const deep::Shape& s, BorderMode border, SobelOutput output);
  void sharpen(Buffer in, Buffer out, const deep::Shape& s, BorderMode border);
  void count_samples(Buffer in, std::uint64_t first, int stride, std::uint32_t count,
                     std::span<std::uint32_t> bins);
  void count_luma(Buffer in, std::uint64_t first, int channels, std::uint32_t count,
                  std::span<std::uint32_t> bins);
  void apply_lut(Buffer in, Buffer out, const deep::Shape& s, Buffer lut);
  void equalize_color(Buffer in, Buffer out, const deep::Shape& s, Buffer lut);
  void threshold(Buffer gray, Buffer out, const deep::Shape& s, int t);
  void adaptive_segment(Buffer gray, Buffer out, const deep::Shape& s, int window, int min_contrast,
                        int global_t);
  void morphology(Buffer in, Buffer out, const deep::Shape& s, Buffer mask,
                  const StructuringElement& se, MorphOp op);
  void pool(Buffer in, Buffer out, const deep::Shape& s, const deep::Shape& o);

 private:
  Buffer bytes(std::size_t count);
  /// A host copy of a table that lives until the chain ends, as its queued upload reads it.
  const void* keep(const void* data, std::size_t count);
  Buffer copy_up(const void* host, std::size_t count);
  /// Zeroed 32-bit bins on the device, launch(bins) timed, the counts read into `bins`.
  template <typename Launch>
  void read_counts(std::span<std::uint32_t> bins, Launch&& launch);

  Workspace& ws_;
  cudaStream_t stream_;
  std::shared_ptr<SampleAllocator> results_;
  bool downloaded_ = false;
  std::uint32_t* device_bins_ = nullptr;  ///< the histograms' bins, one of owned_
  std::deque<DeviceBuffer> owned_;
  std::deque<Event> launch_events_;  ///< a start and a stop per launch
  std::deque<std::vector<unsigned char>> host_tables_;
};

using Chain16 = deep::DeviceChain16<CudaDeepDevice>;
using Plane16 = Chain16::Plane;

/// The chain's steps (variants resolved) on a 16-bit image, on `ws`'s stream: one upload, the
/// steps' kernels, one download into memory from `results` (null: the heap). Waits for the
/// stream and fills `times`.
[[nodiscard]] OpOutput run_chain_16(Workspace& ws, const OpChain& resolved, const Image& input,
                                    const std::shared_ptr<SampleAllocator>& results,
                                    StageTimes* times);

/// The chain's steps on a 16-bit image in device memory (an array's, which they only read), on
/// ws's stream; the result is copied, packed, into memory DeviceOutput::owner frees. Waits
/// for the stream.
[[nodiscard]] DeviceOutput run_chain_16_on_device(Workspace& ws, const OpChain& resolved,
                                                  const DeviceImageRef& input);

}  // namespace parfilter::cuda
