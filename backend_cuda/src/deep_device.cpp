// CudaDeepDevice (deep_device.hpp) and the 16-bit chains over it.
#include "deep_device.hpp"

#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>

#include "cuda_op.hpp"

namespace parfilter::cuda {

using deep16::Sample;

CudaDeepDevice::CudaDeepDevice(Workspace& ws, std::shared_ptr<SampleAllocator> results)
    : ws_(ws), stream_(ws.stream.get()), results_(std::move(results)) {}

CudaDeepDevice::Buffer CudaDeepDevice::alloc(std::size_t samples) {
  return bytes(samples * sizeof(Sample));
}

CudaDeepDevice::Buffer CudaDeepDevice::upload(const Image& image) {
  ws_.upload_start.record(stream_);
  Buffer buffer = copy_up(image.bytes(), image.size_bytes());
  ws_.upload_stop.record(stream_);
  return buffer;
}

CudaDeepDevice::Buffer CudaDeepDevice::table(std::span<const std::uint16_t> lut) {
  return copy_up(keep(lut.data(), lut.size_bytes()), lut.size_bytes());
}

CudaDeepDevice::Buffer CudaDeepDevice::mask(std::span<const std::uint8_t> mask) {
  return copy_up(keep(mask.data(), mask.size_bytes()), mask.size_bytes());
}

void CudaDeepDevice::download(Buffer buffer, Image& into) {
  ws_.download_start.record(stream_);
  CUDA_CHECK(
      cudaMemcpyAsync(into.bytes(), buffer, into.size_bytes(), cudaMemcpyDeviceToHost, stream_));
  ws_.download_stop.record(stream_);
  downloaded_ = true;
}

double CudaDeepDevice::kernel_ms() const {
  double sum = 0.0;
  for (std::size_t i = 0; i + 1 < launch_events_.size(); i += 2) {
    sum += launch_events_[i + 1].ms_since(launch_events_[i]);
  }
  return sum;
}

void CudaDeepDevice::gray(Buffer in, Buffer out, const deep::Shape& s) {
  timed([&] { deep16::launch_gray(image(in), image(out), s, stream_); });
}

void CudaDeepDevice::gaussian(Buffer in, Buffer out, const deep::Shape& s,
                              const deep16::GaussianTaps& q, BorderMode border, bool separable) {
  auto* sums =
      separable ? static_cast<std::uint32_t*>(bytes(s.samples() * sizeof(std::uint32_t))) : nullptr;
  timed([&] { deep16::launch_gaussian(image(in), image(out), sums, s, q, border, stream_); });
}

void CudaDeepDevice::sobel(Buffer gray, Buffer out, const deep::Shape& s, BorderMode border,
                           SobelOutput output) {
  timed([&] { deep16::launch_sobel(image(gray), image(out), s, border, output, stream_); });
}

void CudaDeepDevice::sharpen(Buffer in, Buffer out, const deep::Shape& s, BorderMode border) {
  timed([&] { deep16::launch_sharpen(image(in), image(out), s, border, stream_); });
}

void CudaDeepDevice::count_samples(Buffer in, std::uint64_t first, int stride, std::uint32_t count,
                                   std::span<std::uint32_t> bins) {
  read_counts(bins, [&](std::uint32_t* device_bins) {
    deep16::launch_histogram(image(in), first, stride, count, device_bins, stream_);
  });
}

void CudaDeepDevice::count_luma(Buffer in, std::uint64_t first, int channels, std::uint32_t count,
                                std::span<std::uint32_t> bins) {
  read_counts(bins, [&](std::uint32_t* device_bins) {
    deep16::launch_luma_histogram(image(in), first, channels, count, device_bins, stream_);
  });
}

void CudaDeepDevice::apply_lut(Buffer in, Buffer out, const deep::Shape& s, Buffer lut) {
  timed([&] {
    deep16::launch_apply_lut(image(in), image(out), s, static_cast<const std::uint16_t*>(lut),
                             stream_);
  });
}

void CudaDeepDevice::equalize_color(Buffer in, Buffer out, const deep::Shape& s, Buffer lut) {
  timed([&] {
    deep16::launch_equalize_color(image(in), image(out), s, static_cast<const std::uint16_t*>(lut),
                                  stream_);
  });
}

void CudaDeepDevice::threshold(Buffer gray, Buffer out, const deep::Shape& s, int t) {
  timed([&] { deep16::launch_threshold(image(gray), image(out), s, t, stream_); });
}

void CudaDeepDevice::adaptive_segment(Buffer gray, Buffer out, const deep::Shape& s, int window,
                                      int min_contrast, int global_t) {
  timed([&] {
    deep16::launch_adaptive_segment(image(gray), image(out), s, window, min_contrast, global_t,
                                    stream_);
  });
}

void CudaDeepDevice::morphology(Buffer in, Buffer out, const deep::Shape& s, Buffer mask,
                                const StructuringElement& se, MorphOp op) {
  timed([&] {
    deep16::launch_morphology(image(in), image(out), s, static_cast<const std::uint8_t*>(mask), se,
                              op, stream_);
  });
}

void CudaDeepDevice::pool(Buffer in, Buffer out, const deep::Shape& s, const deep::Shape& o) {
  timed([&] { deep16::launch_pool(image(in), image(out), s, o, stream_); });
}

CudaDeepDevice::Buffer CudaDeepDevice::bytes(std::size_t count) {
  DeviceBuffer& buffer = owned_.emplace_back();
  buffer.reserve(count == 0 ? 1 : count);
  return buffer.get();
}

const void* CudaDeepDevice::keep(const void* data, std::size_t count) {
  const auto* first = static_cast<const unsigned char*>(data);
  return host_tables_.emplace_back(first, first + count).data();
}

CudaDeepDevice::Buffer CudaDeepDevice::copy_up(const void* host, std::size_t count) {
  Buffer buffer = bytes(count);
  CUDA_CHECK(cudaMemcpyAsync(buffer, host, count, cudaMemcpyHostToDevice, stream_));
  return buffer;
}

template <typename Launch>
void CudaDeepDevice::read_counts(std::span<std::uint32_t> bins, Launch&& launch) {
  if (device_bins_ == nullptr) device_bins_ = static_cast<std::uint32_t*>(bytes(bins.size_bytes()));
  CUDA_CHECK(cudaMemsetAsync(device_bins_, 0, bins.size_bytes(), stream_));
  timed([&] { launch(device_bins_); });
  CUDA_CHECK(cudaMemcpyAsync(bins.data(), device_bins_, bins.size_bytes(), cudaMemcpyDeviceToHost,
                             stream_));
  CUDA_CHECK(cudaStreamSynchronize(stream_));
}

namespace {

/// The op's 16-bit step from its file in ops/.
Chain16::Step step_16(Op op) { return Chain16::required(cuda_op(op).run_16, "cuda", op); }

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
    const std::optional<Plane16> last =
        Chain16(device, step_16).run_on_device(resolved, Plane16{in, shape}, result);
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
      output = Chain16(device, step_16).run(resolved, input);
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
