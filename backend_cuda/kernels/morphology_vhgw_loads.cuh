// Loads of the van Herk/Gil-Werman register kernel (morphology_vhgw_registers.cuh): the
// launch geometry and shared-memory layout, and the copies that fill a chunk's shared arrays.
//
//   tile        - a chunk's input rows (strip plus horizontal apron), each row from the quad
//                 holding its first input column, neutral outside the image;
//   merge words - when combining, for each output row finished in the chunk, the previous
//                 rectangles' result for the strip (its results are merged with them);
//   alpha rows  - RGBA otherwise: the alpha byte of each output pixel's own input pixel,
//                 copied out of the tile before the horizontal pass (keep_alpha) instead of
//                 reading the input a second time.
// RGBA rows go by 16-byte cp.async, a thread per quad of a row at a compile-time count of quads
// per row (no registers held: every copy of a chunk in flight at once, the block waits with
// wait_async, async_copy.cuh); 1- and 3-byte pixels are loaded and stored a word per thread.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>

#include "async_copy.cuh"
#include "internal.hpp"
#include "morphology_common.cuh"

namespace parfilter::cuda::vhgw_registers {

constexpr int kThreads = 128;      ///< threads per block; the strip is at most this wide
constexpr int kMaxChunkRows = 32;  ///< input rows per chunk, at most (whole segments)
constexpr int kLoadsPerRow = 2;    ///< 1- and 3-byte pixels: tile words per row / kThreads
constexpr int kQuad = 4;           ///< pixels per 16-byte copy (RGBA)
constexpr int kLargestSide = 32;   ///< longest side that fits the register arrays
/// Words per row of horizontal results: 4 mod 32, so the 8 rows x 4 segments of a warp's work
/// items at w = 31 store to 32 different banks (an odd stride gave 4-way conflicts).
constexpr int kAcrossStride = kThreads + kQuad;
static_assert(kAcrossStride % 32 == kQuad);

/// Words per tile row: a row starts at the quad holding its first input column (up to 3 words
/// before it), then the widest line (128 + 31) and the scans' reads past it (up to column
/// strip + 30, values unused). 4 mod 32: rows stay 16-byte aligned, and the 8 rows x 4
/// segments of a warp's work items at w = 31 fall in 32 different banks.
constexpr int kTileStride = 164;
static_assert(kTileStride % 32 == kQuad && kTileStride >= kQuad + kThreads + kLargestSide);
static_assert(kTileStride <= kLoadsPerRow * kThreads);
/// Words per row of merge words: the strip from its quad (up to 3 words before it).
constexpr int kKeepStride = kThreads + kQuad;

/// The launch's shape, fixed by the rectangle's size.
struct Geometry {
  int segments = 0;  ///< horizontal segments (of w columns) per strip
  int strip = 0;     ///< output columns per block: segments x w
  int chunk = 0;     ///< input rows per chunk: a multiple of h
};

inline Geometry geometry_for(int w, int h) {
  Geometry g;
  g.segments = std::max(1, kThreads / w);
  g.strip = g.segments * w;
  g.chunk = std::max(1, kMaxChunkRows / h) * h;
  return g;
}

/// What a block keeps besides its tile and horizontal results: merge words copied from global
/// memory when combining with the previous rectangles' result; for RGBA otherwise, the alpha
/// bytes of the output rows' own input pixels, taken from the tile (no second read of the
/// input). The alpha rows of two chunks (the current one's and the next one's) by parity.
template <int C, bool Combine>
struct Keeps {
  static constexpr bool kWords = Combine;
  static constexpr bool kAlpha = C == 4 && !Combine;
};
constexpr int kAlphaStride = kThreads;  ///< bytes per alpha row

/// Tile, horizontal results, merge words or alpha rows of a chunk.
template <int C, bool Combine>
std::size_t shared_bytes(int chunk) {
  using K = Keeps<C, Combine>;
  const std::size_t words =
      static_cast<std::size_t>(kTileStride + kAcrossStride + (K::kWords ? kKeepStride : 0));
  const std::size_t alpha = K::kAlpha ? 2 * kMaxChunkRows * kAlphaStride : 0;
  return sizeof(std::uint32_t) * static_cast<std::size_t>(chunk) * words + alpha;
}

/// Where a block's copies of a row span start: the quad holding its first column.
struct Span {
  int first = 0;   ///< image column of the span's first word (a multiple of 4)
  int offset = 0;  ///< words before the wanted first column (0..3)
};
__device__ __forceinline__ Span span_for(int first_column) {
  const int offset = first_column & (kQuad - 1);
  return Span{first_column - offset, offset};
}

/// A thread's share of copying rows of `Quads` quads: quad tid % Quads of rows tid / Quads,
/// + kPasses, ... (a compile-time divisor; every row span is copied at its widest).
template <int Quads>
struct QuadLane {
  static constexpr int kPasses = kThreads / Quads;  ///< rows per sweep of the block
  int quad = static_cast<int>(threadIdx.x) % Quads;
  int row = static_cast<int>(threadIdx.x) / Quads;
  [[nodiscard]] __device__ bool active() const { return row < kPasses; }
};
/// Tile rows: up to 3 words before the first column, a line of at most 128 + 31 words.
constexpr int kTileQuads = kTileStride / kQuad;
/// Merge-word rows: up to 3 words before the strip's first column, at most 128 words.
constexpr int kKeepQuads = kKeepStride / kQuad + 1;
static_assert(kQuad * kKeepQuads >= kQuad - 1 + kThreads &&
              kQuad * kKeepQuads <= kKeepStride + kQuad);

/// Starts copying one chunk's input rows (strip plus apron, from the quad holding the first
/// column) into `tile`, neutral outside the image. RGBA: a thread per quad of a row, by 16-byte
/// cp.async (rows are 256-byte aligned; no registers held, every copy in flight at once), the
/// quad across the right edge word by word; 1- and 3-byte pixels are loaded and stored.
template <int C, MorphOp Op>
__device__ __forceinline__ void issue_tile(const DeviceImage& in, std::uint32_t* tile,
                                           const Span& sp, int y_first, int rows) {
  constexpr std::uint32_t kNeutral = Morph<Op>::kNeutral;
  if constexpr (C == 4) {
    using Lane = QuadLane<kTileQuads>;
    const Lane lane;
    if (!lane.active()) return;
    const int x = sp.first + kQuad * lane.quad;
    const bool whole = x >= 0 && x + kQuad <= in.width;
    const bool partial = !whole && x >= 0 && x < in.width;
    const uint4 neutral = make_uint4(kNeutral, kNeutral, kNeutral, kNeutral);
    // This thread's rows lane.row + k kPasses: those above the image, those in it (its quad
    // copied when whole), those below; no test per row in the middle run.
    const int inside_first = min(rows, max(0, -y_first));
    const int inside_end = max(inside_first, min(rows, in.height - y_first));
    int r = lane.row;
    std::uint32_t* dst = tile + r * kTileStride + kQuad * lane.quad;
    constexpr int kDstStep = Lane::kPasses * kTileStride;
    for (; r < inside_first; r += Lane::kPasses, dst += kDstStep) {
      *reinterpret_cast<uint4*>(dst) = neutral;
    }
    const std::uint8_t* src =
        in.data + static_cast<std::ptrdiff_t>(y_first + r) * static_cast<std::ptrdiff_t>(in.pitch) +
        static_cast<std::ptrdiff_t>(sizeof(std::uint32_t)) * x;
    const std::size_t src_step = Lane::kPasses * in.pitch;
    if (whole) {
#pragma unroll 4
      for (; r < inside_end; r += Lane::kPasses, src += src_step, dst += kDstStep) {
        copy_async16(shared_address(dst), src);
      }
    } else {
      for (; r < inside_end; r += Lane::kPasses, src += src_step, dst += kDstStep) {
        const auto* words = reinterpret_cast<const std::uint32_t*>(src);
        for (int i = 0; i < kQuad; ++i) {
          if (partial && x + i < in.width) {
            copy_async4(shared_address(dst + i), words + i);
          } else {
            dst[i] = kNeutral;
          }
        }
      }
    }
    for (; r < rows; r += Lane::kPasses, dst += kDstStep) {
      *reinterpret_cast<uint4*>(dst) = neutral;
    }
  } else {
    const int tid = static_cast<int>(threadIdx.x);
    for (int r = 0; r < rows; ++r) {
      const int y = y_first + r;
      const bool row_inside = y >= 0 && y < in.height;
#pragma unroll
      for (int k = 0; k < kLoadsPerRow; ++k) {
        const int c = tid + k * kThreads;
        const int x = sp.first + c;
        if (c >= kTileStride) continue;
        tile[r * kTileStride + c] =
            row_inside && x >= 0 && x < in.width ? load_pixel<C>(row_of(in, y), x) : kNeutral;
      }
    }
  }
}

/// Starts copying, for each output row finished in a chunk, the strip's words its results are
/// merged with: the previous rectangles' result when combining (it already carries the input's
/// alpha: the first rectangle copied it), else the input pixel (for its alpha). RGBA by 16-byte
/// cp.async from the quad holding the strip's first column (quads from the image's right edge
/// or the strip's end on are not needed; the one across the edge reads its row's padding).
template <int C, bool Combine>
__device__ __forceinline__ void issue_keep(const DeviceImage& in, const DeviceImage& out,
                                           std::uint32_t* keep, const Span& sp, int end, int y_out,
                                           int first, int rows) {
  if constexpr (Combine || C == 4) {
    const std::uint8_t* base = Combine ? out.data : in.data;
    const std::size_t pitch = Combine ? out.pitch : in.pitch;
    if constexpr (C == 4) {
      using Lane = QuadLane<kKeepQuads>;
      const Lane lane;
      const int x = sp.first + kQuad * lane.quad;
      if (!lane.active() || x >= end) return;
      int r = first + lane.row;
      const std::uint8_t* src = base + static_cast<std::size_t>(y_out + r) * pitch +
                                sizeof(std::uint32_t) * static_cast<std::size_t>(x);
      std::uint32_t* dst = keep + r * kKeepStride + kQuad * lane.quad;
#pragma unroll 2
      for (; r < rows; r += Lane::kPasses) {
        copy_async16(shared_address(dst), src);
        src += Lane::kPasses * pitch;
        dst += Lane::kPasses * kKeepStride;
      }
    } else {
      const int tid = static_cast<int>(threadIdx.x);
      const int x = sp.first + tid;  // this thread's column
      if (x >= end) return;
      for (int r = first; r < rows; ++r) {
        keep[r * kKeepStride + tid] =
            load_pixel<C>(base + static_cast<std::size_t>(y_out + r) * pitch, x);
      }
    }
  }
}

/// RGBA without combining: copies the alpha of a chunk's input rows (`source` at the tile word
/// of this thread's column) to the output rows they belong to. Input row r of the chunk
/// finishes output row r + d (d = h - 1 + rect.y0): row r + d of this chunk's alpha rows
/// (`own`) while r < split = chunk - d, row r - split of the next chunk's (`next`) after. All
/// `Rows` rows (the chunk's capacity; rows past the last chunk's end carry stale words, whose
/// alpha goes to rows no output reads) in batches whose loads are issued before their stores
/// (a load cannot move above a store to shared memory it may alias). The vertical pass reads
/// the rows after the chunk's mid barrier (by a thread shifted for sector-aligned stores), and
/// the next chunk's copy overwrites them after its top barrier: no barrier of its own. A
/// compile-time split (the centred square) leaves a load and a store per row.
template <int Rows>
__device__ __forceinline__ void keep_alpha(const std::uint32_t* source, std::uint8_t* own,
                                           std::uint8_t* next, int d, int split, int chunk) {
  constexpr int kAlphaByte = 3;
  constexpr int kBatch = 8;
  constexpr int kSourceStride = kTileStride * static_cast<int>(sizeof(std::uint32_t));
  const std::uint8_t* src = reinterpret_cast<const std::uint8_t*>(source) + kAlphaByte;
  const int tid = static_cast<int>(threadIdx.x);
  std::uint8_t* own_row0 = own + d * kAlphaStride + tid;
  std::uint8_t* next_row0 = next - split * kAlphaStride + tid;
#pragma unroll
  for (int r0 = 0; r0 < Rows; r0 += kBatch) {
    unsigned int v[kBatch];
#pragma unroll
    for (int b = 0; b < kBatch; ++b) {
      if (r0 + b < Rows && r0 + b < chunk) v[b] = src[(r0 + b) * kSourceStride];
    }
#pragma unroll
    for (int b = 0; b < kBatch; ++b) {
      const int r = r0 + b;
      if (r < Rows && r < chunk) {
        (r < split ? own_row0 : next_row0)[r * kAlphaStride] = static_cast<std::uint8_t>(v[b]);
      }
    }
  }
}

}  // namespace parfilter::cuda::vhgw_registers
