// sharpen = sat(5 c - up - down - left - right) per channel, alpha copied: the op whole, its
// kernels (which no other op shares) beside its definition. Three variants:
//   naive  - a thread per sample, five bordered reads;
//   vector - a thread per quad (four pixels, one 16-byte load for RGBA) sliding down several
//            rows (quad_stencil.cuh); the five neighbours are whole words and the arithmetic runs
//            on two samples per register (16-bit lanes, offset by 1020 so no lane borrows), then
//            saturates with the 16-bit min/max instructions and packs back to bytes;
//   tile   - a shared-memory tile with a 1-pixel apron, a thread per pixel.
#include "cuda_op.hpp"
#include "quad_stencil.cuh"

namespace parfilter::cuda {
namespace {

constexpr int kCentreWeight = 5;
constexpr int kBlock = 256;
constexpr int kVectorRows = 8;  ///< rows each vector thread slides over
constexpr int kTileX = 32;
constexpr int kTileY = 8;
constexpr int kApron = 1;

/// The sharpened sample at (x, y, c) through the border.
template <int C>
__device__ __forceinline__ std::uint8_t sharpen_sample(const DeviceImage& in, int x, int y, int c,
                                                       BorderMode border) {
  if (C == 4 && c == kAlphaChannel) return row_of(in, y)[x * C + c];
  const int v =
      kCentreWeight * bordered_sample<C>(in, x, y, c, border) -
      bordered_sample<C>(in, x, y - 1, c, border) - bordered_sample<C>(in, x, y + 1, c, border) -
      bordered_sample<C>(in, x - 1, y, c, border) - bordered_sample<C>(in, x + 1, y, c, border);
  return static_cast<std::uint8_t>(min(max(v, 0), kMaxSample));
}

template <int C>
__global__ void sharpen_naive_kernel(DeviceImage in, DeviceImage out, BorderMode border) {
  const int i = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
  const int y = static_cast<int>(blockIdx.y);
  if (i >= in.width * C) return;
  mutable_row(out, y)[i] = sharpen_sample<C>(in, i / C, y, i % C, border);
}

/// One word of 4 samples: sat(5 c - u - d - l - r) per byte, two bytes per 16-bit lane pair.
__device__ __forceinline__ std::uint32_t sharpen_word(std::uint32_t c, std::uint32_t u,
                                                      std::uint32_t d, std::uint32_t l,
                                                      std::uint32_t r) {
  constexpr std::uint32_t kOffset = 0x03FC03FCU;  // 1020 = 4 * 255 in each lane: never negative
  constexpr std::uint32_t kTop = kOffset + 0x00FF00FFU;
  std::uint32_t even = kCentreWeight * even_lanes(c) + kOffset - even_lanes(u) - even_lanes(d) -
                       even_lanes(l) - even_lanes(r);
  std::uint32_t odd = kCentreWeight * odd_lanes(c) + kOffset - odd_lanes(u) - odd_lanes(d) -
                      odd_lanes(l) - odd_lanes(r);
  even = __vminu2(__vmaxu2(even, kOffset), kTop) - kOffset;
  odd = __vminu2(__vmaxu2(odd, kOffset), kTop) - kOffset;
  return merge_lanes(even, odd);
}

/// The vector kernel's edge columns, a thread per pixel.
template <int C>
__global__ void sharpen_edge_kernel(DeviceImage in, DeviceImage out, BorderMode border,
                                    EdgeColumns edges) {
  const int i = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
  const int y = static_cast<int>(blockIdx.y * blockDim.y + threadIdx.y);
  if (i >= edges.count() || y >= in.height) return;
  const int x = edges.column(i);
#pragma unroll
  for (int c = 0; c < C; ++c)
    mutable_row(out, y)[x * C + c] = sharpen_sample<C>(in, x, y, c, border);
}

/// The vector kernel as a quad stencil: the ring keeps three rows' streams (the quad and the
/// word on each side), the centre row's side words give the left and right neighbours.
template <int C>
struct SharpenStencil {
  static constexpr int kSide = 1;
  static constexpr int kSpan = 3;
  using Row = QuadStream<C, kSide>;
  int top = -1;
  BorderMode border;
  __device__ __forceinline__ Row row(const Row& stream) const { return stream; }
  __device__ __forceinline__ Quad<C> output(const Row (&ring)[kSpan], int /*qx*/, int /*y*/) const {
    const Row& up = ring[0];
    const Row& centre = ring[1];
    const Row& down = ring[2];
    Quad<C> result;
#pragma unroll
    for (int m = 0; m < C; ++m) {
      const int at = kQuadPixels * (m + kSide);  // byte offset of word m in the stream
      const std::uint32_t c = centre.w[m + kSide];
      result.w[m] = sharpen_word(c, up.w[m + kSide], down.w[m + kSide],
                                 stream_word(centre.w, at - C), stream_word(centre.w, at + C));
      if (C == 4) result.w[m] = with_alpha(result.w[m], c);
    }
    return result;
  }
};

template <int C>
__global__ void sharpen_vector_kernel(DeviceImage in, DeviceImage out, BorderMode border) {
  // Side words once the neighbours' quads are in L1 (measured faster than with the quad).
  quad_stencil_strip<C, SharpenStencil<C>, /*Defer=*/true>(
      in, out, SharpenStencil<C>{.border = border}, kVectorRows);
}

template <int C>
__global__ void sharpen_tile_kernel(DeviceImage in, DeviceImage out, BorderMode border) {
  constexpr int kW = kTileX + 2 * kApron;
  constexpr int kH = kTileY + 2 * kApron;
  __shared__ std::uint8_t tile[kH][kW * C];
  const int bx = static_cast<int>(blockIdx.x) * kTileX;
  const int by = static_cast<int>(blockIdx.y) * kTileY;
  const int tid = static_cast<int>(threadIdx.y * kTileX + threadIdx.x);
  for (int i = tid; i < kH * kW * C; i += kTileX * kTileY) {
    const int r = i / (kW * C);
    const int b = i % (kW * C);
    tile[r][b] = static_cast<std::uint8_t>(
        bordered_sample<C>(in, bx - kApron + b / C, by - kApron + r, b % C, border));
  }
  __syncthreads();
  const int x = bx + static_cast<int>(threadIdx.x);
  const int y = by + static_cast<int>(threadIdx.y);
  if (x >= in.width || y >= in.height) return;
  const int tx = static_cast<int>(threadIdx.x) + kApron;
  const int ty = static_cast<int>(threadIdx.y) + kApron;
  std::uint8_t* dst = mutable_row(out, y) + x * C;
#pragma unroll
  for (int c = 0; c < C; ++c) {
    if (C == 4 && c == kAlphaChannel) {
      dst[c] = tile[ty][tx * C + c];
      continue;
    }
    const int v = kCentreWeight * tile[ty][tx * C + c] - tile[ty - 1][tx * C + c] -
                  tile[ty + 1][tx * C + c] - tile[ty][(tx - 1) * C + c] -
                  tile[ty][(tx + 1) * C + c];
    dst[c] = static_cast<std::uint8_t>(min(max(v, 0), kMaxSample));
  }
}

}  // namespace

void launch_sharpen(SharpenVariant variant, const DeviceImage& in, const DeviceImage& out,
                    BorderMode border, cudaStream_t stream) {
  with_channels(in.channels, [&](auto c) {
    constexpr int C = decltype(c)::value;
    switch (variant) {
      case SharpenVariant::naive: {
        const dim3 grid(blocks_for(static_cast<long long>(in.width) * C, kBlock),
                        static_cast<unsigned int>(in.height));
        sharpen_naive_kernel<C><<<grid, kBlock, 0, stream>>>(in, out, border);
        break;
      }
      case SharpenVariant::vector: {
        const dim3 grid(blocks_for((in.width + kQuadPixels - 1) / kQuadPixels, kBlock),
                        blocks_for(in.height, kVectorRows));
        sharpen_vector_kernel<C><<<grid, kBlock, 0, stream>>>(in, out, border);
        const EdgeColumns edges = edge_columns(in.width, [&](int qx) {
          return stream_interior<C, SharpenStencil<C>::kSide>(qx, in.width);
        });
        if (edges.count() > 0) {
          sharpen_edge_kernel<C>
              <<<edge_grid(edges, in.height), dim3(kEdgeBlockX, kEdgeBlockY), 0, stream>>>(
                  in, out, border, edges);
        }
        break;
      }
      case SharpenVariant::tile: {
        const dim3 grid(blocks_for(in.width, kTileX), blocks_for(in.height, kTileY));
        sharpen_tile_kernel<C><<<grid, dim3(kTileX, kTileY), 0, stream>>>(in, out, border);
        break;
      }
    }
  });
  CUDA_CHECK_LAUNCH("sharpen kernel");
}

}  // namespace parfilter::cuda

namespace parfilter::cuda::ops {
namespace {

constexpr std::array<VariantName<SharpenVariant>, 3> kVariants = {
    {{"vector", SharpenVariant::vector},
     {"naive", SharpenVariant::naive},
     {"tile", SharpenVariant::tile}}};

std::vector<std::string> variants() { return variant_names(kVariants); }

DeviceResult run(Workspace& ws, const OpParams& params, const DeviceImage& in) {
  const DeviceImage out = ws.image(ws.output, in.width, in.height, in.channels);
  launch_sharpen(variant_value(kVariants, params.variant), in, out, params.border, ws.stream.get());
  return DeviceResult{out, {}, {}};
}

}  // namespace

extern const CudaOp sharpen_op{"sharpen", variants, run, Chain16::step_of<&Chain16::sharpen>};

}  // namespace parfilter::cuda::ops
