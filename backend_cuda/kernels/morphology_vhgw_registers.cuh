// One rectangle of a structuring element by van Herk/Gil-Werman with both scans in registers
// (rectangles up to 32 x 32; included by morphology_tile.cu, which falls back to its shared-
// memory strip kernel for larger ones).
//
// A block owns a strip of `segments` x w output columns (at most 128) and streams down
// kStripRows output rows in chunks of whole vertical segments (m x h rows, at most 32):
//   load       - the chunk's input rows (strip plus horizontal apron) into shared memory, packed,
//                and for each output row of the chunk the word its result is merged with
//                (alpha; the previous rectangles' result when combining); RGBA by cp.async,
//                the next chunk's copies in flight during this chunk's vertical pass;
//   horizontal - a work item per (row, segment): the suffix extrema of its own segment in
//                registers, then the prefix extrema of the next segment, combined on the fly:
//                thousands of independent k-step chains per launch instead of a few dozen, and
//                one shared-memory read per pixel per scan;
//   vertical   - a thread per column streams down with the van Herk recurrences: the current
//                segment's prefix in a register, the previous segment's suffix extrema in a
//                ring of registers (indexed by the position in the segment, a compile-time
//                constant once the segment loop is unrolled), turned into suffix extrema in
//                place when the segment completes.
// Pixels outside the image are the neutral value (FILTERS.md: morphology ignores them; there
// is no border mode). Each scan works on one 16-bit-lane half of the pixels at a time (bytes
// 0 and 2, then 1 and 3: one VIMNMX per extremum and half), which halves its registers.
#pragma once

#include <algorithm>
#include <mutex>

#include "internal.hpp"
#include "morphology_common.cuh"

