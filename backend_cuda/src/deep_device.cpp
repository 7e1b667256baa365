// 16-bit images on the CUDA device: the one definition of the ops at 16 bits
// (common/kernels/device_chain_16.hpp) over kernels/deep_filters.cu and deep_levels.cu, on a
// workspace's stream.
#include "deep_device.hpp"

#include <cstdint>
#include <deque>
#include <memory>
#include <optional>
#include <span>
#include <utility>
#include <vector>

#include "deep_launchers.hpp"
#include "device_chain_16.hpp"
#include "device_memory.hpp"

namespace parfilter::cuda {
namespace {

using deep16::Sample;

class CudaDeepDevice {
 public:
  /// Device memory this object owns: images, tables and masks alike.
  using Buffer = void*;

  CudaDeepDevice(Workspace& ws, std::shared_ptr<SampleAllocator> results)
      : ws_(ws), stream_(ws.stream.get()), results_(std::move(results)) {}

  Buffer alloc(std::size_t samples) { return bytes(samples * sizeof(Sample)); }
  /// The upload, then the kernels' start, timed by the workspace's events.
  Buffer upload(const Image& image) {
    ws_.upload_start.record(stream_);
    Buffer buffer = copy_up(image.bytes(), image.size_bytes());
    ws_.upload_stop.record(stream_);
    return buffer;
  }
  Buffer table(std::span<const std::uint16_t> lut) {
    return copy_up(keep(lut.data(), lut.size_bytes()), lut.size_bytes());
  }
  Buffer mask(std::span<const std::uint8_t> mask) {
    return copy_up(keep(mask.data(), mask.size_bytes()), mask.size_bytes());
  }
  /// The buffers live until the chain ends: a step's kernels are still queued when the next
  /// step's are.
  void end_step(Buffer /*result*/) {}
  [[nodiscard]] std::shared_ptr<SampleAllocator> host_results() const { return results_; }
  void download(Buffer buffer, Image& into) {
    ws_.download_start.record(stream_);
    CUDA_CHECK(
        cudaMemcpyAsync(into.bytes(), buffer, into.size_bytes(), cudaMemcpyDeviceToHost, stream_));
    ws_.download_stop.record(stream_);
    downloaded_ = true;
  }
  [[nodiscard]] bool downloaded() const { return downloaded_; }
  /// The kernels' own time: the sum over their launches' events, as OpenCL's profiling gives
  /// it (the histograms' read-backs and the host math between the steps left out).
  [[nodiscard]] double kernel_ms() const {
    double sum = 0.0;
    for (std::size_t i = 0; i + 1 < launch_events_.size(); i += 2) {
      sum += launch_events_[i + 1].ms_since(launch_events_[i]);
    }
    return sum;
  }

  void gray(Buffer in, Buffer out, const deep::Shape& s) {
    timed([&] { deep16::launch_gray(image(in), image(out), s, stream_); });
  }
  void gaussian(Buffer in, Buffer out, const deep::Shape& s, const deep16::GaussianTaps& q,
                BorderMode border, bool separable) {
    auto* sums = separable ? static_cast<std::uint32_t*>(bytes(s.samples() * sizeof(std::uint32_t)))
                           : nullptr;
    timed([&] { deep16::launch_gaussian(image(in), image(out), sums, s, q, border, stream_); });
  }
  void sobel(Buffer gray, Buffer out, const deep::Shape& s, BorderMode border, SobelOutput output) {
    timed([&] { deep16::launch_sobel(image(gray), image(out), s, border, output, stream_); });
  }
  void sharpen(Buffer in, Buffer out, const deep::Shape& s, BorderMode border) {
    timed([&] { deep16::launch_sharpen(image(in), image(out), s, border, stream_); });
  }
  void count_samples(Buffer in, std::uint64_t first, int stride, std::uint32_t count,
                     std::span<std::uint32_t> bins) {
    read_counts(bins, [&](std::uint32_t* device_bins) {
      deep16::launch_histogram(image(in), first, stride, count, device_bins, stream_);
    });
  }
  void count_luma(Buffer in, std::uint64_t first, int channels, std::uint32_t count,
                  std::span<std::uint32_t> bins) {
    read_counts(bins, [&](std::uint32_t* device_bins) {
      deep16::launch_luma_histogram(image(in), first, channels, count, device_bins, stream_);
    });
  }
  void apply_lut(Buffer in, Buffer out, const deep::Shape& s, Buffer lut) {
    timed([&] {
      deep16::launch_apply_lut(image(in), image(out), s, static_cast<const std::uint16_t*>(lut),
                               stream_);
    });
  }
  void equalize_color(Buffer in, Buffer out, const deep::Shape& s, Buffer lut) {
    timed([&] {
      deep16::launch_equalize_color(image(in), image(out), s,
                                    static_cast<const std::uint16_t*>(lut), stream_);
    });
  }
  void threshold(Buffer gray, Buffer out, const deep::Shape& s, int t) {
    timed([&] { deep16::launch_threshold(image(gray), image(out), s, t, stream_); });
  }
  void adaptive_segment(Buffer gray, Buffer out, const deep::Shape& s, int window, int min_contrast,
                        int global_t) {
    timed([&] {
      deep16::launch_adaptive_segment(image(gray), image(out), s, window, min_contrast, global_t,
                                      stream_);
    });
  }
  void morphology(Buffer in, Buffer out, const deep::Shape& s, Buffer mask,
                  const StructuringElement& se, MorphOp op) {
    timed([&] {
      deep16::launch_morphology(image(in), image(out), s, static_cast<const std::uint8_t*>(mask),
                                se, op, stream_);
    });
  }
  void pool(Buffer in, Buffer out, const deep::Shape& s, const deep::Shape& o) {
    timed([&] { deep16::launch_pool(image(in), image(out), s, o, stream_); });
  }

