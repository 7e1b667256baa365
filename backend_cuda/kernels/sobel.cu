// Sobel of the gray image, in two variants:
//   pixel - a thread per pixel over a gray plane made first by the gray kernel;
//   multi - gray fused in: a thread takes a quad (four pixels, one 16-byte load for RGBA) and
//           slides down a strip of 8 rows keeping three rows of gray values in registers, so
//           each input pixel is converted to gray about once (two IDP2A per pixel); the
//           neighbours' column sums come by warp shuffles and the magnitude is one
//           sqrt.approx, rounded (exact: see fast_sobel_value). Strips inside the image are
//           unrolled with no border and four rows' loads in flight; the first and last strips
//           go through the border. The columns whose neighbours fall outside the image are done
//           a thread per pixel by one extra block per strip, in the same launch.
#include "device_common.cuh"

namespace parfilter::cuda {
namespace {

constexpr int kBlock = 128;
constexpr int kPixelBlockX = 32;
constexpr int kPixelBlockY = 8;
constexpr int kStripRows = 8;        ///< rows per block
constexpr int kAhead = 4;            ///< rows whose loads are in flight inside the image
constexpr int kBorderedAhead = 2;    ///< rows in flight in the bordered rows
constexpr int kMinBlocksPerSm = 12;  ///< caps registers at 40: 48 warps per SM
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
    case SobelOutput::dy:
      return static_cast<std::uint8_t>(min(ay, kMaxSample));
  }
  return 0;  // every output is a case above
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
    // n <= 2 * 1020^2 < 2^23, so 2^23's float bits plus n, minus 2^23, is n exactly (added,
    // not ORed, so that both products and the bits fold into two IMADs). Clamped to 65280,
    // where round(sqrt) is still 255 and beyond which it saturates anyway. sqrt(n) lies at
    // least 1/4 / (2 * 255.5) > 4.8e-4 from any half-integer (|n - (c + 1/2)^2| >= 1/4), and
    // sqrt.approx is off by under 2^-22 relative (< 6.1e-5 here), so rounding the
    // approximation (adding 1.5 * 2^23 puts the integer in the low mantissa bits) is exact;
    // CudaBackend.SobelMagnitudeOfEveryGradientPair checks every n.
    const int n = gx * gx + gy * gy;
    const float nf = fminf(
        __uint_as_float(kIntMagicBits + static_cast<std::uint32_t>(n)) - kIntMagic, kMaxSquare);
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

/// Weight of byte i of a pixel whose R is byte 0 (0 outside R, G, B).
__host__ __device__ constexpr unsigned int channel_weight(int i) {
  return i == 0 ? kGrayR : i == 1 ? kGrayG : i == 2 ? kGrayB : 0U;
}
constexpr unsigned int kGrayRound = 1U << (kGrayShift - 1);

/// gray_dev of pixel p of a quad: for RGB and RGBA each 16-bit half of a word that holds a
/// channel of the pixel is one byte-by-halfword dot product (IDP2A) with the weights of its two
/// bytes (every weight fits in 16 bits), so two per pixel; p is a constant after unrolling.
template <int C>
__device__ __forceinline__ int quad_gray_at(const Quad<C>& q, int p) {
  if constexpr (C == 1) {
    return static_cast<int>(__byte_perm(q.w[0], 0U, 0x4440U | p));
  } else {
    unsigned int acc = kGrayRound;
#pragma unroll
    for (int half = 0; half < 2 * C; ++half) {
      const int first = 2 * half - C * p;  // the pixel's channel in the half's low byte
      const unsigned int weights = channel_weight(first) | (channel_weight(first + 1) << 16);
      if (weights == 0U) continue;
      acc = half % 2 == 0 ? __dp2a_lo(weights, q.w[half / 2], acc)
                          : __dp2a_hi(weights, q.w[half / 2], acc);
    }
    return static_cast<int>(acc >> kGrayShift);
  }
}

/// One output row of a quad from its three rows of gray values: per column v = top + 2 mid +
/// bottom (for gx) and d = bottom - top (for gy); the columns beside the quad come from the
/// neighbouring lanes. The four output bytes, packed.
template <SobelOutput Out>
__device__ __forceinline__ std::uint32_t sobel_quad_row(const int (&top)[kQuadPixels],
                                                        const int (&mid)[kQuadPixels],
                                                        const int (&bot)[kQuadPixels]) {
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
  return __byte_perm(__byte_perm(value[0], value[1], 0x0040),
                     __byte_perm(value[2], value[3], 0x0040), 0x5410);
}

/// A strip whose input rows y0 - 1 .. y0 + Rows all lie inside the image and above its last
/// row (an RGB quad running past the pitch then stays inside the buffer): no border, the
/// strip unrolled (the three rows of gray values rotate by renaming, not moves), kAhead rows'
/// loads in flight. Lanes whose quad starts outside the row load quad 0 or the last one
/// instead; they only feed outputs that are not stored.
template <int C, SobelOutput Out, int Rows>
__device__ __forceinline__ void sobel_strip_inside(const DeviceImage& in, const DeviceImage& out,
                                                   int qx, bool store, int y0) {
  constexpr int kRowsIn = Rows + 2;
  const int quads = (in.width + kQuadPixels - 1) / kQuadPixels;
  const std::uint8_t* src = row_of(in, y0 - 1);
  const int lqx = min(max(qx, 0), quads - 1);
  auto* dst = reinterpret_cast<std::uint32_t*>(mutable_row(out, y0)) + max(qx, 0);
  Quad<C> ring[kAhead];  // input row r (from y0 - 1) waits in slot r % kAhead
#pragma unroll
  for (int r = 0; r < kAhead; ++r) ring[r] = load_quad<C>(src + r * in.pitch, lqx);
  int g[3][kQuadPixels];  // gray rows r - 2, r - 1, r in slots r % 3
#pragma unroll
  for (int r = 0; r < kRowsIn; ++r) {
#pragma unroll
    for (int p = 0; p < kQuadPixels; ++p) g[r % 3][p] = quad_gray_at<C>(ring[r % kAhead], p);
    if (r + kAhead < kRowsIn) ring[r % kAhead] = load_quad<C>(src + (r + kAhead) * in.pitch, lqx);
    if (r >= 2) {
      const std::uint32_t packed = sobel_quad_row<Out>(g[(r - 2) % 3], g[(r - 1) % 3], g[r % 3]);
      if (store) {
        *reinterpret_cast<std::uint32_t*>(reinterpret_cast<std::uint8_t*>(dst) +
                                          (r - 2) * out.pitch) = packed;
      }
    }
  }
}

/// Output rows ys .. ye - 1 (any), rows through the border, kBorderedAhead rows in flight.
template <int C, SobelOutput Out>
__device__ __forceinline__ void sobel_rows_bordered(const DeviceImage& in, const DeviceImage& out,
                                                    BorderMode border, int qx, bool store, int ys,
                                                    int ye) {
  int top[kQuadPixels];
  int mid[kQuadPixels];
  int bot[kQuadPixels];
  quad_gray_values<C>(fetch_row<C>(in, qx, ys - 1, border), border, top);
  quad_gray_values<C>(fetch_row<C>(in, qx, ys, border), border, mid);
  // Slot `phase` holds row y + 1 until it is used, then row y + 1 + kBorderedAhead.
  PendingRow<C> ahead[kBorderedAhead];
#pragma unroll
  for (int k = 0; k < kBorderedAhead; ++k) ahead[k] = fetch_row<C>(in, qx, ys + 1 + k, border);
  for (int base = ys; base < ye; base += kBorderedAhead) {
#pragma unroll
    for (int phase = 0; phase < kBorderedAhead; ++phase) {
      const int y = base + phase;
      if (y >= ye) break;
      quad_gray_values<C>(ahead[phase], border, bot);
      if (y + 1 + kBorderedAhead <= ye) {
        ahead[phase] = fetch_row<C>(in, qx, y + 1 + kBorderedAhead, border);
      }
      const std::uint32_t packed = sobel_quad_row<Out>(top, mid, bot);
      if (store) reinterpret_cast<std::uint32_t*>(mutable_row(out, y))[qx] = packed;
#pragma unroll
      for (int p = 0; p < kQuadPixels; ++p) {
        top[p] = mid[p];
        mid[p] = bot[p];
      }
    }
  }
}

/// The strips' edge columns (the quads' neighbours outside the image), a thread per pixel.
template <int C, SobelOutput Out>
__device__ __forceinline__ void sobel_edges(const DeviceImage& in, const DeviceImage& out,
                                            BorderMode border, const EdgeColumns& edges, int ys,
                                            int ye) {
  const int count = edges.count();
  for (int i = static_cast<int>(threadIdx.x); i < count * (ye - ys); i += kBlock) {
    const int x = edges.column(i % count);
    const int y = ys + i / count;
    mutable_row(out, y)[x] = sobel_at<C>(in, x, y, border, Out);
  }
}

/// A block of kBlock threads per strip of kStripRows rows and 4 warps' quads. A thread per quad
/// slides down the strip; a warp's 32 lanes cover 32 quads and the lanes at its ends only feed
/// their neighbours, so every row is one aligned load per thread. Strips inside the image take
/// sobel_strip_inside, the first and last ones sobel_rows_bordered. The last block of each
/// strip does its edge columns instead (no second launch, no tail of edge threads).
template <int C, SobelOutput Out>
__global__ void __launch_bounds__(kBlock, kMinBlocksPerSm)
    sobel_multi_kernel(DeviceImage in, DeviceImage out, BorderMode border, EdgeColumns edges) {
  const int y0 = static_cast<int>(blockIdx.y) * kStripRows;
  const int y1 = min(y0 + kStripRows, in.height);
  if (edges.count() > 0 && blockIdx.x == gridDim.x - 1) {
    sobel_edges<C, Out>(in, out, border, edges, y0, y1);
    return;
  }
  const int lane = static_cast<int>(threadIdx.x) % kWarp;
  const int warp =
      static_cast<int>(blockIdx.x) * (kBlock / kWarp) + static_cast<int>(threadIdx.x) / kWarp;
  const int qx = warp * kOutLanes - 1 + lane;
  const bool store = lane >= 1 && lane <= kOutLanes && multi_interior(qx, in.width);
  if (y0 >= 1 && y0 + kStripRows + 1 < in.height) {
    sobel_strip_inside<C, Out, kStripRows>(in, out, qx, store, y0);
  } else {
    sobel_rows_bordered<C, Out>(in, out, border, qx, store, y0, y1);
  }
}

template <int C, SobelOutput Out>
void launch_multi_out(const DeviceImage& in, const DeviceImage& out, BorderMode border,
                      const EdgeColumns& edges, cudaStream_t stream) {
  const int quads = (in.width + kQuadPixels - 1) / kQuadPixels;
  const int warps = (quads + kOutLanes - 1) / kOutLanes;
  const unsigned int columns = blocks_for(warps, kBlock / kWarp) + (edges.count() > 0 ? 1 : 0);
  const dim3 grid(columns, blocks_for(in.height, kStripRows));
  sobel_multi_kernel<C, Out><<<grid, kBlock, 0, stream>>>(in, out, border, edges);
}

template <int C>
void launch_multi(const DeviceImage& in, const DeviceImage& out, BorderMode border,
                  SobelOutput output, const EdgeColumns& edges, cudaStream_t stream) {
  switch (output) {
    case SobelOutput::magnitude:
      launch_multi_out<C, SobelOutput::magnitude>(in, out, border, edges, stream);
      break;
    case SobelOutput::l1:
      launch_multi_out<C, SobelOutput::l1>(in, out, border, edges, stream);
      break;
    case SobelOutput::dx:
      launch_multi_out<C, SobelOutput::dx>(in, out, border, edges, stream);
      break;
    case SobelOutput::dy:
      launch_multi_out<C, SobelOutput::dy>(in, out, border, edges, stream);
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
    launch_multi<C>(in, out, border, output, edges, stream);
  });
}

}  // namespace parfilter::cuda
