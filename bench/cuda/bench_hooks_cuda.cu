// The GPU part of parfilter-bench's hooks (bench/bench_hooks.hpp): the device-to-device copy
// that bounds every kernel, and NPP's counterparts through bench_npp (the same calls
// parfilter-bench-cuda times).
#include <algorithm>
#include <string>
#include <vector>

#include "bench_hooks.hpp"
#include "bench_npp.hpp"
#include "bench_timer.hpp"
#include "cuda_ops.hpp"
#include "launchers.hpp"

namespace parfilter::bench {
namespace {

constexpr int kRgba = 4;
constexpr std::string_view kErodePrefix = "erode rect ";

bool have_device() {
  int count = 0;
  return cudaGetDeviceCount(&count) == cudaSuccess && count > 0;
}

/// NPP's rows name ops as parfilter-bench-cuda prints them ("erode rect 31x31",
/// "histogram gray"): parfilter's op name and the SE side.
PeerTiming from_row(const cuda::bench::Row& row) {
  PeerTiming timing{row.op, 0, row.variant, row.ms, row.bytes};
  if (row.op.rfind(kErodePrefix, 0) == 0) {
    timing.op = "erode";
    timing.se = std::stoi(row.op.substr(kErodePrefix.size()));
  } else if (row.op.rfind("histogram", 0) == 0) {
    timing.op = "histogram";
  }
  return timing;
}

}  // namespace

std::optional<DeviceCopy> gpu_copy(std::size_t bytes) {
  if (!have_device()) return std::nullopt;
  CUDA_CHECK(cudaSetDevice(0));
  cudaDeviceProp prop{};
  CUDA_CHECK(cudaGetDeviceProperties(&prop, 0));
  const cuda::Stream stream;
  cuda::DeviceBuffer src;
  cuda::DeviceBuffer dst;
  src.reserve(bytes);
  dst.reserve(bytes);
  CUDA_CHECK(cudaMemsetAsync(src.get(), 1, bytes, stream.get()));
  const double ms = cuda::bench::device_copy_ms(stream.get(), dst.get(), src.get(), bytes);
  return DeviceCopy{prop.name, cuda::bench::gb_per_s(2.0 * static_cast<double>(bytes), ms)};
}

std::string gpu_peer_missing() {
  if (!have_device()) return "NPP: no CUDA device";
  const std::string missing = cuda::bench::npp_missing();
  return missing.empty() ? "" : "NPP: " + missing;
}

std::vector<PeerTiming> gpu_peer_timings(const Image& rgba) {
  if (rgba.channels() != kRgba || !gpu_peer_missing().empty()) return {};
  const cuda::Stream stream;
  cuda::DeviceBuffer input, gray, output, gray_out;
  const cuda::DeviceImage in =
      cuda::device_image(input, rgba.width(), rgba.height(), rgba.channels());
  CUDA_CHECK(cudaMemcpy2D(in.data, in.pitch, rgba.data(), static_cast<std::size_t>(rgba.stride()),
                          static_cast<std::size_t>(rgba.stride()), rgba.height(),
                          cudaMemcpyHostToDevice));
  const cuda::DeviceImage gray_image = cuda::device_image(gray, rgba.width(), rgba.height(), 1);
  cuda::launch_gray(in, gray_image, stream.get());
  const cuda::bench::NppImages images{
      in, gray_image, cuda::device_image(output, rgba.width(), rgba.height(), kRgba),
      cuda::device_image(gray_out, rgba.width(), rgba.height(), 1)};
  std::vector<PeerTiming> timings;
  for (const auto& row : cuda::bench::run_npp(images, stream.get())) {
    timings.push_back(from_row(row));
  }
  return timings;
}

}  // namespace parfilter::bench
