// One rectangle of a structuring element by van Herk/Gil-Werman, both passes in one kernel.
//
// A block owns a strip of kStripWidth output columns and kStripRows output rows and streams
// down its input rows in chunks: the chunk's rows (strip plus horizontal apron) are loaded
// into shared memory, each row's horizontal pass runs as vHGW over segments of the window's
// width (suffix scans, then prefix scans that combine on the fly), and each thread then feeds
// its column's horizontal results to a streaming vertical vHGW: a ring of h values per column
// holds the previous segment's suffix extrema, overwritten in place by the current segment's
// values just after each is used. Every input row is read once per strip (plus the apron), and
// each pass costs a few extrema per pixel whatever the rectangle's size.
//
// Pixels are kept split in two registers of 16-bit lanes (bytes 0 and 2, bytes 1 and 3), so an
// extremum of two pixels is two VIMNMX instructions.
//
// Rectangles up to 32 x 32 take the register kernel of morphology_vhgw_registers.cuh instead
// (about 5x faster at 31 x 31 RGBA); this strip kernel remains for the larger ones.
#include <algorithm>
#include <mutex>

#include "internal.hpp"
#include "morphology_common.cuh"
#include "morphology_vhgw_registers.cuh"

namespace parfilter::cuda {
namespace {

constexpr int kStripWidth = 128;  ///< output columns per block = threads per block
constexpr int kStripRows = 256;   ///< output rows per block
constexpr int kChunkRows = 8;     ///< input rows filtered together (8: 3 blocks per SM; 16: 2)
constexpr std::size_t kMaxSharedBytes = 160 * 1024;
constexpr int kLoadsPerRow = 2;  ///< input pixels per thread and row: rectangles up to 129 wide

template <int C, MorphOp Op>
__global__ void __launch_bounds__(kStripWidth)
    morph_strip_kernel(DeviceImage in, DeviceImage out, MorphRect rect, bool combine) {
  using M = SplitMorph<Op>;
  extern __shared__ uint2 shared[];
  const int w = rect.x1 - rect.x0;
  const int h = rect.y1 - rect.y0;
  const int line = kStripWidth + w - 1;             // input pixels per row
  uint2* rows_in = shared;                          // [kChunkRows][line]
  uint2* suffix = rows_in + kChunkRows * line;      // [kChunkRows][line]
  uint2* across = suffix + kChunkRows * line;       // [kChunkRows][kStripWidth]: row results
  uint2* ring = across + kChunkRows * kStripWidth;  // [h][kStripWidth]: vertical state
  const int tid = static_cast<int>(threadIdx.x);
  const int x0 = static_cast<int>(blockIdx.x) * kStripWidth;
  const int y0 = static_cast<int>(blockIdx.y) * kStripRows;
  const int input_rows = min(kStripRows, in.height - y0) + h - 1;
  const int segments = (line + w - 1) / w;
  const uint2 neutral = make_uint2(M::kNeutral, M::kNeutral);
  const int x = x0 + tid;  // this thread's output column
  uint2 prefix = neutral;  // vertical prefix extremum of the current segment

  for (int q0 = 0; q0 < input_rows; q0 += kChunkRows) {
    const int chunk = min(kChunkRows, input_rows - q0);
    // Load the chunk's rows, neutral outside the image: every load is issued before the first
    // store (a load followed by its store in a loop would wait for each load in turn).
    std::uint32_t loaded[kChunkRows][kLoadsPerRow];
#pragma unroll
    for (int i = 0; i < kChunkRows; ++i) {
      const int y = y0 + rect.y0 + q0 + i;
      const bool row_inside = i < chunk && y >= 0 && y < in.height;
#pragma unroll
      for (int k = 0; k < kLoadsPerRow; ++k) {
        const int xx = x0 + rect.x0 + tid + k * kStripWidth;
        loaded[i][k] = row_inside && tid + k * kStripWidth < line && xx >= 0 && xx < in.width
                           ? load_pixel<C>(row_of(in, y), xx)
                           : Morph<Op>::kNeutral;
      }
    }
#pragma unroll
    for (int i = 0; i < kChunkRows; ++i) {
#pragma unroll
      for (int k = 0; k < kLoadsPerRow; ++k) {
        const int c = tid + k * kStripWidth;
        if (i < chunk && c < line) rows_in[i * line + c] = split(loaded[i][k]);
      }
    }
    __syncthreads();
    // Horizontal pass, part 1: suffix extrema of each segment of each row.
    for (int t = tid; t < chunk * segments; t += kStripWidth) {
      const uint2* src = rows_in + (t / segments) * line;
      uint2* dst = suffix + (t / segments) * line;
      const int begin = (t % segments) * w;
      uint2 acc = neutral;
      for (int c = min(begin + w, line) - 1; c >= begin; --c) {
        acc = M::combine(acc, src[c]);
        dst[c] = acc;
      }
    }
    __syncthreads();
    // Part 2: prefix extrema, each combined with the suffix extremum w - 1 columns back.
    for (int t = tid; t < chunk * segments; t += kStripWidth) {
      const int i = t / segments;
      const uint2* src = rows_in + i * line;
      const uint2* suf = suffix + i * line;
      const int begin = (t % segments) * w;
      uint2 acc = neutral;
      for (int c = begin; c < min(begin + w, line); ++c) {
        acc = M::combine(acc, src[c]);
        const int a = c - w + 1;  // the output whose window ends at c
        if (a >= 0 && a < kStripWidth) across[i * kStripWidth + a] = M::combine(suf[a], acc);
      }
    }
    __syncthreads();
    // Vertical pass: this thread's column, row by row. The alpha (and, when combining, the
    // previous rectangles' result) of every output row is loaded first, for the same reason.
    std::uint32_t keep[kChunkRows];
#pragma unroll
    for (int i = 0; i < kChunkRows; ++i) {
      const int y = y0 + q0 + i - h + 1;
      const bool stored = i < chunk && q0 + i >= h - 1 && x < in.width && y < in.height;
      keep[i] =
          stored && (C == 4 || combine) ? load_pixel<C>(row_of(combine ? out : in, y), x) : 0U;
    }
    std::uint32_t alpha[kChunkRows];
#pragma unroll
    for (int i = 0; i < kChunkRows; ++i) {
      const int y = y0 + q0 + i - h + 1;
      const bool stored = i < chunk && q0 + i >= h - 1 && x < in.width && y < in.height;
      alpha[i] = stored && C == 4 && combine ? load_pixel<C>(row_of(in, y), x) : keep[i];
    }
#pragma unroll
    for (int i = 0; i < kChunkRows; ++i) {
      if (i >= chunk) break;
      const int q = q0 + i;
      const int j = q % h;
      const uint2 v = across[i * kStripWidth + tid];
      prefix = j == 0 ? v : M::combine(prefix, v);
      if (q >= h - 1) {
        // Output row q - h + 1: its window is rows j + 1.. of the previous segment (their
        // suffix extremum is in the ring) and rows ..j of this one (the prefix).
        const uint2 result =
            j == h - 1 ? prefix : M::combine(ring[(j + 1) * kStripWidth + tid], prefix);
        const int y = y0 + q - h + 1;
        if (x < in.width && y < in.height) {
          std::uint32_t value = merge_lanes(result.x, result.y);
          if (combine) value = Morph<Op>::combine(value, keep[i]);
          if constexpr (C == 4) value = with_alpha(value, alpha[i]);
          store_pixel<C>(mutable_row(out, y), x, value);
        }
      }
      ring[j * kStripWidth + tid] = v;
      if (j == h - 1) {  // segment complete: its suffix extrema, in place
        for (int k = h - 2; k >= 0; --k) {
          ring[k * kStripWidth + tid] =
              M::combine(ring[k * kStripWidth + tid], ring[(k + 1) * kStripWidth + tid]);
        }
      }
    }
    // The next chunk's load may overwrite rows_in and suffix: every thread is past part 2.
    // `across` is rewritten only after the next two barriers.
  }
}

std::size_t shared_bytes(const MorphRect& rect) {
  const auto w = static_cast<std::size_t>(rect.x1 - rect.x0);
  const auto h = static_cast<std::size_t>(rect.y1 - rect.y0);
  const std::size_t line = kStripWidth + w - 1;
  return sizeof(uint2) * (2 * kChunkRows * line + kChunkRows * kStripWidth + h * kStripWidth);
}

int max_shared_bytes() {
  int device = 0;
  CUDA_CHECK(cudaGetDevice(&device));
  int bytes = 0;
  CUDA_CHECK(cudaDeviceGetAttribute(&bytes, cudaDevAttrMaxSharedMemoryPerBlockOptin, device));
  return bytes;
}

template <int C, MorphOp Op>
void launch_strip(const DeviceImage& in, const DeviceImage& out, const MorphRect& rect,
                  bool combine, std::size_t bytes, cudaStream_t stream) {
  static std::once_flag opted_in;  // more than 48 KB of shared memory needs an opt-in
  std::call_once(opted_in, [] {
    const int limit = std::min(static_cast<int>(kMaxSharedBytes), max_shared_bytes());
    CUDA_CHECK(cudaFuncSetAttribute(morph_strip_kernel<C, Op>,
                                    cudaFuncAttributeMaxDynamicSharedMemorySize, limit));
  });
  const dim3 grid(blocks_for(in.width, kStripWidth), blocks_for(in.height, kStripRows));
  morph_strip_kernel<C, Op><<<grid, kStripWidth, bytes, stream>>>(in, out, rect, combine);
  CUDA_CHECK_LAUNCH("morph_strip_kernel");
}

}  // namespace

bool launch_morphology_vhgw_tile(MorphOp op, const DeviceImage& in, const DeviceImage& out,
                                 const MorphRect& rect, bool combine, cudaStream_t stream) {
  if (vhgw_registers::try_launch(op, in, out, rect, combine, stream)) return true;
  const std::size_t bytes = shared_bytes(rect);
  if (rect.x1 - rect.x0 - 1 > (kLoadsPerRow - 1) * kStripWidth || bytes > kMaxSharedBytes ||
      bytes > static_cast<std::size_t>(max_shared_bytes())) {
    return false;  // the caller runs the two 1-D passes through global memory
  }
  with_channels(in.channels, [&](auto c) {
    constexpr int C = decltype(c)::value;
    if (op == MorphOp::erode) {
      launch_strip<C, MorphOp::erode>(in, out, rect, combine, bytes, stream);
    } else {
      launch_strip<C, MorphOp::dilate>(in, out, rect, combine, bytes, stream);
    }
  });
  return true;
}

}  // namespace parfilter::cuda
