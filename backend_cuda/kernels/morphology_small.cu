// Small rectangles (within 5 x 5) of RGBA images for the vhgw variant (van Herk/Gil-Werman
// saves nothing over 3 or 5 values), by direct extrema in registers, a thread per quad (four
// pixels) sliding down 8 rows:
//   square  - a whole 3 x 3 element (one rectangle, nothing to combine): the thread issues all
//             10 input rows of its strip at once (the 16-byte quad and the word on each side),
//             takes each row's horizontal extrema once and each output as the extremum of three
//             of them. A pixel is two registers of 16-bit lanes whose high bytes are its
//             samples (R, B moved up by one PRMT; G, A the word itself) over junk low bytes, so
//             one VIMNMX3 takes three pixels' extrema. Warps inside the image skip every bounds
//             test; the others read pixels outside as the neutral value, so only columns past
//             the last whole quad are the edge kernel's.
//   stencil - any other rectangle, or one combined into a previous result: sharpen's quad
//             stencil (quad_stencil.cuh), each row read once (its quad and R words on each
//             side) and kept as its horizontal extrema in a ring of 2R + 1 rows, pixels split
//             into 16-bit lanes (two VIMNMX per extremum).
#include "internal.hpp"
#include "morphology_common.cuh"
#include "quad_stencil.cuh"

