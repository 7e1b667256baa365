// vmax3, the dummy op of scripts/check-add-op.sh: its kernel at either depth, the op at 8 bits
// and at 16 bits.
#include <algorithm>
#include <optional>

#include "cuda_op.hpp"
#include "device_common.cuh"

namespace parfilter::cuda {
namespace {

constexpr int kBlock = 256;
constexpr unsigned int kMaxGridY = 65535;

/// Pitches in samples.
template <typename T>
__global__ void vmax3_kernel(const T* in, T* out, long long in_pitch, long long out_pitch,
                             long long row_samples, int height) {
  const long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= row_samples) return;
  for (int y = static_cast<int>(blockIdx.y); y < height; y += static_cast<int>(gridDim.y)) {
    const T* mid = in + y * in_pitch + i;
    T v = *mid;
    if (y > 0 && mid[-in_pitch] > v) v = mid[-in_pitch];
    if (y + 1 < height && mid[in_pitch] > v) v = mid[in_pitch];
    out[y * out_pitch + i] = v;
  }
}

template <typename T>
void vmax3_launch(const T* in, T* out, long long in_pitch, long long out_pitch,
                  long long row_samples, int height, cudaStream_t stream) {
  if (row_samples == 0 || height == 0) return;
  const dim3 grid(blocks_for(row_samples, kBlock),
                  std::min(static_cast<unsigned int>(height), kMaxGridY));
  vmax3_kernel<T><<<grid, kBlock, 0, stream>>>(in, out, in_pitch, out_pitch, row_samples, height);
  CUDA_CHECK_LAUNCH("vmax3 kernel");
}

DeviceResult run(Workspace& ws, const OpParams& /*params*/, const DeviceImage& in) {
  const DeviceImage out = ws.image(ws.output, in.width, in.height, in.channels);
  vmax3_launch(in.data, out.data, static_cast<long long>(in.pitch),
               static_cast<long long>(out.pitch), static_cast<long long>(in.width) * in.channels,
               in.height, ws.stream.get());
  return DeviceResult{out, {}, {}};
}

std::optional<Plane16> run_16(Chain16& chain, Op /*op*/, const Plane16& in,
                              const OpParams& /*params*/, OpOutput& /*output*/) {
  Plane16 out = chain.like(in.shape);
  const long long row = static_cast<long long>(in.shape.width) * in.shape.channels;
  CudaDeepDevice& device = chain.device();
  device.timed([&] {
    vmax3_launch(CudaDeepDevice::image(in.buffer), CudaDeepDevice::image(out.buffer), row, row, row,
                 in.shape.height, device.stream());
  });
  return out;
}

}  // namespace

namespace ops {
extern const CudaOp vmax3_op{"vmax3", default_variant_only, run, run_16};
}  // namespace ops

}  // namespace parfilter::cuda
