// Small rectangles (within 5 x 5) of RGBA images for the vhgw variant: van Herk/Gil-Werman
// saves nothing over 3 or 5 values, so a thread takes a quad (four pixels, one 16-byte load per
// row plus the quads beside it) and slides down the rows, keeping the last rows' horizontal
// extrema in registers. Pixels are split into 16-bit lanes (two VIMNMX per extremum).
#include "internal.hpp"
#include "morphology_common.cuh"

namespace parfilter::cuda {
namespace {

constexpr int kThreads = 128;
constexpr int kRows = 16;  ///< output rows per thread
constexpr int kRgba = 4;

/// Quad qx and the quads beside it lie inside a row of `width` pixels.
__host__ __device__ bool small_interior(int qx, int width) {
  return qx >= 1 && kQuadPixels * qx + 2 * kQuadPixels <= width;
}

/// The edge columns, a thread per pixel, pixels outside the image ignored.
template <MorphOp Op>
__global__ void small_rect_edge_kernel(DeviceImage in, DeviceImage out, MorphRect rect,
                                       bool combine, EdgeColumns edges) {
  const int i = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
  const int y = static_cast<int>(blockIdx.y * blockDim.y + threadIdx.y);
  if (i >= edges.count() || y >= in.height) return;
  const int x = edges.column(i);
  std::uint32_t acc = Morph<Op>::kNeutral;
  for (int j = rect.y0; j < rect.y1; ++j) {
    for (int k = rect.x0; k < rect.x1; ++k) {
      acc = Morph<Op>::combine(acc, pixel_or_neutral<kRgba, Op>(in, x + k, y + j));
    }
  }
  if (combine) acc = Morph<Op>::combine(acc, load_pixel<kRgba>(row_of(out, y), x));
  store_result<kRgba>(out, in, x, y, acc);
}

/// R: the rectangle lies within columns -R..R and spans at most 2R + 1 rows.
template <MorphOp Op, int R>
__global__ void __launch_bounds__(kThreads)
    morph_small_kernel(DeviceImage in, DeviceImage out, MorphRect rect, bool combine) {
  using M = SplitMorph<Op>;
  constexpr int kSpan = 2 * R + 1;
  const int qx = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
  // Edge quads are small_rect_edge_kernel's; no barrier or shuffle below.
  if (!small_interior(qx, in.width)) return;
  const int y0 = static_cast<int>(blockIdx.y) * kRows;
  const int y1 = min(y0 + kRows, in.height);
  const int h = rect.y1 - rect.y0;
  const uint2 neutral = make_uint2(M::kNeutral, M::kNeutral);
  uint2 ring[kSpan][kQuadPixels];  // horizontal extrema of the last rows, newest last
#pragma unroll
  for (int k = 0; k < kSpan; ++k) {
#pragma unroll
    for (int p = 0; p < kQuadPixels; ++p) ring[k][p] = neutral;
  }
  for (int r = y0 + rect.y0; r <= y1 - 1 + rect.y1 - 1; ++r) {
#pragma unroll
    for (int k = 0; k + 1 < kSpan; ++k) {
#pragma unroll
      for (int p = 0; p < kQuadPixels; ++p) ring[k][p] = ring[k + 1][p];
    }
    if (r < 0 || r >= in.height) {
#pragma unroll
      for (int p = 0; p < kQuadPixels; ++p) ring[kSpan - 1][p] = neutral;
    } else {
      const auto* row = reinterpret_cast<const uint4*>(row_of(in, r));
      const uint4 left = __ldg(row + qx - 1);
      const uint4 mid = __ldg(row + qx);
      const uint4 right = __ldg(row + qx + 1);
      const std::uint32_t px[3 * kQuadPixels] = {left.x,  left.y,  left.z,  left.w,
                                                 mid.x,   mid.y,   mid.z,   mid.w,
                                                 right.x, right.y, right.z, right.w};
      uint2 split_px[kQuadPixels + 2 * R];  // pixels x0 - R .. x0 + 3 + R
#pragma unroll
      for (int k = 0; k < kQuadPixels + 2 * R; ++k) split_px[k] = split(px[kQuadPixels - R + k]);
#pragma unroll
      for (int p = 0; p < kQuadPixels; ++p) {
        uint2 acc = neutral;
#pragma unroll
        for (int i = -R; i <= R; ++i) {
          if (i >= rect.x0 && i < rect.x1) acc = M::combine(acc, split_px[p + i + R]);
        }
        ring[kSpan - 1][p] = acc;
      }
    }
    const int y = r - rect.y1 + 1;  // the output row whose window ends at row r
    if (y < y0) continue;
    const auto* centre = reinterpret_cast<const uint4*>(row_of(in, y)) + qx;
    const uint4 alpha = __ldg(centre);
    const std::uint32_t alphas[kQuadPixels] = {alpha.x, alpha.y, alpha.z, alpha.w};
    std::uint32_t result[kQuadPixels];
    const uint4 previous = combine ? reinterpret_cast<const uint4*>(row_of(out, y))[qx] : uint4{};
    const std::uint32_t before[kQuadPixels] = {previous.x, previous.y, previous.z, previous.w};
#pragma unroll
    for (int p = 0; p < kQuadPixels; ++p) {
      uint2 acc = neutral;
#pragma unroll
      for (int k = 0; k < kSpan; ++k) {
        if (k >= kSpan - h) acc = M::combine(acc, ring[k][p]);
      }
      std::uint32_t v = merge_lanes(acc.x, acc.y);
      if (combine) v = Morph<Op>::combine(v, before[p]);
      result[p] = with_alpha(v, alphas[p]);
    }
    reinterpret_cast<uint4*>(mutable_row(out, y))[qx] =
        make_uint4(result[0], result[1], result[2], result[3]);
  }
}

template <MorphOp Op, int R>
void launch_small(const DeviceImage& in, const DeviceImage& out, const MorphRect& rect,
                  bool combine, cudaStream_t stream) {
  const dim3 grid(blocks_for((in.width + kQuadPixels - 1) / kQuadPixels, kThreads),
                  blocks_for(in.height, kRows));
  morph_small_kernel<Op, R><<<grid, kThreads, 0, stream>>>(in, out, rect, combine);
  CUDA_CHECK_LAUNCH("morph_small_kernel");
  const EdgeColumns edges =
      edge_columns(in.width, [&](int qx) { return small_interior(qx, in.width); });
  if (edges.count() > 0) {
    small_rect_edge_kernel<Op>
        <<<edge_grid(edges, in.height), dim3(kEdgeBlockX, kEdgeBlockY), 0, stream>>>(
            in, out, rect, combine, edges);
    CUDA_CHECK_LAUNCH("small_rect_edge_kernel");
  }
}

/// Whether the rectangle lies within columns -r..r and spans at most 2r + 1 rows.
bool fits(const MorphRect& rect, int r) {
  return rect.x0 >= -r && rect.x1 <= r + 1 && rect.y1 - rect.y0 <= 2 * r + 1;
}

}  // namespace

bool launch_morphology_small_rect(MorphOp op, const DeviceImage& in, const DeviceImage& out,
                                  const MorphRect& rect, bool combine, cudaStream_t stream) {
  if (in.channels != kRgba) return false;
  const auto launch = [&](auto radius) {
    constexpr int R = decltype(radius)::value;
    if (op == MorphOp::erode) {
      launch_small<MorphOp::erode, R>(in, out, rect, combine, stream);
    } else {
      launch_small<MorphOp::dilate, R>(in, out, rect, combine, stream);
    }
  };
  if (fits(rect, 1)) {
    launch(std::integral_constant<int, 1>{});
  } else if (fits(rect, 2)) {
    launch(std::integral_constant<int, 2>{});
  } else {
    return false;
  }
  return true;
}

}  // namespace parfilter::cuda
