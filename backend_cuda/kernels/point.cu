// Point ops: gray, threshold, the equalization tables applied, and 2x2 max pooling. Each thread
// takes a quad (four pixels: one 16-byte load for RGBA, one word for gray); a quad cut by the
// right edge of the image goes pixel by pixel.
#include "device_common.cuh"

namespace parfilter::cuda {
namespace {

constexpr int kPointBlock = 256;
constexpr int kLutSize = 256;
constexpr std::uint8_t kForeground = 255;

struct ByteLut {
  std::uint8_t v[kLutSize];
};

dim3 quad_grid(const DeviceImage& img) {
  const long long quads = (img.width + kQuadPixels - 1) / kQuadPixels;
  return dim3(blocks_for(quads, kPointBlock), static_cast<unsigned int>(img.height));
}

/// True when quad qx lies wholly inside a row of `width` pixels.
__device__ __forceinline__ bool full_quad(int qx, int width) {
  return kQuadPixels * qx + kQuadPixels <= width;
}

template <int C>
__global__ void gray_kernel(DeviceImage in, DeviceImage out) {
  const int qx = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
  const int y = static_cast<int>(blockIdx.y);
  const int x0 = kQuadPixels * qx;
  if (x0 >= in.width) return;
  const std::uint8_t* src = row_of(in, y);
  std::uint8_t* dst = mutable_row(out, y);
  if (full_quad(qx, in.width)) {
    reinterpret_cast<std::uint32_t*>(dst)[qx] = quad_gray<C>(load_quad<C>(src, qx));
    return;
  }
  for (int x = x0; x < in.width; ++x) dst[x] = static_cast<std::uint8_t>(gray_at<C>(src, x));
}

__global__ void threshold_kernel(DeviceImage gray, DeviceImage out, int t) {
  const int qx = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
  const int y = static_cast<int>(blockIdx.y);
  const int x0 = kQuadPixels * qx;
  if (x0 >= gray.width) return;
  const std::uint8_t* src = row_of(gray, y);
  std::uint8_t* dst = mutable_row(out, y);
  if (full_quad(qx, gray.width)) {
    // t is in 0..255: each byte becomes 0xFF where it is greater.
    const std::uint32_t word = reinterpret_cast<const std::uint32_t*>(src)[qx];
    reinterpret_cast<std::uint32_t*>(dst)[qx] = __vcmpgtu4(word, splat_byte(t));
    return;
  }
  for (int x = x0; x < gray.width; ++x) dst[x] = src[x] > t ? kForeground : 0;
}

/// Copies a by-value table into shared memory; every thread of the block takes part.
__device__ __forceinline__ void load_lut(const ByteLut& lut, std::uint8_t* shared) {
  for (int i = static_cast<int>(threadIdx.x); i < kLutSize; i += static_cast<int>(blockDim.x)) {
    shared[i] = lut.v[i];
  }
  __syncthreads();
}

__global__ void apply_lut_kernel(DeviceImage in, DeviceImage out, ByteLut lut) {
  __shared__ std::uint8_t table[kLutSize];
  load_lut(lut, table);
  const int qx = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
  const int y = static_cast<int>(blockIdx.y);
  const int x0 = kQuadPixels * qx;
  if (x0 >= in.width) return;
  const std::uint8_t* src = row_of(in, y);
  std::uint8_t* dst = mutable_row(out, y);
  if (full_quad(qx, in.width)) {
    const std::uint32_t w = reinterpret_cast<const std::uint32_t*>(src)[qx];
    std::uint32_t r = 0;
#pragma unroll
    for (int p = 0; p < kQuadPixels; ++p) {
      r |= static_cast<std::uint32_t>(table[(w >> (8 * p)) & 0xFFU]) << (8 * p);
    }
    reinterpret_cast<std::uint32_t*>(dst)[qx] = r;
    return;
  }
  for (int x = x0; x < in.width; ++x) dst[x] = table[src[x]];
}

__device__ __forceinline__ int sat(int v) { return min(max(v, 0), kMaxSample); }

constexpr int kDifferences = 2 * kMaxSample + 1;  ///< R - Y and B - Y lie in -255..255

/// Per-block tables of the YCrCb round trip: each entry is the formula of filter_math's
/// rgb_to_ycrcb / ycrcb_to_rgb for one value, so a pixel costs look-ups instead of multiplies.
struct EqualizeTables {
  int red_from_cr[kLutSize];      ///< descale((Cr - 128) * 22987)
  int blue_from_cb[kLutSize];     ///< descale((Cb - 128) * 29049)
  int green_from_cr[kLutSize];    ///< (Cr - 128) * -11698 + rounding
  int green_from_cb[kLutSize];    ///< (Cb - 128) * -5636
  std::uint8_t cr[kDifferences];  ///< Cr of R - Y (+ 255)
  std::uint8_t cb[kDifferences];  ///< Cb of B - Y (+ 255)
  std::uint8_t lut[kLutSize];
};

__device__ void build_tables(const ByteLut& lut, EqualizeTables& t) {
  for (int i = static_cast<int>(threadIdx.x); i < kDifferences; i += static_cast<int>(blockDim.x)) {
    const int d = i - kMaxSample;
    t.cr[i] =
        static_cast<std::uint8_t>(sat(descale(d * kCrFromRMinusY + (kChromaOffset << kYuvShift))));
    t.cb[i] =
        static_cast<std::uint8_t>(sat(descale(d * kCbFromBMinusY + (kChromaOffset << kYuvShift))));
    if (i < kLutSize) {
      const int c = i - kChromaOffset;
      t.red_from_cr[i] = descale(c * kRFromCr);
      t.blue_from_cb[i] = descale(c * kBFromCb);
      t.green_from_cr[i] = c * kGFromCr + kYuvRound;
      t.green_from_cb[i] = c * kGFromCb;
      t.lut[i] = lut.v[i];
    }
  }
  __syncthreads();
}

/// The equalized colour of one pixel (Y given): (lut[Y], Cr, Cb) back to RGB in bytes 0..2.
__device__ __forceinline__ std::uint32_t equalize_pixel(int r, int b, int y,
                                                        const EqualizeTables& t) {
  const int cr = t.cr[r - y + kMaxSample];
  const int cb = t.cb[b - y + kMaxSample];
  const int ye = t.lut[y];
  const int ro = sat(ye + t.red_from_cr[cr]);
  const int go = sat(ye + ((t.green_from_cb[cb] + t.green_from_cr[cr]) >> kYuvShift));
  const int bo = sat(ye + t.blue_from_cb[cb]);
  return static_cast<std::uint32_t>(ro) | (static_cast<std::uint32_t>(go) << 8) |
         (static_cast<std::uint32_t>(bo) << 16);
}

/// Rows per block of equalize_color_kernel: the block's tables (about 5 KB of shared memory)
/// are built once for this many rows instead of once per row.
constexpr int kEqualizeRows = 8;

template <int C>
__global__ void equalize_color_kernel(DeviceImage in, DeviceImage out, ByteLut lut) {
  __shared__ EqualizeTables tables;
  build_tables(lut, tables);
  const int qx = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
  const int x0 = kQuadPixels * qx;
  if (x0 >= in.width) return;
  const int y0 = static_cast<int>(blockIdx.y) * kEqualizeRows;
  const int y1 = min(y0 + kEqualizeRows, in.height);
  for (int y = y0; y < y1; ++y) {
    const std::uint8_t* src = row_of(in, y);
    std::uint8_t* dst = mutable_row(out, y);
    if constexpr (C == 4) {
      if (full_quad(qx, in.width)) {
        const Quad<C> q = load_quad<C>(src, qx);
        Quad<C> r;
#pragma unroll
        for (int p = 0; p < kQuadPixels; ++p) {
          // Y in two byte dot products (luma_of_word), the rest by look-ups.
          const std::uint32_t w = q.w[p];
          r.w[p] =
              with_alpha(equalize_pixel(w & 0xFFU, (w >> 16) & 0xFFU, luma_of_word(w), tables), w);
        }
        store_quad<C>(dst, qx, r);
        continue;
      }
    }
    const int x1 = min(x0 + kQuadPixels, in.width);
    for (int x = x0; x < x1; ++x) {
      const std::uint8_t* p = src + x * C;
      const std::uint32_t e = equalize_pixel(p[0], p[2], luma_dev(p[0], p[1], p[2]), tables);
      dst[x * C] = static_cast<std::uint8_t>(e);
      dst[x * C + 1] = static_cast<std::uint8_t>(e >> 8);
      dst[x * C + 2] = static_cast<std::uint8_t>(e >> 16);
      if (C == 4) dst[x * C + kAlphaChannel] = p[kAlphaChannel];
    }
  }
}

/// Two output pixels per thread from one input quad in each of two rows.
template <int C>
__global__ void pool_kernel(DeviceImage in, DeviceImage out) {
  const int qx = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
  const int oy = static_cast<int>(blockIdx.y);
  const int ox0 = 2 * qx;
  if (ox0 >= out.width) return;
  const int y0 = 2 * oy;
  std::uint8_t* dst = mutable_row(out, oy);
  if (full_quad(qx, in.width) && y0 + 1 < in.height) {
    const Quad<C> a = load_quad<C>(row_of(in, y0), qx);
    const Quad<C> b = load_quad<C>(row_of(in, y0 + 1), qx);
    Quad<C> m;
#pragma unroll
    for (int i = 0; i < C; ++i) m.w[i] = __vmaxu4(a.w[i], b.w[i]);
    if constexpr (C == 4) {
      reinterpret_cast<uint2*>(dst)[qx] =
          make_uint2(__vmaxu4(m.w[0], m.w[1]), __vmaxu4(m.w[2], m.w[3]));
    } else {
#pragma unroll
      for (int i = 0; i < 2 * C; ++i) {
        const int p = i / C;  // output pixel 0 or 1
        const int c = i % C;
        dst[ox0 * C + i] = static_cast<std::uint8_t>(
            max(quad_byte(m, 2 * p * C + c), quad_byte(m, (2 * p + 1) * C + c)));
      }
    }
    return;
  }
  const int ox1 = min(ox0 + 2, out.width);
  for (int ox = ox0; ox < ox1; ++ox) {
    for (int c = 0; c < C; ++c) {
      int best = 0;
      for (int dy = 0; dy < 2; ++dy) {
        for (int dx = 0; dx < 2; ++dx) {
          const int x = 2 * ox + dx;
          const int y = y0 + dy;
          if (x < in.width && y < in.height) best = max(best, int{row_of(in, y)[x * C + c]});
        }
      }
      dst[ox * C + c] = static_cast<std::uint8_t>(best);
    }
  }
}

ByteLut to_lut(const std::uint8_t* host_lut) {
  ByteLut lut{};
  for (int i = 0; i < kLutSize; ++i) lut.v[i] = host_lut[i];
  return lut;
}

}  // namespace

void launch_gray(const DeviceImage& in, const DeviceImage& out, cudaStream_t stream) {
  with_channels(in.channels, [&](auto c) {
    gray_kernel<decltype(c)::value><<<quad_grid(in), kPointBlock, 0, stream>>>(in, out);
  });
  CUDA_CHECK_LAUNCH("gray_kernel");
}

void launch_threshold(const DeviceImage& gray, const DeviceImage& out, int t, cudaStream_t stream) {
  threshold_kernel<<<quad_grid(gray), kPointBlock, 0, stream>>>(gray, out, t);
  CUDA_CHECK_LAUNCH("threshold_kernel");
}

void launch_apply_lut(const DeviceImage& in, const DeviceImage& out, const std::uint8_t* lut,
                      cudaStream_t stream) {
  apply_lut_kernel<<<quad_grid(in), kPointBlock, 0, stream>>>(in, out, to_lut(lut));
  CUDA_CHECK_LAUNCH("apply_lut_kernel");
}

void launch_equalize_color(const DeviceImage& in, const DeviceImage& out, const std::uint8_t* lut,
                           cudaStream_t stream) {
  const ByteLut table = to_lut(lut);
  const long long quads = (in.width + kQuadPixels - 1) / kQuadPixels;
  const dim3 grid(blocks_for(quads, kPointBlock), blocks_for(in.height, kEqualizeRows));
  if (in.channels == 3) {
    equalize_color_kernel<3><<<grid, kPointBlock, 0, stream>>>(in, out, table);
  } else {
    equalize_color_kernel<4><<<grid, kPointBlock, 0, stream>>>(in, out, table);
  }
  CUDA_CHECK_LAUNCH("equalize_color_kernel");
}

void launch_pool(const DeviceImage& in, const DeviceImage& out, cudaStream_t stream) {
  const long long quads = (in.width + kQuadPixels - 1) / kQuadPixels;
  const dim3 grid(blocks_for(quads, kPointBlock), static_cast<unsigned int>(out.height));
  with_channels(in.channels, [&](auto c) {
    pool_kernel<decltype(c)::value><<<grid, kPointBlock, 0, stream>>>(in, out);
  });
  CUDA_CHECK_LAUNCH("pool_kernel");
}

}  // namespace parfilter::cuda
