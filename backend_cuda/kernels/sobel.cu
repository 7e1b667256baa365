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
constexpr int kMultiRows = 16;                     ///< rows each multi thread slides over
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
      // In float (the FMA pipe, beside the integer one): n <= 65280 < 2^24 is exact and sqrtf
      // is correctly rounded; below an integer k, sqrt(n) stays at least 1 / (2k) >= 1/512 away
      // from it, far more than float's spacing there, so truncation gives floor(sqrt(n))
      // exactly, and k^2 + k - n is exact too.
      const float nf = static_cast<float>(n);
      const float k = truncf(sqrtf(nf));
      return static_cast<std::uint8_t>(fmaf(k, k + 1.0F, -nf) < 0.0F ? k + 1.0F : k);
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

/// The quad qx of row y through the vertical border (nullopt-like: `constant` set when the
/// row lies outside under a constant border), loaded early so its latency overlaps work.
template <int C>
struct PendingRow {
  Quad<C> quad;
  int y = 0;  ///< the mapped row
  bool constant = false;
};

template <int C>
__device__ __forceinline__ PendingRow<C> fetch_row(const DeviceImage& in, int qx, bool full, int y,
                                                   BorderMode border) {
  PendingRow<C> r;
  r.y = border_index_dev(y, in.height, border.kind);
  r.constant = r.y < 0;
  if (!r.constant && full) {
    r.quad = load_quad<C>(row_of(in, r.y), qx);
  } else {
#pragma unroll
    for (int i = 0; i < C; ++i) r.quad.w[i] = 0;
  }
  return r;
}

/// Gray values of pixels x0 - 1 .. x0 + 4 of a fetched row. Every lane of the warp calls it:
/// the neighbours come from the lanes beside (shuffles), lanes at the warp's ends load theirs.
template <int C>
__device__ __forceinline__ void gray_strip(const DeviceImage& in, int qx, bool full,
                                           const PendingRow<C>& r, BorderMode border,
                                           int (&g)[kStrip]) {
  const int x0 = kQuadPixels * qx;
  std::uint32_t word = 0;
  if (r.constant) {
    word = splat_byte(border.value);
  } else if (full) {
    word = quad_gray<C>(r.quad);
  }
  const unsigned lane = threadIdx.x % 32U;
  const std::uint32_t left_word = __shfl_up_sync(0xFFFFFFFFU, word, 1);
  const std::uint32_t right_word = __shfl_down_sync(0xFFFFFFFFU, word, 1);
  if (r.constant) {
#pragma unroll
    for (int i = 0; i < kStrip; ++i) g[i] = border.value;
    return;
  }
#pragma unroll
  for (int i = 0; i < kQuadPixels; ++i) g[i + 1] = static_cast<int>((word >> (8 * i)) & 0xFFU);
  const std::uint8_t* row = row_of(in, r.y);
  // The left neighbour from the lane before, unless this lane starts the warp or the row.
  g[0] = lane > 0 && qx > 0 ? static_cast<int>(left_word >> 24)
                            : (qx > 0 ? gray_at<C>(row, x0 - 1) : 0);
  // The right one from the lane after when its quad is whole, else from memory.
  const bool right_full = x0 + 2 * kQuadPixels <= in.width;
  g[kStrip - 1] = lane < 31 && right_full
                      ? static_cast<int>(right_word & 0xFFU)
                      : (x0 + kQuadPixels < in.width ? gray_at<C>(row, x0 + kQuadPixels) : 0);
}

/// Quad qx and its left and right neighbours lie inside a row of `width` pixels.
__host__ __device__ bool multi_interior(int qx, int width) {
  return qx >= 1 && kQuadPixels * qx + kQuadPixels < width;
}

/// The multi kernel's edge columns, a thread per pixel.
template <int C>
__global__ void sobel_edge_kernel(DeviceImage in, DeviceImage out, BorderMode border,
                                  SobelOutput output, EdgeColumns edges) {
  const int i = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
  const int y = static_cast<int>(blockIdx.y * blockDim.y + threadIdx.y);
  if (i >= edges.count() || y >= in.height) return;
  const int x = edges.column(i);
  mutable_row(out, y)[x] = sobel_at<C>(in, x, y, border, output);
}

template <int C>
__global__ void sobel_multi_kernel(DeviceImage in, DeviceImage out, BorderMode border,
                                   SobelOutput output) {
  const int qx = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
  const int y0 = static_cast<int>(blockIdx.y) * kMultiRows;
  const int x0 = kQuadPixels * qx;
  const int y1 = min(y0 + kMultiRows, in.height);
  const bool full = x0 + kQuadPixels <= in.width;
  // Quads other than interior ones (the first and last of a row, and those past its end) are
  // sobel_edge_kernel's, but every lane takes part in the shuffles.
  const bool interior = multi_interior(qx, in.width);
  int top[kStrip];
  int mid[kStrip];
  gray_strip<C>(in, qx, full, fetch_row<C>(in, qx, full, y0 - 1, border), border, top);
  gray_strip<C>(in, qx, full, fetch_row<C>(in, qx, full, y0, border), border, mid);
  PendingRow<C> next = fetch_row<C>(in, qx, full, y0 + 1, border);
  for (int y = y0; y < y1; ++y) {
    int bot[kStrip];
    gray_strip<C>(in, qx, full, next, border, bot);
    if (y + 1 < y1) next = fetch_row<C>(in, qx, full, y + 2, border);  // in flight meanwhile
    if (interior) {
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
    }
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
  const EdgeColumns edges =
      edge_columns(in.width, [&](int qx) { return multi_interior(qx, in.width); });
  with_channels(in.channels, [&](auto c) {
    constexpr int C = decltype(c)::value;
    sobel_multi_kernel<C><<<grid, kBlock, 0, stream>>>(in, out, border, output);
    if (edges.count() > 0) {
      sobel_edge_kernel<C>
          <<<edge_grid(edges, in.height), dim3(kEdgeBlockX, kEdgeBlockY), 0, stream>>>(
              in, out, border, output, edges);
    }
  });
  CUDA_CHECK_LAUNCH("sobel_multi_kernel");
}

}  // namespace parfilter::cuda
