// Sobel of the gray image, in two variants:
//   pixel - a thread per pixel over a gray plane made first by the gray kernel;
//   multi - gray fused in: a thread takes a quad (four pixels, one 16-byte load for RGBA) and
//           slides down several rows keeping three rows of gray values in registers, so each
//           input pixel is converted to gray about once.
#include "device_common.cuh"

namespace parfilter::cuda {
namespace {

constexpr int kBlock = 128;
constexpr int kPixelBlockX = 32;
constexpr int kPixelBlockY = 8;
constexpr int kMultiRows = 8;                      ///< rows each multi thread slides over
constexpr int kStrip = kQuadPixels + 2;            ///< a quad and its left and right neighbours
constexpr int kSaturatedSquare = 255 * 255 + 255;  ///< above it, round(sqrt) >= 256

/// filter_math's sobel_value: exact rounded magnitude, l1, |dx| or |dy|, saturated.
__device__ __forceinline__ std::uint8_t sobel_value_dev(int gx, int gy, SobelOutput output) {
  const int ax = abs(gx);
  const int ay = abs(gy);
  switch (output) {
    case SobelOutput::magnitude: {
      const int n = ax * ax + ay * ay;
      if (n > kSaturatedSquare) return kMaxSample;
      // n < 2^24: sqrtf is within one of the floor; the loops make it exact.
      int k = static_cast<int>(sqrtf(static_cast<float>(n)));
      while (k * k > n) --k;
      while ((k + 1) * (k + 1) <= n) ++k;
      return static_cast<std::uint8_t>(n > k * k + k ? k + 1 : k);
    }
    case SobelOutput::l1:
      return static_cast<std::uint8_t>(min(ax + ay, kMaxSample));
    case SobelOutput::dx:
      return static_cast<std::uint8_t>(min(ax, kMaxSample));
    default:
      return static_cast<std::uint8_t>(min(ay, kMaxSample));
  }
}

/// The gray sample at (x, y) through the border (the border applies to the gray image).
template <int C>
__device__ __forceinline__ int bordered_gray(const DeviceImage& in, int x, int y,
                                             BorderMode border) {
  const int bx = border_index_dev(x, in.width, border.kind);
  const int by = border_index_dev(y, in.height, border.kind);
  if (bx < 0 || by < 0) return border.value;
  return gray_at<C>(row_of(in, by), bx);
}

template <int C>
__device__ __forceinline__ std::uint8_t sobel_at(const DeviceImage& in, int x, int y,
                                                 BorderMode border, SobelOutput output) {
  const auto p = [&](int dx, int dy) { return bordered_gray<C>(in, x + dx, y + dy, border); };
  const int gx = (p(1, -1) + 2 * p(1, 0) + p(1, 1)) - (p(-1, -1) + 2 * p(-1, 0) + p(-1, 1));
  const int gy = (p(-1, 1) + 2 * p(0, 1) + p(1, 1)) - (p(-1, -1) + 2 * p(0, -1) + p(1, -1));
  return sobel_value_dev(gx, gy, output);
}

__global__ void sobel_pixel_kernel(DeviceImage gray, DeviceImage out, BorderMode border,
                                   SobelOutput output) {
  const int x = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
  const int y = static_cast<int>(blockIdx.y * blockDim.y + threadIdx.y);
  if (x >= gray.width || y >= gray.height) return;
  mutable_row(out, y)[x] = sobel_at<1>(gray, x, y, border, output);
}

/// Gray values of pixels x0 - 1 .. x0 + 4 of row y (through the vertical border).
template <int C>
__device__ __forceinline__ void gray_strip(const DeviceImage& in, int qx, int y, BorderMode border,
                                           int (&g)[kStrip]) {
  const int by = border_index_dev(y, in.height, border.kind);
  if (by < 0) {
#pragma unroll
    for (int i = 0; i < kStrip; ++i) g[i] = border.value;
    return;
  }
  const std::uint8_t* row = row_of(in, by);
  const int x0 = kQuadPixels * qx;
  const std::uint32_t quad = quad_gray<C>(load_quad<C>(row, qx));
  g[0] = gray_at<C>(row, x0 - 1);
#pragma unroll
  for (int i = 0; i < kQuadPixels; ++i) g[i + 1] = static_cast<int>((quad >> (8 * i)) & 0xFFU);
  g[kStrip - 1] = gray_at<C>(row, x0 + kQuadPixels);
}

template <int C>
__global__ void sobel_multi_kernel(DeviceImage in, DeviceImage out, BorderMode border,
                                   SobelOutput output) {
  const int qx = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
  const int y0 = static_cast<int>(blockIdx.y) * kMultiRows;
  const int x0 = kQuadPixels * qx;
  if (x0 >= in.width) return;
  const int y1 = min(y0 + kMultiRows, in.height);
  const bool interior = qx >= 1 && x0 + kQuadPixels < in.width;
  if (!interior) {
    const int x1 = min(x0 + kQuadPixels, in.width);
    for (int y = y0; y < y1; ++y) {
      for (int x = x0; x < x1; ++x) mutable_row(out, y)[x] = sobel_at<C>(in, x, y, border, output);
    }
    return;
  }
  int top[kStrip];
  int mid[kStrip];
  gray_strip<C>(in, qx, y0 - 1, border, top);
  gray_strip<C>(in, qx, y0, border, mid);
  for (int y = y0; y < y1; ++y) {
    int bot[kStrip];
    gray_strip<C>(in, qx, y + 1, border, bot);
    std::uint32_t packed = 0;
#pragma unroll
    for (int k = 1; k <= kQuadPixels; ++k) {
      const int gx =
          (top[k + 1] + 2 * mid[k + 1] + bot[k + 1]) - (top[k - 1] + 2 * mid[k - 1] + bot[k - 1]);
      const int gy =
          (bot[k - 1] + 2 * bot[k] + bot[k + 1]) - (top[k - 1] + 2 * top[k] + top[k + 1]);
      packed |= static_cast<std::uint32_t>(sobel_value_dev(gx, gy, output)) << (8 * (k - 1));
    }
    reinterpret_cast<std::uint32_t*>(mutable_row(out, y))[qx] = packed;
#pragma unroll
    for (int i = 0; i < kStrip; ++i) {
      top[i] = mid[i];
      mid[i] = bot[i];
    }
  }
}

}  // namespace

void launch_sobel_pixel(const DeviceImage& gray, const DeviceImage& out, BorderMode border,
                        SobelOutput output, cudaStream_t stream) {
  const dim3 grid(blocks_for(gray.width, kPixelBlockX), blocks_for(gray.height, kPixelBlockY));
  sobel_pixel_kernel<<<grid, dim3(kPixelBlockX, kPixelBlockY), 0, stream>>>(gray, out, border,
                                                                            output);
  CUDA_CHECK_LAUNCH("sobel_pixel_kernel");
}

void launch_sobel_multi(const DeviceImage& in, const DeviceImage& out, BorderMode border,
                        SobelOutput output, cudaStream_t stream) {
  const dim3 grid(blocks_for((in.width + kQuadPixels - 1) / kQuadPixels, kBlock),
                  blocks_for(in.height, kMultiRows));
  with_channels(in.channels, [&](auto c) {
    sobel_multi_kernel<decltype(c)::value><<<grid, kBlock, 0, stream>>>(in, out, border, output);
  });
  CUDA_CHECK_LAUNCH("sobel_multi_kernel");
}

}  // namespace parfilter::cuda
