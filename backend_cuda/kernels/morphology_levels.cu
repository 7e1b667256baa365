// Square ellipses and crosses up to 15 x 15, both passes in one kernel.
//
// Such an element's rows dy and -dy cover the same columns, and a row nearer the anchor covers
// every column a farther one does: the element is a stack of levels m = |dy| = 0..M whose spans
// widen as m falls. A block owns kThreads columns and a strip of output rows and streams down
// its input rows, 2M + 2 at a time through shared memory (the neutral value outside the
// image). For each input row a thread takes its column's extremum over level M's span and widens
// it level by level, each new column read once (one VIMNMX3 per step that widens both sides).
// Rows go in pairs: each output in flight folds in what it sees of both rows in one VIMNMX3 (row
// r at level |r - y|, row r + 1 at level |r + 1 - y|). The outputs in flight are a ring of
// 2M + 2 accumulators in registers whose slots are compile-time constants, the row loop being
// unrolled by the ring's length; an RGBA output's alpha waits in a second ring. Per sample this
// costs about one extremum per column of the widest span and one per pair of element rows, where
// the rectangles' decomposition runs a whole vHGW pass per distinct row width (5 for an ellipse
// 15 x 15).
//
// Extrema work on the two halves of a pixel word in 16-bit lanes (morphology_common.cuh). The
// spans are compile-time constants (straight-line code); other elements take the rectangles.
#include "internal.hpp"
#include "morphology_common.cuh"

