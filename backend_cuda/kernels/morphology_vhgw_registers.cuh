// One rectangle of a structuring element by van Herk/Gil-Werman with both scans in registers
// (rectangles up to 32 x 32; included by morphology_tile.cu, which falls back to its shared-
// memory strip kernel for larger ones).
//
// A block owns a strip of `segments` x w output columns (at most 128) and streams down
// kStripRows output rows in chunks of whole vertical segments (m x h rows, at most 32):
//   load       - (morphology_vhgw_loads.cuh) the chunk's input rows (strip plus horizontal
//                apron, from the quad holding the first column) into shared memory; RGBA by
//                16-byte cp.async, a thread per quad of a row. The next chunk's rows are in
//                flight during this chunk's vertical pass. What the results are merged with:
//                when combining, the previous rectangles' result (merge words, in flight
//                during the horizontal pass); for RGBA otherwise, each output pixel's own
//                alpha, copied from the tile into alpha rows before the horizontal pass;
//   horizontal - a work item per (row, segment): the prefix extrema of the next segment in
//                registers, then its own segment's suffix extrema combined with them on the
//                fly, each word read once per scan;
//   vertical   - a thread per column (RGBA: shifted so that a warp's stores fill whole
//                sectors) streams down with the van Herk recurrences: the current segment's
//                prefix in registers, the previous segment's suffix extrema in a ring of
//                registers (indexed by the position in the segment, a compile-time constant
//                once the segment loop is unrolled), turned into suffix extrema in place when
//                the segment completes.
// Pixels outside the image are the neutral value (FILTERS.md: morphology ignores them; there
// is no border mode). Extrema work on two halves of a pixel word in 16-bit lanes: the word
// shifted up a byte (bytes 0 and 2 high in their lanes), and the word as it is (bytes 1 and 3
// high; a lane's extremum carries the extremum of its high bytes), one VIMNMX per extremum and
// half; both joined back by one PRMT. RGBA squares of side kFixedSide (the common large
// element) get a kernel with w and h compile-time: straight-line scans with no masked steps.
#pragma once

#include <algorithm>
#include <cstdint>
#include <mutex>

#include "internal.hpp"
#include "morphology_common.cuh"
#include "morphology_vhgw_loads.cuh"

