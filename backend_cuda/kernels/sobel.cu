// Sobel of the gray image, in two variants:
//   pixel - a thread per pixel over a gray plane made first by the gray kernel;
//   multi - gray fused in: a thread takes a quad (four pixels, one 16-byte load for RGBA,
//           four rows in flight) and slides down 16 rows keeping two rows of gray values in
//           registers, so each input pixel is converted to gray about once; the neighbours'
//           column sums come by warp shuffles and the magnitude is one sqrt.approx, rounded
//           (exact: see fast_sobel_value).
#include "device_common.cuh"

namespace parfilter::cuda {
namespace {

constexpr int kBlock = 128;
constexpr int kPixelBlockX = 32;
constexpr int kPixelBlockY = 8;
constexpr int kMultiRows = 16;  ///< rows each multi thread slides over
constexpr int kAhead = 4;       ///< rows whose loads are in flight
constexpr int kWarp = 32;
constexpr int kOutLanes = kWarp - 2;  ///< lanes 0 and 31 only feed their neighbours
constexpr unsigned int kFullMask = 0xFFFFFFFFU;
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

/// Quad qx of row y through the vertical border, fetched ahead of its use: `constant` when the
/// row lies outside under a constant border.
template <int C>
struct PendingRow {
  Quad<C> quad;
  bool constant = false;
};

/// A quad that starts inside the row but runs past it is read byte by byte for RGB (its three
/// words could pass the pitch); other quads starting inside end inside the pitch.
template <int C>
__device__ __forceinline__ PendingRow<C> fetch_row(const DeviceImage& in, int qx, int y,
                                                   BorderMode border) {
  PendingRow<C> r;
  const int by = border_index_dev(y, in.height, border.kind);
  r.constant = by < 0;
#pragma unroll
  for (int i = 0; i < C; ++i) r.quad.w[i] = 0U;
  if (r.constant || qx < 0 || kQuadPixels * qx >= in.width) return r;
  const std::uint8_t* row = row_of(in, by);
  if (C != 3 || kQuadPixels * qx + kQuadPixels <= in.width) {
    r.quad = load_quad<C>(row, qx);
  } else {
    const int bytes = C * (in.width - kQuadPixels * qx);
    for (int b = 0; b < bytes; ++b) {
      r.quad.w[b / 4] |= static_cast<std::uint32_t>(__ldg(row + C * kQuadPixels * qx + b))
                         << (8 * (b % 4));
    }
  }
  return r;
}

/// The four gray values of a fetched quad.
template <int C>
__device__ __forceinline__ void quad_gray_values(const PendingRow<C>& r, BorderMode border,
                                                 int (&g)[kQuadPixels]) {
#pragma unroll
  for (int p = 0; p < kQuadPixels; ++p) {
    if constexpr (C == 1) {
      g[p] = static_cast<int>(__byte_perm(r.quad.w[0], 0U, 0x4440U | p));
    } else {
      g[p] = gray_of_word(quad_pixel(r.quad, p));
    }
    if (r.constant) g[p] = border.value;
  }
}

constexpr float kIntMagic = 8388608.0F;  ///< 2^23: its float bits plus n are n + 2^23
constexpr std::uint32_t kIntMagicBits = 0x4B000000U;
constexpr float kRoundMagic = 12582912.0F;  ///< 1.5 * 2^23: adding it rounds to an integer
constexpr float kMaxSquare = 65280.0F;      ///< 255^2 + 255: round(sqrt) is 255 up to here

/// The output byte for gradients gx, gy (in the low byte of the result; the rest is junk).
template <SobelOutput Out>
__device__ __forceinline__ std::uint32_t fast_sobel_value(int gx, int gy) {
  if constexpr (Out == SobelOutput::magnitude) {
    // n <= 2 * 1020^2 < 2^23, so n | 2^23's float bits minus 2^23 is n exactly. Clamped to
    // 65280, where round(sqrt) is still 255 and beyond which it saturates anyway. sqrt(n) lies
    // at least 1/4 / (2 * 255.5) > 4.8e-4 from any half-integer (|n - (c + 1/2)^2| >= 1/4),
    // and sqrt.approx is off by under 2^-22 relative (< 6.1e-5 here), so rounding the
    // approximation (adding 1.5 * 2^23 puts the integer in the low mantissa bits) is exact;
    // CudaBackend.SobelMagnitudeOfEveryGradientPair checks every n.
    const int n = gx * gx + gy * gy;
    const float nf = fminf(
        __uint_as_float(kIntMagicBits | static_cast<std::uint32_t>(n)) - kIntMagic, kMaxSquare);
    float s;
    asm("sqrt.approx.ftz.f32 %0, %1;" : "=f"(s) : "f"(nf));
    return __float_as_uint(s + kRoundMagic);
  } else if constexpr (Out == SobelOutput::l1) {
    return static_cast<std::uint32_t>(min(abs(gx) + abs(gy), kMaxSample));
  } else if constexpr (Out == SobelOutput::dx) {
    return static_cast<std::uint32_t>(min(abs(gx), kMaxSample));
  } else {
    return static_cast<std::uint32_t>(min(abs(gy), kMaxSample));
  }
}

/// A thread per quad slides down kMultiRows rows; a warp's 32 lanes cover 32 quads and the
/// lanes at its ends only feed their neighbours, so every row is one aligned load per thread.
/// Per row and column the kernel keeps v = top + 2 mid + bottom (for gx) and d = bottom - top
/// (for gy) of gray values; the columns beside the quad come from the neighbouring lanes.
template <int C, SobelOutput Out>
__global__ void __launch_bounds__(kBlock)
    sobel_multi_kernel(DeviceImage in, DeviceImage out, BorderMode border) {
  const int lane = static_cast<int>(threadIdx.x) % kWarp;
  const int warp =
      static_cast<int>(blockIdx.x) * (kBlock / kWarp) + static_cast<int>(threadIdx.x) / kWarp;
  const int qx = warp * kOutLanes - 1 + lane;
  const bool store = lane >= 1 && lane <= kOutLanes && multi_interior(qx, in.width);
  const int y0 = static_cast<int>(blockIdx.y) * kMultiRows;
  const int y1 = min(y0 + kMultiRows, in.height);
  int top[kQuadPixels];
  int mid[kQuadPixels];
  int bot[kQuadPixels];
  quad_gray_values<C>(fetch_row<C>(in, qx, y0 - 1, border), border, top);
  quad_gray_values<C>(fetch_row<C>(in, qx, y0, border), border, mid);
  // kAhead rows in flight: slot `phase` holds row y + 1 until it is used, then row y + 1 + kAhead.
  PendingRow<C> ahead[kAhead];
#pragma unroll
  for (int k = 0; k < kAhead; ++k) ahead[k] = fetch_row<C>(in, qx, y0 + 1 + k, border);
  for (int base = y0; base < y1; base += kAhead) {
#pragma unroll
    for (int phase = 0; phase < kAhead; ++phase) {
      const int y = base + phase;
      if (y >= y1) break;
      quad_gray_values<C>(ahead[phase], border, bot);
      if (y + 1 + kAhead <= y1) ahead[phase] = fetch_row<C>(in, qx, y + 1 + kAhead, border);
      int v[kQuadPixels + 2];  // columns x0 - 1 .. x0 + 4
      int d[kQuadPixels + 2];
#pragma unroll
      for (int p = 0; p < kQuadPixels; ++p) {
        v[p + 1] = top[p] + 2 * mid[p] + bot[p];
        d[p + 1] = bot[p] - top[p];
      }
      v[0] = __shfl_up_sync(kFullMask, v[kQuadPixels], 1);
      d[0] = __shfl_up_sync(kFullMask, d[kQuadPixels], 1);
      v[kQuadPixels + 1] = __shfl_down_sync(kFullMask, v[1], 1);
      d[kQuadPixels + 1] = __shfl_down_sync(kFullMask, d[1], 1);
      std::uint32_t value[kQuadPixels];
#pragma unroll
      for (int p = 0; p < kQuadPixels; ++p) {
        value[p] = fast_sobel_value<Out>(v[p + 2] - v[p], d[p] + 2 * d[p + 1] + d[p + 2]);
      }
      if (store) {
        reinterpret_cast<std::uint32_t*>(mutable_row(out, y))[qx] =
            __byte_perm(__byte_perm(value[0], value[1], 0x0040),
                        __byte_perm(value[2], value[3], 0x0040), 0x5410);
      }
#pragma unroll
      for (int p = 0; p < kQuadPixels; ++p) {
        top[p] = mid[p];
        mid[p] = bot[p];
      }
    }
  }
}

template <int C>
void launch_multi(const DeviceImage& in, const DeviceImage& out, BorderMode border,
                  SobelOutput output, cudaStream_t stream) {
  const int quads = (in.width + kQuadPixels - 1) / kQuadPixels;
  const int warps = (quads + kOutLanes - 1) / kOutLanes;
  const dim3 grid(blocks_for(warps, kBlock / kWarp), blocks_for(in.height, kMultiRows));
  switch (output) {
    case SobelOutput::magnitude:
      sobel_multi_kernel<C, SobelOutput::magnitude><<<grid, kBlock, 0, stream>>>(in, out, border);
      break;
    case SobelOutput::l1:
      sobel_multi_kernel<C, SobelOutput::l1><<<grid, kBlock, 0, stream>>>(in, out, border);
      break;
    case SobelOutput::dx:
      sobel_multi_kernel<C, SobelOutput::dx><<<grid, kBlock, 0, stream>>>(in, out, border);
      break;
    default:
      sobel_multi_kernel<C, SobelOutput::dy><<<grid, kBlock, 0, stream>>>(in, out, border);
      break;
  }
  CUDA_CHECK_LAUNCH("sobel_multi_kernel");
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
  const EdgeColumns edges =
      edge_columns(in.width, [&](int qx) { return multi_interior(qx, in.width); });
  with_channels(in.channels, [&](auto c) {
    constexpr int C = decltype(c)::value;
    launch_multi<C>(in, out, border, output, stream);
    if (edges.count() > 0) {
      sobel_edge_kernel<C>
          <<<edge_grid(edges, in.height), dim3(kEdgeBlockX, kEdgeBlockY), 0, stream>>>(
              in, out, border, output, edges);
      CUDA_CHECK_LAUNCH("sobel_edge_kernel");
    }
  });
}

}  // namespace parfilter::cuda