 private:
  static Sample* image(Buffer buffer) { return static_cast<Sample*>(buffer); }

  template <typename Launch>
  void timed(Launch&& launch) {
    launch_events_.emplace_back().record(stream_);
    launch();
    launch_events_.emplace_back().record(stream_);
  }

  Buffer bytes(std::size_t count) {
    DeviceBuffer& buffer = owned_.emplace_back();
    buffer.reserve(count == 0 ? 1 : count);
    return buffer.get();
  }
  /// A host copy of a table that lives until the chain ends, as its queued upload reads it.
  const void* keep(const void* data, std::size_t count) {
    const auto* first = static_cast<const unsigned char*>(data);
    return host_tables_.emplace_back(first, first + count).data();
  }
  Buffer copy_up(const void* host, std::size_t count) {
    Buffer buffer = bytes(count);
    CUDA_CHECK(cudaMemcpyAsync(buffer, host, count, cudaMemcpyHostToDevice, stream_));
    return buffer;
  }

  /// Zeroed 32-bit bins on the device, launch(bins) timed, the counts read into `bins`.
  template <typename Launch>
  void read_counts(std::span<std::uint32_t> bins, Launch&& launch) {
    if (device_bins_ == nullptr)
      device_bins_ = static_cast<std::uint32_t*>(bytes(bins.size_bytes()));
    CUDA_CHECK(cudaMemsetAsync(device_bins_, 0, bins.size_bytes(), stream_));
    timed([&] { launch(device_bins_); });
    CUDA_CHECK(cudaMemcpyAsync(bins.data(), device_bins_, bins.size_bytes(), cudaMemcpyDeviceToHost,
                               stream_));
    CUDA_CHECK(cudaStreamSynchronize(stream_));
  }

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

std::size_t packed_bytes(const deep::Shape& shape) {
  return static_cast<std::size_t>(shape.width) * static_cast<std::size_t>(shape.channels) *
         sizeof(Sample);
}

}  // namespace

DeviceOutput run_chain_16_on_device(Workspace& ws, const OpChain& resolved,
                                    const DeviceImageRef& input) {
  ws.gate.open();
  const cudaStream_t stream = ws.stream.get();
  const deep::Shape shape{input.width, input.height, input.channels};
  DeviceOutput output;
  CudaDeepDevice device(ws, nullptr);
  try {
    // Strided rows are packed first, device to device: the kernels take packed rows.
    void* in = input.data;
    if (input.pitch != packed_bytes(shape)) {
      in = device.alloc(shape.samples());
      CUDA_CHECK(cudaMemcpy2DAsync(in, packed_bytes(shape), input.data, input.pitch,
                                   packed_bytes(shape), static_cast<std::size_t>(shape.height),
                                   cudaMemcpyDeviceToDevice, stream));
    }
    OpOutput result;
    const std::optional<Chain16::Plane> last =
        Chain16(device).run_on_device(resolved, Chain16::Plane{in, shape}, result);
    output.wide_histogram = std::move(result.wide_histogram);
    output.threshold = result.threshold;
    if (last) {
      const std::size_t row = packed_bytes(last->shape);
      output.owner = packed_device_copy(last->buffer, row, row, last->shape.height, stream);
      output.image = {static_cast<std::uint8_t*>(output.owner.get()),
                      last->shape.width,
                      last->shape.height,
                      last->shape.channels,
                      row,
                      input.device,
                      Depth::u16};
    }
    ws.stream.synchronize();  // before the intermediate buffers are freed
  } catch (...) {
    (void)cudaStreamSynchronize(stream);
    throw;
  }
  return output;
}

OpOutput run_chain_16(Workspace& ws, const OpChain& resolved, const Image& input,
                      const std::shared_ptr<SampleAllocator>& results, StageTimes* times) {
  ws.synchronize();  // the workspace's gate open, its stream idle
  const cudaStream_t stream = ws.stream.get();
  OpOutput output;
  bool downloaded = false;
  double kernel_ms = 0.0;
  {
    CudaDeepDevice device(ws, results);
    try {
      output = deep::DeviceChain16<CudaDeepDevice>(device).run(resolved, input);
      ws.stream.synchronize();
    } catch (...) {
      (void)cudaStreamSynchronize(stream);  // before the buffers its commands use are freed
      throw;
    }
    downloaded = device.downloaded();
    kernel_ms = device.kernel_ms();
  }
  if (times != nullptr) {
    *times = StageTimes{};
    times->upload_ms = ws.upload_stop.ms_since(ws.upload_start);
    times->compute_ms = kernel_ms;
    times->download_ms = downloaded ? ws.download_stop.ms_since(ws.download_start) : 0.0;
  }
  return output;
}

}  // namespace parfilter::cuda
