// One erosion or dilation of an RGBA image by an element that is not a rectangle (an ellipse, a
// cross), in one pass: the element as its row spans (morphology_spans.cuh), every row's span
// extrema computed once per input row and distinct span, then each output's extremum over the
// element's rows.
//
// A block owns a strip of kThreads output columns (a thread per column) and streams down
// kStripRows output rows. Input rows arrive in chunks (the strip plus the element's horizontal
// reach, neutral outside the image) by 16-byte cp.async into one of two shared buffers, the next
// chunk in flight while this one is used. Per input row, a thread reads its taps (the columns
// the element reaches around its own) and builds each distinct span's extremum from a narrower
// span inside it plus the added taps, three values per VIMNMX3. Per output row it keeps an
// accumulator in registers; an input row adds its span extremum for the element row it is to
// each output still open, two input rows per VIMNMX3, and the output whose window ends there is
// stored. Rows and slots are compile-time indices once the chunk loop is unrolled (a chunk is
// a multiple of the element's height), so nothing is indexed at run time.
//
// Extrema run on two 16-bit-lane halves of a pixel word (morphology_common.cuh): the word
// shifted up a byte (R, B in the lanes' high bytes) and the word itself (G, alpha); the
// alpha lane is junk and the output takes its own input pixel's alpha, kept as one byte per
// input row in a small ring of registers.
#include <algorithm>
#include <cstdint>
#include <utility>

#include "async_copy.cuh"
#include "internal.hpp"
#include "morphology_common.cuh"
#include "morphology_spans.cuh"

