// The quad stencil shared by sharpen's vector kernel and the small-rectangle morphology kernel:
// a thread per quad (four pixels, one 16-byte load for RGBA) slides down a strip of rows. Each
// input row is read once, as a byte stream (the quad and a few words on each side); a stencil
// reduces it to what it keeps per row (sharpen: the stream itself; morphology: the horizontal
// extrema) in a ring of the last rows, and makes each output quad from that ring. The next
// row's loads are issued before the current row is worked on, so their latency overlaps it.
// Quads whose side words leave the row are an edge kernel's (see EdgeColumns).
#pragma once

#include "device_common.cuh"

namespace parfilter::cuda {

/// A row as one thread reads it: kSide words before quad qx, its C words, kSide words after,
/// one little-endian byte stream (pixel bytes at offset 4 kSide + i for the quad's byte i).
template <int C, int Side>
struct QuadStream {
  static constexpr int kWords = C + 2 * Side;
  std::uint32_t w[kWords];
};

/// The side words and the quad lie inside a row of `width` pixels (quad 0 never does: the
/// edge kernels take it, so interior quads are one run from quad 1).
template <int C, int Side>
__host__ __device__ bool stream_interior(int qx, int width) {
  return qx >= 1 && C * qx >= Side && (C * qx + C + Side) * kQuadPixels <= width * C;
}

/// A row whose quad load is issued; its side words follow in finish_stream. They overlap the
/// neighbouring threads' quads, so loaded once those have arrived they hit in L1; issued with
/// the quad, they would go on to L2 as well.
template <int C, int Side>
struct PendingRow {
  QuadStream<C, Side> s;
  const std::uint32_t* words;  ///< the quad's first word; null for a constant row
};

/// Issues row y's quad at qx through the vertical border (a constant row is V everywhere);
/// with Defer false its side words too.
template <int C, int Side, bool Defer>
__device__ __forceinline__ PendingRow<C, Side> load_pending(const DeviceImage& in, int qx, int y,
                                                            BorderMode border) {
  PendingRow<C, Side> r;
  const int by = border_index_dev(y, in.height, border.kind);
  if (by < 0) {
#pragma unroll
    for (int i = 0; i < r.s.kWords; ++i) r.s.w[i] = splat_byte(border.value);
    r.words = nullptr;
    return r;
  }
  r.words = reinterpret_cast<const std::uint32_t*>(row_of(in, by)) + C * qx;
  const Quad<C> q = load_quad<C>(row_of(in, by), qx);
#pragma unroll
  for (int i = 0; i < C; ++i) r.s.w[Side + i] = q.w[i];
  if (!Defer) {
#pragma unroll
    for (int i = 0; i < Side; ++i) {
      r.s.w[i] = __ldg(r.words - Side + i);
      r.s.w[Side + C + i] = __ldg(r.words + C + i);
    }
  }
  return r;
}

/// The row's whole stream: its side words loaded now (Defer) or already there.
template <int C, int Side, bool Defer>
__device__ __forceinline__ QuadStream<C, Side> finish_stream(const PendingRow<C, Side>& r) {
  QuadStream<C, Side> s = r.s;
  if (Defer && r.words != nullptr) {
#pragma unroll
    for (int i = 0; i < Side; ++i) {
      s.w[i] = __ldg(r.words - Side + i);
      s.w[Side + C + i] = __ldg(r.words + C + i);
    }
  }
  return s;
}

/// One thread's strip: output rows [y0, y0 + rows) of quad qx. S provides
///   kSide, kSpan      - side words per row; rows in the ring;
///   Row row(stream)   - what the ring keeps of an input row;
///   top, border       - output row y reads input rows y + top .. y + top + kSpan - 1, rows
///                       outside the image through `border`;
///   Quad<C> output(ring, qx, y) - output quad qx of row y, the ring oldest row first;
/// Defer: a row's side words are loaded when it enters the ring rather than with its quad.
template <int C, typename S, bool Defer>
__device__ __forceinline__ void quad_stencil_strip(const DeviceImage& in, const DeviceImage& out,
                                                   const S& s, int rows) {
  constexpr int kSide = S::kSide;
  using Row = typename S::Row;
  constexpr int kSpan = S::kSpan;
  const int qx = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
  if (!stream_interior<C, S::kSide>(qx, in.width)) return;  // the edge kernel's
  const int y0 = static_cast<int>(blockIdx.y) * rows;
  const int y1 = min(y0 + rows, in.height);
  const int first = y0 + s.top;  // the first input row
  Row ring[kSpan];
  // Slot 0 is shifted out before the first output; slots 1 .. kSpan - 1 take the first rows.
#pragma unroll
  for (int k = 0; k + 1 < kSpan; ++k)
    ring[k + 1] = s.row(
        finish_stream<C, kSide, Defer>(load_pending<C, kSide, Defer>(in, qx, first + k, s.border)));
  PendingRow<C, kSide> next = load_pending<C, kSide, Defer>(in, qx, first + kSpan - 1, s.border);
  for (int y = y0; y < y1; ++y) {
    const PendingRow<C, kSide> current = next;
    if (y + 1 < y1)
      next = load_pending<C, kSide, Defer>(in, qx, y + 1 + s.top + kSpan - 1, s.border);
#pragma unroll
    for (int k = 0; k + 1 < kSpan; ++k) ring[k] = ring[k + 1];
    ring[kSpan - 1] = s.row(finish_stream<C, kSide, Defer>(current));
    store_quad<C>(mutable_row(out, y), qx, s.output(ring, qx, y));
  }
}

}  // namespace parfilter::cuda