namespace parfilter::cuda::vhgw_registers {

constexpr int kStripRows = 256;  ///< output rows per block (h - 1 warm-up rows each)
constexpr int kMinBlocks = 4;    ///< 45 KB of shared memory and <= 128 registers at 31 x 31
constexpr int kSuffixBatch = 8;  ///< suffix-scan loads issued together
constexpr int kFixedSide = 31;   ///< RGBA squares of this side get a kernel of their own
/// Bytes 0-2 of the first word, byte 3 of the second (__byte_perm selector): the alpha.
constexpr unsigned int kAlphaFromSecond = 0x7210U;
/// Bytes 0-2 of the first word, byte 0 of the second: an alpha byte loaded on its own.
constexpr unsigned int kAlphaFromSecondLow = 0x4210U;

/// Suffix steps i = Top .. 0 of a segment (both halves, running in low / high), each combined
/// with prefix entry i - 1 and stored. In batches: a batch's loads are issued together, ahead
/// of its stores (a load cannot move above a store to shared memory it may alias). Loads and
/// extrema are unconditional; entries past w - 1 (the next segment's) become neutral.
template <MorphOp Op, bool Fixed, int Top, int N, bool Split>
__device__ __forceinline__ void suffix_steps(const std::uint32_t* segment, std::uint32_t* dst,
                                             int w, std::uint32_t& low, std::uint32_t& high,
                                             const PrefixEntries<N, Split>& prefix) {
  using M = SplitMorph<Op>;
  constexpr std::uint32_t kNeutral = Morph<Op>::kNeutral;
#pragma unroll
  for (int top = Top; top >= 0; top -= kSuffixBatch) {
    std::uint32_t raw[kSuffixBatch];
#pragma unroll
    for (int b = 0; b < kSuffixBatch; ++b) {
      if (top - b >= 0) raw[b] = segment[top - b];
    }
#pragma unroll
    for (int b = 0; b < kSuffixBatch; ++b) {
      const int i = top - b;
      if (i < 0) break;
      const bool inside = Fixed || i < w;
      const std::uint32_t v = inside ? raw[b] : kNeutral;
      low = M::combine1(low, low_half(v));
      high = M::combine1(high, v);
      if (inside) {
        dst[i] = i > 0 ? join_halves(M::combine1(low, prefix.low_at(i - 1)),
                                     M::combine1(high, prefix.high[i - 1]))
                       : join_halves(low, high);
      }
    }
  }
}

/// Prefix entries 0 .. N - 1 of a segment, continuing low / high (both halves).
template <MorphOp Op, int N, bool Split>
__device__ __forceinline__ void prefix_steps(const std::uint32_t* next, std::uint32_t& low,
                                             std::uint32_t& high, PrefixEntries<N, Split>& prefix) {
  using M = SplitMorph<Op>;
#pragma unroll
  for (int i = 0; i < N; ++i) {
    const std::uint32_t v = next[i];
    low = M::combine1(low, low_half(v));
    high = M::combine1(high, v);
    prefix.set(i, low, high);
  }
}

/// Horizontal pass of one chunk: output column k w + i of a row is the extremum of segment k's
/// suffix from i and segment k + 1's prefix up to i - 1. A work item per (row, segment), both
/// halves at once (each word read once per scan): the prefix of segment k + 1 into registers
/// (Cap - 1 steps, unpredicated; entries past w - 2 are never used), then segment k's suffix
/// downwards from w - 1, each step combined with its prefix entry and stored. Consecutive threads
/// take consecutive segments, then rows (`tile` points at the first input column). With Fixed, w is
/// Cap and no step is masked.
template <MorphOp Op, int Cap, bool Fixed>
__device__ __forceinline__ void horizontal(const std::uint32_t* tile, std::uint32_t* across,
                                           const Geometry& g, int runtime_w, int rows) {
  constexpr std::uint32_t kNeutral = Morph<Op>::kNeutral;
  const int w = Fixed ? Cap : runtime_w;
  const int segments = Fixed ? kThreads / Cap : g.segments;
  for (int t = static_cast<int>(threadIdx.x); t < rows * segments; t += kThreads) {
    const int k = t % segments;
    const int r = t / segments;
    const std::uint32_t* segment = tile + r * kTileStride + k * w;
    const std::uint32_t* next = segment + w;
    std::uint32_t* dst = across + r * kAcrossStride + k * w;
    std::uint32_t low = kNeutral;
    std::uint32_t high = kNeutral;
    constexpr int kPrefix = Cap > 1 ? Cap - 1 : 1;
    std::uint32_t run_low = kNeutral;
    std::uint32_t run_high = kNeutral;
    PrefixEntries<kPrefix, Fixed || Cap >= kLargestSide> prefix;
    prefix_steps<Op>(next, run_low, run_high, prefix);
    suffix_steps<Op, Fixed, Cap - 1>(segment, dst, w, low, high, prefix);
  }
}

/// Where the vertical pass finds what its results are merged with: a merge word per output row
/// (combining) or an alpha byte (RGBA otherwise), for this thread's column.
template <int C, bool Combine>
struct KeptColumn {
  const std::uint32_t* words = nullptr;  ///< row stride kKeepStride
  const std::uint8_t* alpha = nullptr;   ///< row stride kAlphaStride