namespace parfilter::cuda {
namespace spans {
namespace {

constexpr int kThreads = 128;    ///< output columns per block
constexpr int kStripRows = 128;  ///< output rows per block (the element's height - 1 warm up)
constexpr int kQuad = 4;         ///< pixels per 16-byte copy (RGBA only)
constexpr int kAlphaPerWord = 4;
constexpr unsigned int kSelectorBits = 4;
/// __byte_perm selector: the first word, with byte 3 of the second word as its byte k.
__host__ __device__ constexpr unsigned int put_alpha(int k) {
  constexpr unsigned int kIdentity = 0x3210U;
  constexpr unsigned int kSecondByte3 = 7U;
  const unsigned int shift = kSelectorBits * static_cast<unsigned int>(k);
  return (kIdentity & ~(0xFU << shift)) | (kSecondByte3 << shift);
}
/// __byte_perm selector: bytes 0-2 of the first word, then byte k of the second word.
__host__ __device__ constexpr unsigned int take_alpha(int k) {
  constexpr unsigned int kRgb = 0x0210U;
  constexpr unsigned int kSecondWord = 4U;
  return kRgb | ((kSecondWord + static_cast<unsigned int>(k)) << (3 * kSelectorBits));
}

constexpr int round_up(int v, int m) { return (v + m - 1) / m * m; }

/// The compile-time layout of one element's kernel.
template <class Element>
struct Layout {
  static constexpr Plan kPlan = make_plan(Element::kShape);
  static constexpr int kRows = kPlan.rows;
  static constexpr int kChunk = kRows % 2 == 0 ? kRows : 2 * kRows;  ///< input rows, a pair each
  static constexpr int kPad = round_up(kPlan.reach_left, kQuad);     ///< staged columns before x0
  static constexpr int kLine = kPad + kThreads + round_up(kPlan.reach_right, kQuad);
  static constexpr int kAlphaWords = (kRows + kAlphaPerWord - 1) / kAlphaPerWord;
};

template <MorphOp Op>
struct Ext {
  __device__ static __forceinline__ std::uint32_t of2(std::uint32_t a, std::uint32_t b) {
    return SplitMorph<Op>::combine1(a, b);
  }
  __device__ static __forceinline__ std::uint32_t of3(std::uint32_t a, std::uint32_t b,
                                                      std::uint32_t c) {
    if constexpr (Op == MorphOp::erode) {
      return __vimin3_u16x2(a, b, c);
    } else {
      return __vimax3_u16x2(a, b, c);
    }
  }
};

/// Chunk rows [0, kChunk) of the image from row y_first, columns from x_first (a multiple of 4)
/// into `tile`, by cp.async; pixels outside the image are the neutral value.
template <MorphOp Op, class L>
__device__ __forceinline__ void stage(const DeviceImage& in, std::uint32_t* tile, int x_first,
                                      int y_first) {
  constexpr int kQuads = L::kLine / kQuad;
  for (int i = static_cast<int>(threadIdx.x); i < L::kChunk * kQuads; i += kThreads) {
    const int r = i / kQuads;
    const int q = i - r * kQuads;
    const int y = y_first + r;
    const int x = x_first + q * kQuad;
    const unsigned int dst = shared_address(tile + r * L::kLine + q * kQuad);
    const bool row_inside = y >= 0 && y < in.height;
    if (row_inside && x >= 0 && x + kQuad <= in.width) {
      copy_async16(dst, row_of(in, y) + static_cast<std::size_t>(x) * kQuad);
      continue;
    }
    for (int p = 0; p < kQuad; ++p) {
      if (row_inside && x + p >= 0 && x + p < in.width) {
        copy_async4(dst + p * sizeof(std::uint32_t),
                    row_of(in, y) + static_cast<std::size_t>(x + p) * kQuad);
      } else {
        store_shared(dst + p * sizeof(std::uint32_t), Morph<Op>::kNeutral);
      }
    }
  }
}

/// Each distinct span's extremum (both halves) at this thread's column of one staged row
/// (`taps` points at the leftmost tap); returns the thread's own pixel word.
template <MorphOp Op, class L>
__device__ __forceinline__ std::uint32_t horizontal(const std::uint32_t* taps,
                                                    std::uint32_t (&low)[L::kPlan.spans],
                                                    std::uint32_t (&high)[L::kPlan.spans]) {
  constexpr Plan P = L::kPlan;
  using E = Ext<Op>;
  std::uint32_t tap_low[P.taps];
  std::uint32_t tap_high[P.taps];
#pragma unroll
  for (int k = 0; k < P.taps; ++k) {
    tap_high[k] = taps[k];
    tap_low[k] = low_half(tap_high[k]);
  }
#pragma unroll
  for (int d = 0; d < P.spans; ++d) {
    // Start from the parent span, or from the first added tap; then the rest, two at a time.
    const bool own_start = P.parent[d] < 0;
    std::uint32_t lo = own_start ? tap_low[P.add[d][0]] : low[P.parent[d]];
    std::uint32_t hi = own_start ? tap_high[P.add[d][0]] : high[P.parent[d]];
#pragma unroll
    for (int i = own_start ? 1 : 0; i < kMaxTaps; i += 2) {
      if (i + 1 < P.added[d]) {
        lo = E::of3(lo, tap_low[P.add[d][i]], tap_low[P.add[d][i + 1]]);
        hi = E::of3(hi, tap_high[P.add[d][i]], tap_high[P.add[d][i + 1]]);
      } else if (i < P.added[d]) {
        lo = E::of2(lo, tap_low[P.add[d][i]]);
        hi = E::of2(hi, tap_high[P.add[d][i]]);
      }
    }
    low[d] = lo;
    high[d] = hi;
  }
  return tap_high[P.reach_left];
}

/// Stores output row m of the strip (if it exists) from its accumulator and its own alpha.
template <int AlphaSlot>
__device__ __forceinline__ void store_output(const DeviceImage& out, int x, int y0, int outputs,
                                             int m, std::uint32_t low, std::uint32_t high,
                                             const std::uint32_t* alpha) {
  if (m < 0 || m >= outputs || x >= out.width) return;
  const std::uint32_t rgb = join_halves(low, high);
  const std::uint32_t word =
      __byte_perm(rgb, alpha[AlphaSlot / kAlphaPerWord], take_alpha(AlphaSlot % kAlphaPerWord));
  reinterpret_cast<std::uint32_t*>(mutable_row(out, y0 + m))[x] = word;
}

/// What one thread carries down its column: an accumulator per open output row (both halves)
/// and the alpha bytes of the last kRows input rows.
template <class L>
struct Column {
  std::uint32_t low[L::kRows];
  std::uint32_t high[L::kRows];
  std::uint32_t alpha[L::kAlphaWords];
};

/// Input rows n = n0 + U and n + 1 (U even, a compile-time offset into the chunk, so every slot
/// below is a constant): their span extrema and alphas, then the output rows they touch.
template <MorphOp Op, class L, int U>
__device__ __forceinline__ void pair_step(const std::uint32_t* rows, int n0, Column<L>& col,
                                          const DeviceImage& out, int x, int y0, int outputs) {
  constexpr Plan P = L::kPlan;
  constexpr int H = L::kRows;
  using E = Ext<Op>;
  const int n = n0 + U;
  std::uint32_t a_low[P.spans];
  std::uint32_t a_high[P.spans];
  std::uint32_t b_low[P.spans];
  std::uint32_t b_high[P.spans];
  const std::uint32_t own_a = horizontal<Op, L>(rows + U * L::kLine, a_low, a_high);
  const std::uint32_t own_b = horizontal<Op, L>(rows + (U + 1) * L::kLine, b_low, b_high);
  constexpr int kSlotA = U % H;  // ring slots of rows n and n + 1 (a chunk is a multiple of H)
  constexpr int kSlotB = (U + 1) % H;
  col.alpha[kSlotA / kAlphaPerWord] =
      __byte_perm(col.alpha[kSlotA / kAlphaPerWord], own_a, put_alpha(kSlotA % kAlphaPerWord));
  col.alpha[kSlotB / kAlphaPerWord] =
      __byte_perm(col.alpha[kSlotB / kAlphaPerWord], own_b, put_alpha(kSlotB % kAlphaPerWord));
  // Output n - H + 1 takes its last element row (H - 1) from row n alone.
  constexpr int kLast = (U + 1) % H;
  constexpr int kLastSpan = P.span_of_row[H - 1];
  col.low[kLast] = E::of2(col.low[kLast], a_low[kLastSpan]);
  col.high[kLast] = E::of2(col.high[kLast], a_high[kLastSpan]);
  store_output<(U + 1 + P.anchor_y) % H>(out, x, y0, outputs, n - H + 1, col.low[kLast],
                                         col.high[kLast], col.alpha);
  // Outputs n - j for j = H - 2 .. 0 take element rows j (from n) and j + 1 (from n + 1).
#pragma unroll
  for (int j = H - 2; j >= 0; --j) {
    const int s = (U - j + H) % H;
    const int da = P.span_of_row[j];
    const int db = P.span_of_row[j + 1];
    if (j == 0) {
      col.low[s] = E::of2(a_low[da], b_low[db]);
      col.high[s] = E::of2(a_high[da], b_high[db]);
    } else {
      col.low[s] = E::of3(col.low[s], a_low[da], b_low[db]);
      col.high[s] = E::of3(col.high[s], a_high[da], b_high[db]);
    }
  }
  constexpr int kDone = (U + 2) % H;  // output n - H + 2 is complete
  store_output<(U + 2 + P.anchor_y) % H>(out, x, y0, outputs, n - H + 2, col.low[kDone],
                                         col.high[kDone], col.alpha);
  // Output n + 1 opens with element row 0 of row n + 1, in the slot just stored.
  col.low[kLast] = b_low[P.span_of_row[0]];
  col.high[kLast] = b_high[P.span_of_row[0]];
}

template <MorphOp Op, class L, int... Pair>
__device__ __forceinline__ void chunk_steps(std::integer_sequence<int, Pair...>,
                                            const std::uint32_t* rows, int n0, Column<L>& col,
                                            const DeviceImage& out, int x, int y0, int outputs) {
  (pair_step<Op, L, 2 * Pair>(rows, n0, col, out, x, y0, outputs), ...);
}

template <MorphOp Op, class Element>
__global__ void __launch_bounds__(kThreads) morph_spans_kernel(DeviceImage in, DeviceImage out) {
  using L = Layout<Element>;
  constexpr int H = L::kRows;
  __shared__ __align__(16) std::uint32_t tile[2][L::kChunk * L::kLine];
  const int x0 = static_cast<int>(blockIdx.x) * kThreads;
  const int x = x0 + static_cast<int>(threadIdx.x);
  const int y0 = static_cast<int>(blockIdx.y) * kStripRows;
  const int outputs = min(kStripRows, in.height - y0);
  const int first_row = y0 - L::kPlan.anchor_y;  // the image row of input row 0
  const int chunks = (outputs + H - 1 + L::kChunk - 1) / L::kChunk;
  stage<Op, L>(in, tile[0], x0 - L::kPad, first_row);
  commit_async();

  Column<L> col;
#pragma unroll
  for (int s = 0; s < H; ++s) col.low[s] = col.high[s] = Morph<Op>::kNeutral;
#pragma unroll
  for (int a = 0; a < L::kAlphaWords; ++a) col.alpha[a] = 0;

  for (int c = 0; c < chunks; ++c) {
    if (c + 1 < chunks) {
      stage<Op, L>(in, tile[(c + 1) & 1], x0 - L::kPad, first_row + (c + 1) * L::kChunk);
      commit_async();
      wait_async<1>();
    } else {
      wait_async<0>();
    }
    __syncthreads();
    const std::uint32_t* rows =
        tile[c & 1] + (L::kPad - L::kPlan.reach_left) + static_cast<int>(threadIdx.x);
    chunk_steps<Op, L>(std::make_integer_sequence<int, L::kChunk / 2>{}, rows, c * L::kChunk, col,
                       out, x, y0, outputs);
    __syncthreads();  // every thread is done with this buffer before the next stage refills it
  }
}

template <Kind K, int W, int H>
struct Element {
  static constexpr Shape kShape = make_shape(K, W, H);
  static_assert(fits(kShape));
};

/// The elements with a kernel of their own: the odd squares up to 15 x 15 of both shapes
/// (3 x 3 is the same element for both).
using Launch = void (*)(const DeviceImage&, const DeviceImage&, cudaStream_t);
struct Compiled {
  Shape shape;
  Launch erode;
  Launch dilate;
};

template <MorphOp Op, class Element>
void launch(const DeviceImage& in, const DeviceImage& out, cudaStream_t stream) {
  const dim3 grid(blocks_for(in.width, kThreads), blocks_for(in.height, kStripRows));
  morph_spans_kernel<Op, Element><<<grid, kThreads, 0, stream>>>(in, out);
  CUDA_CHECK_LAUNCH("morph_spans_kernel");
}

template <class Element>
constexpr Compiled compiled() {
  return {Element::kShape, &launch<MorphOp::erode, Element>, &launch<MorphOp::dilate, Element>};
}

const Compiled kCompiled[] = {
    compiled<Element<Kind::ellipse, 3, 3>>(),   compiled<Element<Kind::ellipse, 5, 5>>(),
    compiled<Element<Kind::ellipse, 7, 7>>(),   compiled<Element<Kind::ellipse, 9, 9>>(),
    compiled<Element<Kind::ellipse, 11, 11>>(), compiled<Element<Kind::ellipse, 13, 13>>(),
    compiled<Element<Kind::ellipse, 15, 15>>(), compiled<Element<Kind::cross, 5, 5>>(),
    compiled<Element<Kind::cross, 7, 7>>(),     compiled<Element<Kind::cross, 9, 9>>(),
    compiled<Element<Kind::cross, 11, 11>>(),   compiled<Element<Kind::cross, 13, 13>>(),
    compiled<Element<Kind::cross, 15, 15>>()};

bool same_shape(const Shape& a, const Shape& b) {
  if (a.rows != b.rows || a.anchor_y != b.anchor_y) return false;
  for (int j = 0; j < a.rows; ++j) {
    if (a.left[j] != b.left[j] || a.right[j] != b.right[j]) return false;
  }
  return true;
}

}  // namespace
}  // namespace spans

bool launch_morphology_spans(MorphOp op, const DeviceImage& in, const DeviceImage& out,
                             const MorphSpans& element, cudaStream_t stream) {
  if (in.channels != spans::kQuad || element.rows.empty() ||
      element.rows.size() > static_cast<std::size_t>(spans::kMaxRows)) {
    return false;
  }
  spans::Shape shape;
  shape.rows = static_cast<int>(element.rows.size());
  shape.anchor_y = -element.rows.front().y0;
  for (int j = 0; j < shape.rows; ++j) {
    shape.left[j] = element.rows[static_cast<std::size_t>(j)].x0;
    shape.right[j] = element.rows[static_cast<std::size_t>(j)].x1;
  }
  for (const spans::Compiled& c : spans::kCompiled) {
    if (spans::same_shape(c.shape, shape)) {
      (op == MorphOp::erode ? c.erode : c.dilate)(in, out, stream);
      return true;
    }
  }
  return false;
}
}  // namespace parfilter::cuda
