// Small rectangles (within 5 x 5) of RGBA images for the vhgw variant: van Herk/Gil-Werman
// saves nothing over 3 or 5 values, so the rectangle runs on sharpen's quad stencil
// (quad_stencil.cuh): a thread per quad slides down 8 rows, each row read once (its 16-byte
// quad and R words on each side) and kept as its horizontal extrema in a ring of 2R + 1 rows.
// Pixels are split into 16-bit lanes (two VIMNMX per extremum).
#include "internal.hpp"
#include "morphology_common.cuh"
#include "quad_stencil.cuh"

namespace parfilter::cuda {
namespace {

constexpr int kThreads = 128;
constexpr int kRows = 8;  ///< output rows per thread
constexpr int kRgba = 4;

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

/// bytes 3 of two words into bytes 0 and 1 (__byte_perm), and the low halves of two words
constexpr unsigned int kAlphaBytes = 0x0073U;
constexpr unsigned int kLowHalves = 0x5410U;
constexpr unsigned int kRgbBytes = 0x0210U;  ///< bytes 0..2 of the first word, byte 3 chosen

/// The alpha bytes of a quad's four pixels, pixel p in byte p.
__device__ __forceinline__ std::uint32_t quad_alphas(std::uint32_t w0, std::uint32_t w1,
                                                     std::uint32_t w2, std::uint32_t w3) {
  return __byte_perm(__byte_perm(w0, w1, kAlphaBytes), __byte_perm(w2, w3, kAlphaBytes),
                     kLowHalves);
}

/// The rectangle as a quad stencil (R: it lies within columns -R..R and spans at most
/// 2R + 1 rows). The ring keeps each row's horizontal extrema over the rectangle's columns, in
/// 16-bit lanes, and its alpha bytes (the output's alpha is row y's, usually in the ring);
/// output row y takes the last h rows (y + y0 .. y + y1 - 1). Rows outside the image read as
/// the neutral value, as a constant border.
template <MorphOp Op, int R>
struct SmallRectStencil {
  using M = SplitMorph<Op>;
  static constexpr int kSide = R;  // RGBA: a word per pixel
  static constexpr int kSpan = 2 * R + 1;
  struct Row {
    uint2 p[kQuadPixels];
    std::uint32_t alpha;
  };
  int top;
  BorderMode border;
  MorphRect rect;
  bool combine;
  DeviceImage in;
  DeviceImage out;

  __device__ __forceinline__ Row row(const QuadStream<kRgba, kSide>& stream) const {
    uint2 px[kQuadPixels + 2 * R];  // pixels x0 - R .. x0 + 3 + R
#pragma unroll
    for (int k = 0; k < kQuadPixels + 2 * R; ++k) px[k] = split(stream.w[k]);
    Row result;
#pragma unroll
    for (int p = 0; p < kQuadPixels; ++p) {
      uint2 acc = make_uint2(M::kNeutral, M::kNeutral);
#pragma unroll
      for (int i = -R; i <= R; ++i) {
        if (i >= rect.x0 && i < rect.x1) acc = M::combine(acc, px[p + i + R]);
      }
      result.p[p] = acc;
    }
    result.alpha = quad_alphas(stream.w[R], stream.w[R + 1], stream.w[R + 2], stream.w[R + 3]);
    return result;
  }

  __device__ __forceinline__ Quad<kRgba> output(const Row (&ring)[kSpan], int qx, int y) const {
    const int h = rect.y1 - rect.y0;
    const int centre = kSpan - rect.y1;  // ring slot of row y, if the ring holds it
    std::uint32_t alpha = 0;
    if (centre >= 0 && centre < kSpan) {
#pragma unroll
      for (int k = 0; k < kSpan; ++k) {
        if (k == centre) alpha = ring[k].alpha;  // a select per slot: no local memory
      }
    } else {
      const Quad<kRgba> q = load_quad<kRgba>(row_of(in, y), qx);
      alpha = quad_alphas(q.w[0], q.w[1], q.w[2], q.w[3]);
    }
    const uint4 previous = combine ? reinterpret_cast<const uint4*>(row_of(out, y))[qx] : uint4{};
    const std::uint32_t before[kQuadPixels] = {previous.x, previous.y, previous.z, previous.w};
    Quad<kRgba> result;
#pragma unroll
    for (int p = 0; p < kQuadPixels; ++p) {
      uint2 acc = make_uint2(M::kNeutral, M::kNeutral);
#pragma unroll
      for (int k = 0; k < kSpan; ++k) {
        if (k >= kSpan - h) acc = M::combine(acc, ring[k].p[p]);
      }
      std::uint32_t v = merge_lanes(acc.x, acc.y);
      if (combine) v = Morph<Op>::combine(v, before[p]);
      // Byte 3 from alpha's byte p (selector 4 + p picks bytes of the second word).
      result.w[p] =
          __byte_perm(v, alpha, kRgbBytes | static_cast<unsigned int>(kQuadPixels + p) << 12);
    }
    return result;
  }
};

template <MorphOp Op, int R>
__global__ void __launch_bounds__(kThreads)
    morph_small_kernel(DeviceImage in, DeviceImage out, MorphRect rect, bool combine) {
  using S = SmallRectStencil<Op, R>;
  constexpr auto kNeutralByte = static_cast<std::uint8_t>(Morph<Op>::kNeutral);
  const S stencil{.top = rect.y1 - S::kSpan,
                  .border = {BorderKind::constant, kNeutralByte},
                  .rect = rect,
                  .combine = combine,
                  .in = in,
                  .out = out};
  // Side words with the quad: every row needs them here (measured faster than deferring).
  quad_stencil_strip<kRgba, S, /*Defer=*/false>(in, out, stencil, kRows);
}

template <MorphOp Op, int R>
void launch_small(const DeviceImage& in, const DeviceImage& out, const MorphRect& rect,
                  bool combine, cudaStream_t stream) {
  const dim3 grid(blocks_for((in.width + kQuadPixels - 1) / kQuadPixels, kThreads),
                  blocks_for(in.height, kRows));
  morph_small_kernel<Op, R><<<grid, kThreads, 0, stream>>>(in, out, rect, combine);
  CUDA_CHECK_LAUNCH("morph_small_kernel");
  const EdgeColumns edges =
      edge_columns(in.width, [&](int qx) { return stream_interior<kRgba, R>(qx, in.width); });
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