  /// `value` (output row j of the segment) merged with what was kept for it.
  template <MorphOp Op>
  [[nodiscard]] __device__ std::uint32_t merge(std::uint32_t value, int j) const {
    if constexpr (Keeps<C, Combine>::kWords) {
      const std::uint32_t kept = words[j * kKeepStride];
      value = Morph<Op>::combine(value, kept);
      if constexpr (C == 4) value = __byte_perm(value, kept, kAlphaFromSecond);
    } else if constexpr (Keeps<C, Combine>::kAlpha) {
      value = __byte_perm(value, alpha[j * kAlphaStride], kAlphaFromSecondLow);
    }
    return value;
  }
};

/// Which segment of a column's stream the vertical pass is in.
enum class SegmentKind {
  hot,    ///< a full segment past the warm-up: every row finishes an output row
  first,  ///< the stream's first segment, full: only its last row finishes one
  other,  ///< partial (the stream's end), or the first of a short stream
};

/// Vertical pass over one segment of a chunk (rows s.. of it, n of them) for this thread's
/// column, with the van Herk recurrences: the segment's prefix in registers (both halves), the
/// previous segment's suffix extrema in the ring (pixel words: half the registers of split
/// ones, for a shift per use). With Fixed, h is Cap, and the hot and first segments are
/// straight-line code.
template <int C, MorphOp Op, int Cap, bool Combine, bool Fixed, SegmentKind Kind>
__device__ __forceinline__ void vertical_segment(std::uint32_t (&ring)[Cap + 1],
                                                 const std::uint32_t* column,
                                                 const KeptColumn<C, Combine>& kept,
                                                 const DeviceImage& in, const DeviceImage& out,
                                                 int x, int first_out_row, int q, int h, int n) {
  using M = SplitMorph<Op>;
  constexpr std::uint32_t kNeutral = Morph<Op>::kNeutral;
  std::uint32_t prefix_low = kNeutral;
  std::uint32_t prefix_high = kNeutral;
  constexpr bool kHot = Kind == SegmentKind::hot;
  constexpr bool kFull = Kind != SegmentKind::other;
  std::uint8_t* dst = kHot ? mutable_row(out, first_out_row) + C * x : nullptr;
#pragma unroll
  for (int j = 0; j < Cap; ++j) {
    if (kFull ? !Fixed && j >= h : j >= n) break;
    const std::uint32_t word = column[j * kAcrossStride];
    prefix_low = M::combine1(prefix_low, low_half(word));
    prefix_high = M::combine1(prefix_high, word);
    if (kHot || (Kind == SegmentKind::first ? j == h - 1 : q + j >= h - 1)) {
      // Output row q + j - h + 1: rows j + 1.. of the previous segment (the ring) and rows
      // ..j of this one (the prefix); at j = h - 1 the ring entry is neutral.
      const std::uint32_t suffix = ring[j + 1];
      const std::uint32_t value = kept.template merge<Op>(
          join_halves(M::combine1(low_half(suffix), prefix_low), M::combine1(suffix, prefix_high)),
          j);
      if constexpr (kHot) {
        store_pixel<C>(dst, 0, value);
        dst += out.pitch;
      } else {
        store_pixel<C>(mutable_row(out, first_out_row + j), x, value);
      }
    }
    ring[j] = word;
  }
  if (kFull || n == h) {  // segment complete: its suffix extrema, in place
    std::uint32_t low = kNeutral;
    std::uint32_t high = kNeutral;
#pragma unroll
    for (int k = Cap - 1; k >= 0; --k) {
      low = M::combine1(low, low_half(ring[k]));
      high = M::combine1(high, ring[k]);
      ring[k] = join_halves(low, high);
    }
  }
}

template <int C, MorphOp Op, int Cap, bool Combine, bool Fixed>
__global__ void __launch_bounds__(kThreads, kMinBlocks)
    vhgw_registers_kernel(DeviceImage in, DeviceImage out, MorphRect rect, Geometry g) {
  constexpr std::uint32_t kNeutral = Morph<Op>::kNeutral;
  extern __shared__ __align__(16) std::uint32_t words[];
  const int w = Fixed ? Cap : rect.x1 - rect.x0;
  const int h = Fixed ? Cap : rect.y1 - rect.y0;
  using K = Keeps<C, Combine>;
  // The quad-copied arrays first: their row strides keep every row 16-byte aligned.
  std::uint32_t* tile = words;                                             // [chunk][kTileStride]
  std::uint32_t* keep = tile + g.chunk * kTileStride;                      // [chunk][kKeepStride]
  std::uint32_t* across = keep + (K::kWords ? g.chunk * kKeepStride : 0);  // [chunk][kAcrossStride]
  // [2][kMaxChunkRows][kAlphaStride]: the alpha rows of chunks of even and odd index.
  auto* alpha = reinterpret_cast<std::uint8_t*>(across + g.chunk * kAcrossStride);
  constexpr int kAlphaRows = kMaxChunkRows * kAlphaStride;
  const int tid = static_cast<int>(threadIdx.x);
  const int x0 = static_cast<int>(blockIdx.x) * g.strip;
  const int y0 = static_cast<int>(blockIdx.y) * kStripRows;
  const int input_rows = min(kStripRows, in.height - y0) + h - 1;
  // Vertical pass: thread tid takes strip column tid - lead. For RGBA the lead puts each warp's
  // row of stores on whole 32-byte sectors where the strip starts mid-sector (124-column strips
  // start 16 bytes into one in every other block): 7% fewer L2 write sectors at 31 x 31.
  constexpr int kSectorBytes = 32;
  constexpr int kSectorPixels = kSectorBytes / C;
  const int lead = C == 4 ? min(x0 % kSectorPixels, kThreads - g.strip) : 0;
  const int col = tid - lead;
  const int x = x0 + col;  // this thread's output column in the vertical pass
  const bool owns_column = col >= 0 && col < g.strip && x < in.width;
  const Span tile_span = span_for(x0 + rect.x0);
  // RGBA merge words come by quads from the strip's quad; others a word per own column.
  const Span keep_span = C == 4 ? span_for(x0) : Span{x0, 0};
  const int alpha_delay = h - 1 + rect.y0;  // input row q finishes output row q + alpha_delay
  const int keep_end = min(in.width, x0 + g.strip);
  // ring[j]: the previous segment's suffix extremum from its row j; entries h.. stay neutral,
  // so ring[j + 1] needs no test at j = h - 1 and the suffix update none at its top.
  std::uint32_t ring[Cap + 1];
#pragma unroll
  for (int j = 0; j <= Cap; ++j) ring[j] = kNeutral;

  // Stream position q is input row y0 + rect.y0 + q; output row y0 + q - h + 1 is finished
  // at q. A chunk's tile copies run during the previous chunk's vertical pass, its merge
  // words' during its own horizontal pass.
  issue_tile<C, Op>(in, tile, tile_span, y0 + rect.y0, min(g.chunk, input_rows));
  commit_async();
  int parity = 0;  // of the chunk's index: which alpha rows are this chunk's
  for (int q0 = 0; q0 < input_rows; q0 += g.chunk, parity ^= 1) {
    const int rows = min(g.chunk, input_rows - q0);
    wait_async<0>();  // this chunk's tile
    __syncthreads();  // ... for every thread, and the previous vertical pass is done
    if constexpr (K::kWords) {
      issue_keep<C, Combine>(in, out, keep, keep_span, keep_end, y0 + q0 - h + 1,
                             max(0, h - 1 - q0), rows);
    }
    commit_async();
    if constexpr (K::kAlpha) {
      if (tid < g.strip) {
        const std::uint32_t* source = tile + tile_span.offset - rect.x0 + tid;
        std::uint8_t* own = alpha + parity * kAlphaRows;
        std::uint8_t* next = alpha + (1 - parity) * kAlphaRows;
        if constexpr (Fixed) {
          constexpr int kCentred = (Cap - 1) / 2;  // the delay of a centred square
          if (alpha_delay == kCentred) {
            keep_alpha<Cap>(source, own, next, kCentred, Cap - kCentred, Cap);
          } else {
            keep_alpha<Cap>(source, own, next, alpha_delay, Cap - alpha_delay, Cap);
          }
        } else {
          keep_alpha<kMaxChunkRows>(source, own, next, alpha_delay, g.chunk - alpha_delay, g.chunk);
        }
      }
    }
    horizontal<Op, Cap, Fixed>(tile + tile_span.offset, across, g, w, rows);
    wait_async<0>();  // this chunk's merge words (when combining)
    __syncthreads();  // ... for every thread; the tile is consumed, `across` complete
    const int next = q0 + g.chunk;
    if (next < input_rows) {
      issue_tile<C, Op>(in, tile, tile_span, y0 + rect.y0 + next, min(g.chunk, input_rows - next));
    }
    commit_async();
    // Vertical: the chunk starts on a segment boundary (it holds whole segments of h rows).
    if (owns_column) {
      for (int s = 0; s < rows; s += h) {
        const int n = min(h, rows - s);
        const int q = q0 + s;
        const std::uint32_t* column = across + s * kAcrossStride + col;
        const KeptColumn<C, Combine> kept{keep + s * kKeepStride + keep_span.offset + col,
                                          alpha + parity * kAlphaRows + s * kAlphaStride + col};
        const int first_out_row = y0 + q - h + 1;
        if (n == h && q > 0) {
          vertical_segment<C, Op, Cap, Combine, Fixed, SegmentKind::hot>(
              ring, column, kept, in, out, x, first_out_row, q, h, n);
        } else if (n == h) {  // q = 0: the stream's first segment
          vertical_segment<C, Op, Cap, Combine, Fixed, SegmentKind::first>(
              ring, column, kept, in, out, x, first_out_row, q, h, n);
        } else {
          vertical_segment<C, Op, Cap, Combine, Fixed, SegmentKind::other>(
              ring, column, kept, in, out, x, first_out_row, q, h, n);
        }
      }
    }
  }
}

template <int C, MorphOp Op, int Cap, bool Combine, bool Fixed>
void launch(const DeviceImage& in, const DeviceImage& out, const MorphRect& rect,
            cudaStream_t stream) {
  const Geometry g = geometry_for(rect.x1 - rect.x0, rect.y1 - rect.y0);
  static std::once_flag opted_in;  // more than 48 KB of shared memory needs an opt-in
  std::call_once(opted_in, [] {
    // The largest geometry any rectangle up to Cap gives: full chunks.
    CUDA_CHECK(cudaFuncSetAttribute(vhgw_registers_kernel<C, Op, Cap, Combine, Fixed>,
                                    cudaFuncAttributeMaxDynamicSharedMemorySize,
                                    static_cast<int>(shared_bytes<C, Combine>(kMaxChunkRows))));
  });
  const dim3 grid(blocks_for(in.width, g.strip), blocks_for(in.height, kStripRows));
  vhgw_registers_kernel<C, Op, Cap, Combine, Fixed>
      <<<grid, kThreads, shared_bytes<C, Combine>(g.chunk), stream>>>(in, out, rect, g);
  CUDA_CHECK_LAUNCH("vhgw_registers_kernel");
}

/// The rectangle by the register kernel; false when a side exceeds kLargestSide. RGBA squares
/// of side kFixedSide take a kernel compiled for that side.
inline bool try_launch(MorphOp op, const DeviceImage& in, const DeviceImage& out,
                       const MorphRect& rect, bool combine, cudaStream_t stream) {
  constexpr int kSmallCap = 8;
  constexpr int kMidCap = 16;
  const int w = rect.x1 - rect.x0;
  const int h = rect.y1 - rect.y0;
  const int side = std::max(w, h);
  if (side > kLargestSide) return false;
  // RGBA rows go by 16-byte copies: rows must start 16-byte aligned (device images' pitches
  // are kPitchAlignment multiples; anything else takes the strip kernel).
  constexpr std::size_t kQuadBytes = kQuad * sizeof(std::uint32_t);
  const auto quad_aligned = [](const DeviceImage& img) {
    return img.pitch % kQuadBytes == 0 &&
           reinterpret_cast<std::uintptr_t>(img.data) % kQuadBytes == 0;
  };
  if (in.channels == 4 && !(quad_aligned(in) && quad_aligned(out))) return false;
  with_channels(in.channels, [&](auto c) {
    constexpr int C = decltype(c)::value;
    const auto by_cap = [&](auto op_tag, auto combine_tag) {
      constexpr MorphOp O = decltype(op_tag)::value;
      constexpr bool B = decltype(combine_tag)::value;
      if constexpr (C == 4) {
        if (w == h && w == kFixedSide) {
          launch<C, O, kFixedSide, B, true>(in, out, rect, stream);
          return;
        }
      }
      if (side <= kSmallCap) {
        launch<C, O, kSmallCap, B, false>(in, out, rect, stream);
      } else if (side <= kMidCap) {
        launch<C, O, kMidCap, B, false>(in, out, rect, stream);
      } else {
        launch<C, O, kLargestSide, B, false>(in, out, rect, stream);
      }
    };
    const auto by_combine = [&](auto op_tag) {
      if (combine) {
        by_cap(op_tag, std::true_type{});
      } else {
        by_cap(op_tag, std::false_type{});
      }
    };
    if (op == MorphOp::erode) {
      by_combine(std::integral_constant<MorphOp, MorphOp::erode>{});
    } else {
      by_combine(std::integral_constant<MorphOp, MorphOp::dilate>{});
    }
  });
  return true;
}

}  // namespace parfilter::cuda::vhgw_registers