namespace parfilter::cuda {
namespace {

constexpr int kThreads = 128;         ///< output columns per block
constexpr int kTargetStripRows = 64;  ///< output rows per block, rounded to whole chunks
constexpr int kMaxLevel = 7;          ///< elements up to 15 x 15
constexpr int kLoadRows = 8;          ///< input rows whose loads are in flight together

/// An ellipse of side 2 radius + 1 reaches cvRound(sqrt(radius^2 - m^2)) columns each way on
/// its rows at |dy| = m (FILTERS.md; no square root of an integer lies within 0.01 of a half, so
/// double precision rounds the same): the integer k with k^2 - k < n <= k^2 + k.
__host__ __device__ constexpr int ellipse_reach(int radius, int m) {
  const int n = radius * radius - m * m;
  int k = 0;
  while (k * k + k < n) ++k;
  return k;
}

/// The elements this kernel takes, by the columns their rows at |dy| = m reach on each side.
enum class Shape : std::uint8_t { ellipse, cross };
template <Shape S, int M>
__host__ __device__ constexpr int reach(int m) {
  if constexpr (S == Shape::ellipse) {
    return ellipse_reach(M, m);
  } else {
    return m == 0 ? M : 0;
  }
}

/// A pixel's extremum over one span, as its two halves.
struct Halves {
  std::uint32_t low;
  std::uint32_t high;
};

/// Widens a row's extremum (low, high: over level m + 1's span) to level m's span and on to
/// level 0's, leaving each level's in at[]. The bounds are template constants, so every step is
/// straight-line code.
template <Shape S, int M, int Level, MorphOp Op>
__device__ __forceinline__ void widen_from(const std::uint32_t* row, std::uint32_t low,
                                           std::uint32_t high, Halves (&at)[M + 1]) {
  using E = SplitMorph<Op>;
  constexpr int kFrom = reach<S, M>(Level + 1);
  constexpr int kTo = reach<S, M>(Level);
#pragma unroll
  for (int c = kFrom; c < kTo; ++c) {
    const std::uint32_t a = row[-c - 1];
    const std::uint32_t b = row[c + 1];
    high = E::combine3(high, a, b);
    low = E::combine3(low, low_half(a), low_half(b));
  }
  at[Level] = {low, high};
  if constexpr (Level > 0) widen_from<S, M, Level - 1, Op>(row, low, high, at);
}

/// Row `row`'s extremum at this thread's column for every level: at[m] over level m's span.
template <Shape S, int M, MorphOp Op>
__device__ __forceinline__ void level_extrema(const std::uint32_t* row, Halves (&at)[M + 1]) {
  widen_from<S, M, M, Op>(row, low_half(row[0]), row[0], at);
}

template <int C, MorphOp Op, Shape S, int M>
__global__ void __launch_bounds__(kThreads)
    morph_levels_kernel(DeviceImage in, DeviceImage out, int strip_rows) {
  // The outputs a pair of rows reaches: 2M + 2, each in its slot of the ring. The slots repeat
  // every M + 1 pairs, which is all the row loop unrolls (more would overflow the instruction
  // cache: a ring of 2M + 1 unrolled over 2M + 1 pairs ran 3x slower, its warps waiting for
  // instructions).
  constexpr int kRing = 2 * M + 2;
  constexpr int kChunk = kRing;  ///< input rows per pass through shared memory
  constexpr int kReach = reach<S, M>(0);
  constexpr int kLine = kThreads + 2 * kReach;
  constexpr int kWordsPerRow = (kLine + kThreads - 1) / kThreads;
  constexpr std::uint32_t kNeutral = Morph<Op>::kNeutral;
  using E = SplitMorph<Op>;
  __shared__ std::uint32_t tile[kChunk][kLine];
  const int tid = static_cast<int>(threadIdx.x);
  const int x0 = static_cast<int>(blockIdx.x) * kThreads;
  const int y0 = static_cast<int>(blockIdx.y) * strip_rows;
  const int x = x0 + tid;
  const int y_end = min(y0 + strip_rows, in.height);
  Halves acc[kRing];
  [[maybe_unused]] std::uint32_t alpha[C == 4 ? kRing : 1] = {};  // outputs' own pixels (RGBA)
#pragma unroll
  for (int k = 0; k < kRing; ++k) acc[k] = {kNeutral, kNeutral};

  // Input row r = y0 - M + i is step i; output y's slot is (y - y0 + M) mod kRing, so the
  // outputs r + d of row r = r0 + s sit in slots (s + d) mod kRing.
  const auto slot = [](int s, int d) { return ((s + d) % kRing + kRing) % kRing; };
  const auto fold = [&](int k, const Halves& v) {
    acc[k] = {E::combine1(acc[k].low, v.low), E::combine1(acc[k].high, v.high)};
  };
  // An odd count of input rows (the last strip of an odd height) ends with a pair whose second
  // row lies past the strip: its emit is of output row y_end, which belongs to no strip of
  // this block (past the image in the last one).
  const auto emit = [&](int k, int y) {
    if (y >= y0 && y < y_end && x < in.width) {
      std::uint32_t value = join_halves(acc[k].low, acc[k].high);
      if constexpr (C == 4) value = with_alpha(value, alpha[k]);
      store_pixel<C>(mutable_row(out, y), x, value);
    }
    acc[k] = {kNeutral, kNeutral};
  };

  for (int r0 = y0 - M; r0 < y_end + M; r0 += kChunk) {
    __syncthreads();  // every thread is done with the previous rows
    // A batch's loads are all issued before its first store to shared memory; batches bound
    // the registers that hold them.
#pragma unroll
    for (int s0 = 0; s0 < kChunk; s0 += kLoadRows) {
      std::uint32_t loaded[kLoadRows][kWordsPerRow];
#pragma unroll
      for (int i = 0; i < kLoadRows; ++i) {
        const int y = r0 + s0 + i;
        const bool row_inside = s0 + i < kChunk && y >= 0 && y < in.height;
        const std::uint8_t* src = row_of(in, row_inside ? y : 0);
#pragma unroll
        for (int k = 0; k < kWordsPerRow; ++k) {
          const int c = tid + k * kThreads;
          const int xx = x0 - kReach + c;
          loaded[i][k] = row_inside && c < kLine && xx >= 0 && xx < in.width
                             ? load_pixel<C>(src, xx)
                             : kNeutral;
        }
      }
#pragma unroll
      for (int i = 0; i < kLoadRows; ++i) {
#pragma unroll
        for (int k = 0; k < kWordsPerRow; ++k) {
          const int c = tid + k * kThreads;
          if (s0 + i < kChunk && c < kLine) tile[s0 + i][c] = loaded[i][k];
        }
      }
    }
    __syncthreads();
#pragma unroll
    for (int s = 0; s < kChunk; s += 2) {
      const int r = r0 + s;  // rows r and r + 1
      if (r >= y_end + M) break;
      Halves first[M + 1];
      Halves second[M + 1];
      level_extrema<S, M, Op>(&tile[s][tid + kReach], first);
      level_extrema<S, M, Op>(&tile[s + 1][tid + kReach], second);
      if constexpr (C == 4) {
        alpha[slot(s, 0)] = tile[s][tid + kReach];
        alpha[slot(s, 1)] = tile[s + 1][tid + kReach];
      }
      // Output r - M sees row r only (row r + 1 lies below its element) and is then complete;
      // output r + M + 1 sees row r + 1 only. Each emitted slot takes an output of the next pair.
      fold(slot(s, -M), first[M]);
      emit(slot(s, -M), r - M);
      fold(slot(s, M + 1), second[M]);
#pragma unroll
      for (int d = 1 - M; d <= M; ++d) {  // output r + d: row r at dy = -d, r + 1 at 1 - d
        const Halves& a = first[d < 0 ? -d : d];
        const Halves& b = second[d > 1 ? d - 1 : 1 - d];
        const int k = slot(s, d);
        acc[k] = {E::combine3(acc[k].low, a.low, b.low), E::combine3(acc[k].high, a.high, b.high)};
      }
      emit(slot(s, 1 - M), r + 1 - M);
    }
  }
}

/// Output rows per block for M: the input rows (strip plus 2M) fill whole chunks.
constexpr int strip_rows_for(int m) {
  const int chunk = 2 * m + 2;
  const int chunks = (kTargetStripRows + 2 * m + chunk - 1) / chunk;
  return chunks * chunk - 2 * m;
}

/// Whether `spans` (rows relative to the anchor) are those of shape S with radius M.
template <Shape S, int M>
bool is_shape(const MorphSpans& spans) {
  if (static_cast<int>(spans.rows.size()) != 2 * M + 1) return false;
  for (const MorphRect& row : spans.rows) {
    const int m = row.y0 < 0 ? -row.y0 : row.y0;
    if (m > M || row.x0 != -reach<S, M>(m) || row.x1 != reach<S, M>(m) + 1) return false;
  }
  return true;
}

template <int C, MorphOp Op, Shape S, int M>
void launch_levels(const DeviceImage& in, const DeviceImage& out, cudaStream_t stream) {
  constexpr int kStrip = strip_rows_for(M);
  const dim3 grid(blocks_for(in.width, kThreads), blocks_for(in.height, kStrip));
  morph_levels_kernel<C, Op, S, M><<<grid, kThreads, 0, stream>>>(in, out, kStrip);
  CUDA_CHECK_LAUNCH("morph_levels_kernel");
}

/// Launches the kernel for the first radius M in 1..Top whose ellipse or cross `spans` is.
template <int Top, int C, MorphOp Op>
bool launch_shape(const DeviceImage& in, const DeviceImage& out, const MorphSpans& spans,
                  cudaStream_t stream) {
  if constexpr (Top == 0) {
    return false;
  } else {
    if (is_shape<Shape::ellipse, Top>(spans)) {
      launch_levels<C, Op, Shape::ellipse, Top>(in, out, stream);
      return true;
    }
    if (is_shape<Shape::cross, Top>(spans)) {
      launch_levels<C, Op, Shape::cross, Top>(in, out, stream);
      return true;
    }
    return launch_shape<Top - 1, C, Op>(in, out, spans, stream);
  }
}

}  // namespace

bool launch_morphology_levels(MorphOp op, const DeviceImage& in, const DeviceImage& out,
                              const MorphSpans& spans, cudaStream_t stream) {
  bool launched = false;
  with_channels(in.channels, [&](auto c) {
    constexpr int C = decltype(c)::value;
    launched = op == MorphOp::erode
                   ? launch_shape<kMaxLevel, C, MorphOp::erode>(in, out, spans, stream)
                   : launch_shape<kMaxLevel, C, MorphOp::dilate>(in, out, spans, stream);
  });
  return launched;
}

}  // namespace parfilter::cuda