namespace parfilter::cuda::vhgw_registers {

constexpr int kThreads = 128;      ///< threads per block; the strip is at most this wide
constexpr int kStripRows = 256;    ///< output rows per block (h - 1 warm-up rows each)
constexpr int kMaxChunkRows = 32;  ///< input rows per chunk, at most (whole segments)
constexpr int kLoadsPerRow = 2;    ///< strip + apron <= 128 + 31 < 2 x kThreads
constexpr int kMinBlocks = 3;      ///< 66 KB of shared memory per block at 31 x 31
constexpr int kLargestSide = 32;   ///< longest side that fits the register arrays
constexpr int kHalves = 2;         ///< 16-bit-lane halves of a pixel
constexpr int kKeepBuffers = 2;    ///< the chunk's merge words and the next chunk's

/// The launch's shape, fixed by the rectangle's size.
struct Geometry {
  int segments = 0;       ///< horizontal segments (of w columns) per strip
  int strip = 0;          ///< output columns per block: segments x w
  int line = 0;           ///< input columns per row: strip + w - 1
  int tile_stride = 0;    ///< words per tile row: line rounded up to odd (no bank conflicts)
  int chunk = 0;          ///< input rows per chunk: a multiple of h
  int across_stride = 0;  ///< words per row of horizontal results (2 halves x 16 bits): odd
};

inline Geometry geometry_for(int w, int h) {
  Geometry g;
  g.segments = std::max(1, kThreads / w);
  g.strip = g.segments * w;
  g.line = g.strip + w - 1;
  g.tile_stride = g.line | 1;
  g.chunk = std::max(1, kMaxChunkRows / h) * h;
  g.across_stride = g.strip | 1;
  return g;
}

inline std::size_t shared_bytes(const Geometry& g) {
  const auto chunk = static_cast<std::size_t>(g.chunk);
  return sizeof(std::uint32_t) * chunk *
         (g.tile_stride + g.across_stride + kKeepBuffers * kThreads);
}

/// cp.async of one 32-bit word from global into shared memory (sm_80+): the copy holds no
/// register, so every copy of a chunk can be in flight at once. Older GPUs load and store.
__device__ __forceinline__ void copy_word_async(std::uint32_t* dst, const std::uint32_t* src) {
#if __CUDA_ARCH__ >= 800
  const auto shared_address = static_cast<unsigned int>(__cvta_generic_to_shared(dst));
  asm volatile("cp.async.ca.shared.global [%0], [%1], 4;\n" ::"r"(shared_address), "l"(src)
               : "memory");
#else
  *dst = __ldg(src);
#endif
}
__device__ __forceinline__ void commit_copies() {
#if __CUDA_ARCH__ >= 800
  asm volatile("cp.async.commit_group;\n" ::);
#endif
}
__device__ __forceinline__ void wait_copies() {
#if __CUDA_ARCH__ >= 800
  asm volatile("cp.async.wait_group 0;\n" ::: "memory");
#endif
}

/// Starts copying one chunk's input rows (strip plus apron) into `tile`, packed, neutral outside
/// the image. RGBA pixels go by cp.async (no registers held, every copy in flight at once);
/// 1- and 3-byte pixels are loaded and stored.
template <int C, MorphOp Op>
__device__ __forceinline__ void issue_tile(const DeviceImage& in, std::uint32_t* tile,
                                           const Geometry& g, int x_first, int y_first, int rows) {
  const int tid = static_cast<int>(threadIdx.x);
  for (int r = 0; r < rows; ++r) {
    const int y = y_first + r;
    const bool row_inside = y >= 0 && y < in.height;
#pragma unroll
    for (int k = 0; k < kLoadsPerRow; ++k) {
      const int c = tid + k * kThreads;
      const int xx = x_first + c;
      if (c >= g.line) continue;
      std::uint32_t* dst = tile + r * g.tile_stride + c;
      if (!row_inside || xx < 0 || xx >= in.width) {
        *dst = Morph<Op>::kNeutral;
      } else if constexpr (C == 4) {
        copy_word_async(dst, reinterpret_cast<const std::uint32_t*>(row_of(in, y)) + xx);
      } else {
        *dst = load_pixel<C>(row_of(in, y), xx);
      }
    }
  }
}

/// Starts copying, for each output row finished in a chunk, the word its result is merged
/// with: the previous rectangles' result when combining (it already carries the input's alpha:
/// the first rectangle copied it), else the input pixel (for its alpha).
template <int C>
__device__ __forceinline__ void issue_keep(const DeviceImage& in, const DeviceImage& out,
                                           bool combine, std::uint32_t* keep, int x, int y_out,
                                           int q0, int h, int rows) {
  if (!combine && C != 4) return;
  const int tid = static_cast<int>(threadIdx.x);
  // The fields, not a reference to either parameter (that would copy both to local memory).
  const std::uint8_t* base = combine ? out.data : in.data;
  const std::size_t pitch = combine ? out.pitch : in.pitch;
  for (int r = max(0, h - 1 - q0); r < rows; ++r) {
    const std::uint8_t* row = base + static_cast<std::size_t>(y_out + r) * pitch;
    if constexpr (C == 4) {
      copy_word_async(keep + r * kThreads + tid, reinterpret_cast<const std::uint32_t*>(row) + x);
    } else {
      keep[r * kThreads + tid] = load_pixel<C>(row, x);
    }
  }
}

/// One 16-bit-lane half (two bytes in the low bytes of its lanes) as 16 bits.
__device__ __forceinline__ std::uint16_t pack_half(std::uint32_t lanes) {
  return static_cast<std::uint16_t>(__byte_perm(lanes, 0U, 0x0020));
}

template <int C, MorphOp Op, int Cap>
__global__ void __launch_bounds__(kThreads, kMinBlocks)
    vhgw_registers_kernel(DeviceImage in, DeviceImage out, MorphRect rect, bool combine,
                          Geometry g) {
  using M = SplitMorph<Op>;
  extern __shared__ std::uint32_t words[];
  const int w = rect.x1 - rect.x0;
  const int h = rect.y1 - rect.y0;
  std::uint32_t* tile = words;                                       // [chunk][tile_stride], packed
  std::uint32_t* across = tile + g.chunk * g.tile_stride;            // [chunk][across_stride]
  std::uint32_t* keep_buffers = across + g.chunk * g.across_stride;  // [2][chunk][kThreads]
  const int tid = static_cast<int>(threadIdx.x);
  const int x0 = static_cast<int>(blockIdx.x) * g.strip;
  const int y0 = static_cast<int>(blockIdx.y) * kStripRows;
  const int input_rows = min(kStripRows, in.height - y0) + h - 1;
  const int x = x0 + tid;  // this thread's output column in the vertical pass
  const bool owns_column = tid < g.strip && x < in.width;
  const uint2 neutral = make_uint2(M::kNeutral, M::kNeutral);
  uint2 ring[Cap];  // ring[j]: the previous segment's suffix extremum from its row j
#pragma unroll
  for (int j = 0; j < Cap; ++j) ring[j] = neutral;

  // Stream position q is input row y0 + rect.y0 + q; output row y0 + q - h + 1 is finished
  // at q. The next chunk's copies start as soon as this chunk's tile is consumed, so they run
  // during the vertical pass; `keep` alternates between two buffers for that reason.
  issue_tile<C, Op>(in, tile, g, x0 + rect.x0, y0 + rect.y0, min(g.chunk, input_rows));
  if (owns_column) {
    issue_keep<C>(in, out, combine, keep_buffers, x, y0 - h + 1, 0, h, min(g.chunk, input_rows));
  }
  commit_copies();
  for (int q0 = 0, parity = 0; q0 < input_rows; q0 += g.chunk, parity ^= 1) {
    const int rows = min(g.chunk, input_rows - q0);
    const std::uint32_t* keep = keep_buffers + parity * g.chunk * kThreads;
    wait_copies();
    __syncthreads();
    // Horizontal: output column k w + i of a row is the extremum of its segment's suffix from
    // i and the next segment's prefix up to i - 1. Consecutive threads take consecutive rows
    // of one segment (odd row strides: no bank conflicts).
    for (int t = tid; t < rows * g.segments; t += kThreads) {
      const int r = t % rows;
      const int k = t / rows;
      const std::uint32_t* src = tile + r * g.tile_stride + k * w;
      // Half `half` of output pixel c is the 16 bits at byte 2 half of across[r][c].
      auto* dst = reinterpret_cast<std::uint16_t*>(across + r * g.across_stride + k * w);
#pragma unroll
      for (int half = 0; half < kHalves; ++half) {
        const auto lanes = [half](std::uint32_t v) {
          return half == 0 ? even_lanes(v) : odd_lanes(v);
        };
        std::uint32_t suffix[Cap];
        std::uint32_t acc = M::kNeutral;
#pragma unroll
        for (int i = Cap - 1; i >= 0; --i) {
          if (i < w) acc = M::combine1(acc, lanes(src[i]));
          suffix[i] = acc;
        }
        dst[half] = pack_half(suffix[0]);
        acc = M::kNeutral;
#pragma unroll
        for (int i = 1; i < Cap; ++i) {
          if (i < w) {
            acc = M::combine1(acc, lanes(src[w + i - 1]));
            dst[kHalves * i + half] = pack_half(M::combine1(suffix[i], acc));
          }
        }
      }
    }
    __syncthreads();
    // The tile is consumed: start the next chunk's copies.
    const int next = q0 + g.chunk;
    if (next < input_rows) {
      const int next_rows = min(g.chunk, input_rows - next);
      issue_tile<C, Op>(in, tile, g, x0 + rect.x0, y0 + rect.y0 + next, next_rows);
      if (owns_column) {
        issue_keep<C>(in, out, combine, keep_buffers + (parity ^ 1) * g.chunk * kThreads, x,
                      y0 + next - h + 1, next, h, next_rows);
      }
    }
    commit_copies();
    // Vertical: the chunk starts on a segment boundary (it holds whole segments of h rows).
    if (owns_column) {
      for (int s = 0; s < rows; s += h) {
        const int n = min(h, rows - s);
        uint2 prefix = neutral;
#pragma unroll
        for (int j = 0; j < Cap; ++j) {
          if (j >= n) break;
          const int r = s + j;
          const std::uint32_t packed = across[r * g.across_stride + tid];
          const uint2 v =
              make_uint2(__byte_perm(packed, 0U, 0x4140), __byte_perm(packed, 0U, 0x4342));
          prefix = M::combine(prefix, v);
          if (q0 + r >= h - 1) {
            // Output row q - h + 1: rows j + 1.. of the previous segment (the ring) and rows
            // ..j of this one (the prefix); at j = h - 1 the prefix alone.
            const uint2 result =
                j + 1 < h ? M::combine(ring[j + 1 < Cap ? j + 1 : j], prefix) : prefix;
            std::uint32_t value = merge_lanes(result.x, result.y);
            const std::uint32_t kept = keep[r * kThreads + tid];
            if (combine) value = Morph<Op>::combine(value, kept);
            if constexpr (C == 4) value = with_alpha(value, kept);
            store_pixel<C>(mutable_row(out, y0 + q0 + r - h + 1), x, value);
          }
          ring[j] = v;
        }
        if (n == h) {  // segment complete: its suffix extrema, in place
#pragma unroll
          for (int k = Cap - 2; k >= 0; --k) {
            if (k < h - 1) ring[k] = M::combine(ring[k], ring[k + 1]);
          }
        }
      }
    }
  }
}

template <int C, MorphOp Op, int Cap>
void launch(const DeviceImage& in, const DeviceImage& out, const MorphRect& rect, bool combine,
            const Geometry& g, std::size_t bytes, cudaStream_t stream) {
  static std::once_flag opted_in;  // more than 48 KB of shared memory needs an opt-in
  std::call_once(opted_in, [] {
    // The largest geometry any rectangle up to kLargestSide gives: full chunks, the widest line.
    const std::size_t most = sizeof(std::uint32_t) * kMaxChunkRows *
                             ((kThreads + kLargestSide) + (kThreads + 1) + kKeepBuffers * kThreads);
    CUDA_CHECK(cudaFuncSetAttribute(vhgw_registers_kernel<C, Op, Cap>,
                                    cudaFuncAttributeMaxDynamicSharedMemorySize,
                                    static_cast<int>(most)));
  });
  const dim3 grid(blocks_for(in.width, g.strip), blocks_for(in.height, kStripRows));
  vhgw_registers_kernel<C, Op, Cap><<<grid, kThreads, bytes, stream>>>(in, out, rect, combine, g);
  CUDA_CHECK_LAUNCH("vhgw_registers_kernel");
}

/// The rectangle by the register kernel; false when a side exceeds kLargestSide.
inline bool try_launch(MorphOp op, const DeviceImage& in, const DeviceImage& out,
                       const MorphRect& rect, bool combine, cudaStream_t stream) {
  constexpr int kSmallCap = 8;
  constexpr int kMidCap = 16;
  const int w = rect.x1 - rect.x0;
  const int h = rect.y1 - rect.y0;
  const int side = std::max(w, h);
  if (side > kLargestSide) return false;
  const Geometry g = geometry_for(w, h);
  const std::size_t bytes = shared_bytes(g);
  with_channels(in.channels, [&](auto c) {
    constexpr int C = decltype(c)::value;
    const auto by_cap = [&](auto op_tag) {
      constexpr MorphOp O = decltype(op_tag)::value;
      if (side <= kSmallCap) {
        launch<C, O, kSmallCap>(in, out, rect, combine, g, bytes, stream);
      } else if (side <= kMidCap) {
        launch<C, O, kMidCap>(in, out, rect, combine, g, bytes, stream);
      } else {
        launch<C, O, kLargestSide>(in, out, rect, combine, g, bytes, stream);
      }
    };
    if (op == MorphOp::erode) {
      by_cap(std::integral_constant<MorphOp, MorphOp::erode>{});
    } else {
      by_cap(std::integral_constant<MorphOp, MorphOp::dilate>{});
    }
  });
  return true;
}

}  // namespace parfilter::cuda::vhgw_registers
