// The 5x5 Gaussian, a thread per pixel, in the classic variants that differ only in where the
// weights and samples come from:
//   direct   - the 25 weights read from global memory in a double loop;
//   unrolled - the 25 weights as kernel parameters (the constant bank), loops unrolled;
//   lut      - the 6 x 256 products w_k * v in shared memory, a look-up per tap;
//   texture  - samples fetched through a texture object whose address mode does the border
//              (replicate = clamp, constant 0 = border); reflect101, constant V != 0 and the
//              x axis of RGB images (no 3-byte texel format) are remapped in software.
// Each tap reads a whole pixel once and feeds every channel; alpha is copied.
// Each variant's loop is written out whole: bench/cuda times them against each other.
#include <string>

#include "device_common.cuh"
#include "internal.hpp"
#include "parfilter/error.hpp"

namespace parfilter::cuda {
namespace {

constexpr int kTaps = kGaussianTaps;
constexpr int kRadius = kGaussianRadius;
constexpr int kRounding = 1 << (kGaussianShift - 1);
constexpr int kLutEntries = 256;
constexpr int kBlockX = 32;
constexpr int kBlockY = 8;

struct Weights25 {
  int w[kTaps * kTaps];
};

/// The pixel at (x, y) through the border: v[c] for every channel.
template <int C>
__device__ __forceinline__ void fetch_pixel(const DeviceImage& in, int x, int y, BorderMode border,
                                            bool interior, int (&v)[C]) {
  int bx = x;
  int by = y;
  if (!interior) {
    bx = border_index_dev(x, in.width, border.kind);
    by = border_index_dev(y, in.height, border.kind);
    if (bx < 0 || by < 0) {
#pragma unroll
      for (int c = 0; c < C; ++c) v[c] = border.value;
      return;
    }
  }
  const std::uint8_t* p = row_of(in, by) + bx * C;
#pragma unroll
  for (int c = 0; c < C; ++c) v[c] = p[c];
}

/// Channels a per-channel filter computes: all but the alpha of RGBA.
template <int C>
__host__ __device__ constexpr int filtered_channels() {
  return C == 4 ? 3 : C;
}

/// Writes the rounded sums and, for RGBA, copies alpha.
template <int C>
__device__ __forceinline__ void store_pixel(const DeviceImage& in, const DeviceImage& out, int x,
                                            int y, const int (&sum)[C]) {
  std::uint8_t* dst = mutable_row(out, y) + x * C;
#pragma unroll
  for (int c = 0; c < filtered_channels<C>(); ++c) {
    dst[c] = static_cast<std::uint8_t>((sum[c] + kRounding) >> kGaussianShift);
  }
  if (C == 4) dst[kAlphaChannel] = row_of(in, y)[x * C + kAlphaChannel];
}

__device__ __forceinline__ bool is_interior(const DeviceImage& img, int x, int y) {
  return x >= kRadius && x + kRadius < img.width && y >= kRadius && y + kRadius < img.height;
}

/// direct: the weights come from global memory inside the double loop.
template <int C>
__global__ void gaussian_direct_kernel(DeviceImage in, DeviceImage out, const int* weights,
                                       BorderMode border) {
  const int x = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
  const int y = static_cast<int>(blockIdx.y * blockDim.y + threadIdx.y);
  if (x >= in.width || y >= in.height) return;
  const bool interior = is_interior(in, x, y);
  int sum[C] = {};
  for (int i = 0; i < kTaps; ++i) {
    for (int j = 0; j < kTaps; ++j) {
      int v[C];
      fetch_pixel<C>(in, x + j - kRadius, y + i - kRadius, border, interior, v);
      const int w = weights[i * kTaps + j];
#pragma unroll
      for (int c = 0; c < C; ++c) sum[c] += w * v[c];
    }
  }
  store_pixel<C>(in, out, x, y, sum);
}

/// unrolled: the 25 weights are kernel parameters (constant bank), every tap unrolled.
template <int C>
__global__ void gaussian_unrolled_kernel(DeviceImage in, DeviceImage out, Weights25 weights,
                                         BorderMode border) {
  const int x = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
  const int y = static_cast<int>(blockIdx.y * blockDim.y + threadIdx.y);
  if (x >= in.width || y >= in.height) return;
  const bool interior = is_interior(in, x, y);
  int sum[C] = {};
#pragma unroll
  for (int i = 0; i < kTaps; ++i) {
#pragma unroll
    for (int j = 0; j < kTaps; ++j) {
      int v[C];
      fetch_pixel<C>(in, x + j - kRadius, y + i - kRadius, border, interior, v);
#pragma unroll
      for (int c = 0; c < C; ++c) sum[c] += weights.w[i * kTaps + j] * v[c];
    }
  }
  store_pixel<C>(in, out, x, y, sum);
}

/// The weight class of each tap, from filter_math's gaussian_weight_class.
struct Classes25 {
  int k[kTaps * kTaps];
};

/// lut: the 6 x 256 products in shared memory.
template <int C>
__global__ void gaussian_lut_kernel(DeviceImage in, DeviceImage out, const std::uint32_t* lut,
                                    Classes25 classes, BorderMode border) {
  __shared__ std::uint32_t table[kGaussianDistinctWeights * kLutEntries];
  const int tid = static_cast<int>(threadIdx.y * blockDim.x + threadIdx.x);
  for (int i = tid; i < kGaussianDistinctWeights * kLutEntries;
       i += static_cast<int>(blockDim.x * blockDim.y)) {
    table[i] = lut[i];
  }
  __syncthreads();
  const int x = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
  const int y = static_cast<int>(blockIdx.y * blockDim.y + threadIdx.y);
  if (x >= in.width || y >= in.height) return;
  const bool interior = is_interior(in, x, y);
  int sum[C] = {};
#pragma unroll
  for (int i = 0; i < kTaps; ++i) {
#pragma unroll
    for (int j = 0; j < kTaps; ++j) {
      int v[C];
      fetch_pixel<C>(in, x + j - kRadius, y + i - kRadius, border, interior, v);
      const std::uint32_t* products = table + classes.k[i * kTaps + j] * kLutEntries;
#pragma unroll
      for (int c = 0; c < C; ++c) sum[c] += static_cast<int>(products[v[c]]);
    }
  }
  store_pixel<C>(in, out, x, y, sum);
}

/// A coordinate for the texture: passed through where the address mode does the border (it
/// may then lie outside the image), else mapped in software (-1: outside under a constant
/// border).
__device__ __forceinline__ int texture_coord(int i, int n, BorderMode border, bool hardware) {
  return hardware ? i : border_index_dev(i, n, border.kind);
}

template <int C>
__global__ void gaussian_texture_kernel(DeviceImage in, DeviceImage out, cudaTextureObject_t tex,
                                        Weights25 weights, BorderMode border, bool hardware_x,
                                        bool hardware_y) {
  const int x = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
  const int y = static_cast<int>(blockIdx.y * blockDim.y + threadIdx.y);
  if (x >= in.width || y >= in.height) return;
  int sum[C] = {};
#pragma unroll
  for (int i = 0; i < kTaps; ++i) {
    const int ty = texture_coord(y + i - kRadius, in.height, border, hardware_y);
#pragma unroll
    for (int j = 0; j < kTaps; ++j) {
      const int tx = texture_coord(x + j - kRadius, in.width, border, hardware_x);
      int v[C];
      if ((!hardware_x && tx < 0) || (!hardware_y && ty < 0)) {
#pragma unroll
        for (int c = 0; c < C; ++c) v[c] = border.value;
      } else if constexpr (C == 4) {
        const uchar4 p =
            tex2D<uchar4>(tex, static_cast<float>(tx) + 0.5F, static_cast<float>(ty) + 0.5F);
        v[0] = p.x;
        v[1] = p.y;
        v[2] = p.z;
        v[3] = p.w;
      } else {
        // One-byte texels; an RGB row is 3W texels wide (tx was mapped in software).
#pragma unroll
        for (int c = 0; c < C; ++c) {
          v[c] = tex2D<unsigned char>(tex, static_cast<float>(tx * C + c) + 0.5F,
                                      static_cast<float>(ty) + 0.5F);
        }
      }
      const int w = weights.w[i * kTaps + j];
#pragma unroll
      for (int c = 0; c < C; ++c) sum[c] += w * v[c];
    }
  }
  store_pixel<C>(in, out, x, y, sum);
}

Weights25 weights_2d(const std::array<int, 5>& q) {
  Weights25 w{};
  for (int i = 0; i < kTaps; ++i) {
    for (int j = 0; j < kTaps; ++j) w.w[i * kTaps + j] = q[i] * q[j];
  }
  return w;
}

Classes25 weight_classes() {
  Classes25 classes{};
  for (int i = 0; i < kTaps; ++i) {
    for (int j = 0; j < kTaps; ++j) classes.k[i * kTaps + j] = gaussian_weight_class(i, j);
  }
  return classes;
}

dim3 pixel_grid(const DeviceImage& img) {
  return dim3(blocks_for(img.width, kBlockX), blocks_for(img.height, kBlockY));
}

}  // namespace

void launch_gaussian_texture(const DeviceImage& in, const DeviceImage& out,
                             const std::array<int, 5>& q, BorderMode border, cudaStream_t stream) {
  // Three attributes, not cudaGetDeviceProperties: that one reads every property and takes
  // far longer than a launch.
  int device = 0;
  CUDA_CHECK(cudaGetDevice(&device));
  const auto attribute = [device](cudaDeviceAttr which) {
    int value = 0;
    CUDA_CHECK(cudaDeviceGetAttribute(&value, which, device));
    return value;
  };
  const int max_wide = attribute(cudaDevAttrMaxTexture2DLinearWidth);
  const int max_high = attribute(cudaDevAttrMaxTexture2DLinearHeight);
  const auto alignment = static_cast<std::uintptr_t>(attribute(cudaDevAttrTextureAlignment));
  const int texels_wide = in.channels == 4 ? in.width : in.width * in.channels;
  if (texels_wide > max_wide || in.height > max_high) {
    throw RuntimeError("the texture variant handles images up to " + std::to_string(max_wide) +
                       " texels wide and " + std::to_string(max_high) +
                       " rows on this device; use another gaussian variant");
  }
  if (reinterpret_cast<std::uintptr_t>(in.data) % alignment != 0) {
    throw RuntimeError("the texture variant needs the input aligned to " +
                       std::to_string(alignment) + " bytes");
  }
  cudaResourceDesc resource{};
  resource.resType = cudaResourceTypePitch2D;
  resource.res.pitch2D.devPtr = in.data;
  resource.res.pitch2D.desc =
      in.channels == 4 ? cudaCreateChannelDesc<uchar4>() : cudaCreateChannelDesc<unsigned char>();
  resource.res.pitch2D.width = static_cast<std::size_t>(texels_wide);
  resource.res.pitch2D.height = static_cast<std::size_t>(in.height);
  resource.res.pitch2D.pitchInBytes = in.pitch;

  // replicate = clamp; constant 0 = border (the hardware's border colour is 0). The rest is
  // remapped in software and then never leaves the image, so the mode does not matter there.
  const bool zero_border = border.kind == BorderKind::constant && border.value == 0;
  const bool hardware = border.kind == BorderKind::replicate || zero_border;
  cudaTextureDesc texture{};
  const cudaTextureAddressMode mode = zero_border ? cudaAddressModeBorder : cudaAddressModeClamp;
  texture.addressMode[0] = mode;
  texture.addressMode[1] = mode;
  texture.filterMode = cudaFilterModePoint;
  texture.readMode = cudaReadModeElementType;
  texture.normalizedCoords = 0;
  const TextureObject tex(resource, texture);

  const Weights25 weights = weights_2d(q);
  const bool hardware_x = hardware && in.channels != 3;  // RGB texels are single bytes
  const dim3 block(kBlockX, kBlockY);
  with_channels(in.channels, [&](auto c) {
    gaussian_texture_kernel<decltype(c)::value><<<pixel_grid(in), block, 0, stream>>>(
        in, out, tex.get(), weights, border, hardware_x, hardware);
  });
  CUDA_CHECK_LAUNCH("gaussian_texture_kernel");
  // A texture object must outlive the kernels reading it.
  CUDA_CHECK(cudaStreamSynchronize(stream));
}

void launch_gaussian(GaussianVariant variant, const DeviceImage& in, const DeviceImage& out,
                     const std::array<int, 5>& q, const GaussianTables& tables, BorderMode border,
                     cudaStream_t stream) {
  const dim3 block(kBlockX, kBlockY);
  const dim3 grid = pixel_grid(in);
  switch (variant) {
    case GaussianVariant::registers:
      launch_gaussian_registers(in, out, q, border, stream);
      return;
    case GaussianVariant::separable:
      launch_gaussian_separable(in, out, q, border, stream);
      return;
    case GaussianVariant::texture:
      launch_gaussian_texture(in, out, q, border, stream);
      return;
    case GaussianVariant::direct:
      with_channels(in.channels, [&](auto c) {
        gaussian_direct_kernel<decltype(c)::value>
            <<<grid, block, 0, stream>>>(in, out, tables.weights, border);
      });
      CUDA_CHECK_LAUNCH("gaussian_direct_kernel");
      return;
    case GaussianVariant::unrolled:
      with_channels(in.channels, [&](auto c) {
        gaussian_unrolled_kernel<decltype(c)::value>
            <<<grid, block, 0, stream>>>(in, out, weights_2d(q), border);
      });
      CUDA_CHECK_LAUNCH("gaussian_unrolled_kernel");
      return;
    case GaussianVariant::lut:
      with_channels(in.channels, [&](auto c) {
        gaussian_lut_kernel<decltype(c)::value>
            <<<grid, block, 0, stream>>>(in, out, tables.lut, weight_classes(), border);
      });
      CUDA_CHECK_LAUNCH("gaussian_lut_kernel");
      return;
  }
}

}  // namespace parfilter::cuda