namespace parfilter::cuda {
namespace {

constexpr int kThreads = 128;
constexpr int kRows = 8;  ///< output rows per thread
constexpr int kRgba = 4;
/// The square kernel's element: (2 kSquareRadius + 1)^2 (5 x 5 would fit it but is untested).
constexpr int kSquareRadius = 1;

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

// ---- the full (2R + 1) x (2R + 1) square ----------------------------------------------------
/// Pixels 4 qx - R .. 4 qx + 3 + R of one row.
template <int R>
struct SquareRow {
  std::uint32_t w[kQuadPixels + 2 * R];
};

/// A pixel as two registers of 16-bit lanes whose high bytes are its samples (R, B; G, A) and
/// whose low bytes are junk: a lane extremum orders by the high byte first, so the winner's
/// high byte is the extremum of the samples whatever the junk. ga is the pixel word itself.
struct HighLanes {
  std::uint32_t rb;
  std::uint32_t ga;
};

constexpr unsigned int kRbHigh = 0x2000U;     ///< byte 0 into byte 1, byte 2 into byte 3
constexpr unsigned int kRbAlpha = 0x7371U;    ///< R, B from the high bytes, alpha from a pixel
constexpr unsigned int kRgbaFinal = 0x3250U;  ///< G (second word's byte 1) into byte 1

/// Extrema of 16-bit lanes, two or three values at once (SplitMorph's).
template <MorphOp Op>
struct LaneMorph {
  __device__ static __forceinline__ std::uint32_t of2(std::uint32_t a, std::uint32_t b) {
    return SplitMorph<Op>::combine1(a, b);
  }
  __device__ static __forceinline__ std::uint32_t of3(std::uint32_t a, std::uint32_t b,
                                                      std::uint32_t c) {
    return SplitMorph<Op>::combine3(a, b, c);
  }
  /// The extremum of v[0 .. N).
  template <int N>
  __device__ static __forceinline__ HighLanes fold(const HighLanes* v) {
    HighLanes acc = v[0];
    int i = 1;
#pragma unroll
    for (; i + 1 < N; i += 2) {
      acc.rb = of3(acc.rb, v[i].rb, v[i + 1].rb);
      acc.ga = of3(acc.ga, v[i].ga, v[i + 1].ga);
    }
    if (i < N) {
      acc.rb = of2(acc.rb, v[i].rb);
      acc.ga = of2(acc.ga, v[i].ga);
    }
    return acc;
  }
};

/// Row y around quad qx, whose first word is at `words` (unless Checked: only read when the
/// row is inside the image); with Checked, pixels outside the image read as the neutral value.
template <MorphOp Op, int R, bool Checked>
__device__ __forceinline__ SquareRow<R> load_square_row(const DeviceImage& in,
                                                        const std::uint32_t* words, int qx, int y) {
  constexpr std::uint32_t kOutside = Morph<Op>::kNeutral;
  SquareRow<R> r;
  if (Checked && (y < 0 || y >= in.height)) {
#pragma unroll
    for (auto& w : r.w) w = kOutside;
    return r;
  }
  const uint4 q = __ldg(reinterpret_cast<const uint4*>(words));
  r.w[R] = q.x;
  r.w[R + 1] = q.y;
  r.w[R + 2] = q.z;
  r.w[R + 3] = q.w;
  const int x0 = kQuadPixels * qx;
#pragma unroll
  for (int i = 0; i < R; ++i) {
    r.w[i] = !Checked || x0 - R + i >= 0 ? __ldg(words - R + i) : kOutside;
    r.w[R + kQuadPixels + i] =
        !Checked || x0 + kQuadPixels + i < in.width ? __ldg(words + kQuadPixels + i) : kOutside;
  }
  return r;
}

/// Row y's first word at quad qx, or null for a row outside the image.
__device__ __forceinline__ const std::uint32_t* quad_words(const DeviceImage& in, int qx, int y) {
  return y < 0 || y >= in.height
             ? nullptr
             : reinterpret_cast<const std::uint32_t*>(row_of(in, y)) + kRgba * qx;
}

/// Output rows y0 .. y0 + kRows - 1 of quad qx: each input row's horizontal extrema once,
/// each output the extremum of 2R + 1 of them.
template <MorphOp Op, int R, bool Checked>
__device__ __forceinline__ void square_strip(const DeviceImage& in, const DeviceImage& out, int qx,
                                             int y0) {
  using L = LaneMorph<Op>;
  constexpr int kSpan = 2 * R + 1;
  constexpr int kIn = kRows + 2 * R;
  // Unchecked, rows y0 - R .. y0 + kRows - 1 + R are all inside: one base pointer.
  const std::uint8_t* src = Checked ? nullptr : row_of(in, y0 - R) + kRgba * kQuadPixels * qx;
  std::uint8_t* dst = mutable_row(out, y0) + kRgba * kQuadPixels * qx;
  const auto load = [&](int k) {
    const int y = y0 - R + k;
    if (Checked) return load_square_row<Op, R, true>(in, quad_words(in, qx, y), qx, y);
    const auto* words = reinterpret_cast<const std::uint32_t*>(src + k * in.pitch);
    return load_square_row<Op, R, false>(in, words, qx, y);
  };
  // Every row's loads first, the strip's bytes all in flight at once: measured faster than one
  // to three rows ahead (0.070 against 0.071 to 0.074 ms).
  SquareRow<R> raw[kIn];
#pragma unroll
  for (int k = 0; k < kIn; ++k) raw[k] = load(k);
  HighLanes h[kIn][kQuadPixels];
#pragma unroll
  for (int k = 0; k < kIn; ++k) {
    HighLanes px[kQuadPixels + 2 * R];
#pragma unroll
    for (int i = 0; i < kQuadPixels + 2 * R; ++i)
      px[i] = HighLanes{__byte_perm(raw[k].w[i], 0U, kRbHigh), raw[k].w[i]};
#pragma unroll
    for (int p = 0; p < kQuadPixels; ++p) h[k][p] = L::template fold<kSpan>(px + p);
    const int o = k - 2 * R;  // the output row this input row completes
    if (o < 0) continue;
    Quad<kRgba> q;
#pragma unroll
    for (int p = 0; p < kQuadPixels; ++p) {
      HighLanes column[kSpan];
#pragma unroll
      for (int j = 0; j < kSpan; ++j) column[j] = h[o + j][p];
      const HighLanes v = L::template fold<kSpan>(column);
      // R and B from rb's high bytes with the centre pixel's alpha, then G from ga's.
      const std::uint32_t rba = __byte_perm(v.rb, raw[o + R].w[R + p], kRbAlpha);
      q.w[p] = __byte_perm(rba, v.ga, kRgbaFinal);
    }
    if (!Checked || y0 + o < in.height) store_quad<kRgba>(dst, 0, q);
    dst += out.pitch;
  }
}

template <MorphOp Op, int R>
__global__ void __launch_bounds__(kThreads) morph_square_kernel(DeviceImage in, DeviceImage out) {
  constexpr int kWarp = 32;
  const int qx = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
  const int y0 = static_cast<int>(blockIdx.y) * kRows;
  // Warps whose quads and rows, R pixels around, all lie inside the image skip every bounds
  // test (a test per warp: no warp diverges).
  const int first = qx - static_cast<int>(threadIdx.x % kWarp);
  const bool inside = first >= 1 && kQuadPixels * (first + kWarp) + R <= in.width && y0 >= R &&
                      y0 + kRows + R <= in.height;
  if (inside) {
    square_strip<Op, R, false>(in, out, qx, y0);
  } else if (qx < in.width / kQuadPixels) {
    square_strip<Op, R, true>(in, out, qx, y0);
  }
}

template <MorphOp Op>
void launch_square(const DeviceImage& in, const DeviceImage& out, cudaStream_t stream) {
  constexpr int R = kSquareRadius;
  const int quads = in.width / kQuadPixels;  // whole quads; the rest is the edge kernel's
  if (quads > 0) {
    const dim3 grid(blocks_for(quads, kThreads), blocks_for(in.height, kRows));
    morph_square_kernel<Op, R><<<grid, kThreads, 0, stream>>>(in, out);
    CUDA_CHECK_LAUNCH("morph_square_kernel");
  }
  const EdgeColumns edges{0, kQuadPixels * quads, in.width};
  if (edges.count() > 0) {
    small_rect_edge_kernel<Op>
        <<<edge_grid(edges, in.height), dim3(kEdgeBlockX, kEdgeBlockY), 0, stream>>>(
            in, out, MorphRect{-R, R + 1, -R, R + 1}, false, edges);
    CUDA_CHECK_LAUNCH("small_rect_edge_kernel");
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
  constexpr int r = kSquareRadius;
  if (rect.x0 == -r && rect.x1 == r + 1 && rect.y0 == -r && rect.y1 == r + 1 && !combine) {
    if (op == MorphOp::erode) {
      launch_square<MorphOp::erode>(in, out, stream);
    } else {
      launch_square<MorphOp::dilate>(in, out, stream);
    }
    return true;
  }
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
