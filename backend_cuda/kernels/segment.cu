// Adaptive segmentation: every pixel against the isodata threshold of its W x W window (clipped
// to the image), or the global threshold where the window's max - min < min_contrast.
//
// A thread owns one column of a strip of rows and keeps its window's histogram in shared memory
// (its own column of a [bin][thread] array, so threads never share a word and need no
// barrier). Moving down a row removes the window's top row and adds a new bottom row: 2 W
// updates per pixel. A 16 x 16 coarse level (counts and sums per group of 16 values) makes
// each prefix query, min and max at most 32 steps. The isodata iteration is
// filter_math's isodata_threshold step for step, in 64-bit integers (exact for windows up to
// 4095 x 4095: the largest product, S1 W2, stays below 2^57).
#include <algorithm>

#include "device_common.cuh"

namespace parfilter::cuda {
namespace {

constexpr int kBins = kHistogramBins;
constexpr int kFine = 16;  ///< values per coarse group
constexpr int kCoarse = kBins / kFine;
constexpr int kStripRows = 64;  ///< rows a thread slides down
constexpr int kMaxIsodataRounds = 256;
constexpr std::uint8_t kForeground = 255;
constexpr int kMaxShortCount = 0xFFFF;
/// The largest window whose isodata sums fit 64 bits (S1 W2 < 2^57, the header's bound).
constexpr int kExactIsodataWindow = 4095;
static_assert(kMaxWindow <= kExactIsodataWindow, "--window allows a window the sums overflow");

template <typename Count, int T>
struct WindowHistogram {
  Count fine[kBins][T];
  Count coarse_count[kCoarse][T];
  unsigned int coarse_sum[kCoarse][T];
};

template <typename Count, int T>
__device__ __forceinline__ void update_row(WindowHistogram<Count, T>& h, int t,
                                           const std::uint8_t* row, int xa, int xb, int sign,
                                           unsigned long long& n) {
  for (int x = xa; x <= xb; ++x) {
    const int v = row[x];
    h.fine[v][t] = static_cast<Count>(h.fine[v][t] + sign);
    h.coarse_count[v / kFine][t] = static_cast<Count>(h.coarse_count[v / kFine][t] + sign);
    h.coarse_sum[v / kFine][t] += static_cast<unsigned int>(sign * v);
  }
  n += static_cast<unsigned long long>(static_cast<long long>(sign) * (xb - xa + 1));
}

/// Count and sum of the window's values <= t.
template <typename Count, int T>
__device__ __forceinline__ void prefix(const WindowHistogram<Count, T>& h, int tid, int t,
                                       unsigned long long& count, unsigned long long& sum) {
  count = 0;
  sum = 0;
  const int group = t / kFine;
  for (int k = 0; k < group; ++k) {
    count += h.coarse_count[k][tid];
    sum += h.coarse_sum[k][tid];
  }
  for (int v = group * kFine; v <= t; ++v) {
    const unsigned long long c = h.fine[v][tid];
    count += c;
    sum += c * static_cast<unsigned long long>(v);
  }
}

/// filter_math's isodata_threshold over the window histogram (n >= 1 values summing to s).
template <typename Count, int T>
__device__ int isodata(const WindowHistogram<Count, T>& h, int tid, unsigned long long n,
                       unsigned long long s) {
  int t = static_cast<int>(s / n);
  for (int round = 0; round < kMaxIsodataRounds; ++round) {
    unsigned long long w1 = 0;
    unsigned long long s1 = 0;
    prefix(h, tid, t, w1, s1);
    const unsigned long long w2 = n - w1;
    const unsigned long long s2 = s - s1;
    if (w1 == 0 || w2 == 0) break;
    const int next = static_cast<int>((s1 * w2 + s2 * w1) / (2 * w1 * w2));
    if (next == t) break;
    t = next;
  }
  return t;
}

template <typename Count, int T>
__device__ __forceinline__ int lowest(const WindowHistogram<Count, T>& h, int tid) {
  int k = 0;
  while (h.coarse_count[k][tid] == 0) ++k;
  int v = k * kFine;
  while (h.fine[v][tid] == 0) ++v;
  return v;
}

template <typename Count, int T>
__device__ __forceinline__ int highest(const WindowHistogram<Count, T>& h, int tid) {
  int k = kCoarse - 1;
  while (h.coarse_count[k][tid] == 0) --k;
  int v = k * kFine + kFine - 1;
  while (h.fine[v][tid] == 0) --v;
  return v;
}

template <typename Count, int T>
__global__ void __launch_bounds__(T)
    adaptive_segment_kernel(DeviceImage gray, DeviceImage out, int half, int min_contrast,
                            int global_t) {
  __shared__ WindowHistogram<Count, T> h;
  const int tid = static_cast<int>(threadIdx.x);
  const int x = static_cast<int>(blockIdx.x) * T + tid;
  if (x >= gray.width) return;  // no barrier below: every thread works on its own column
  const int y0 = static_cast<int>(blockIdx.y) * kStripRows;
  const int y1 = min(y0 + kStripRows, gray.height);
  const int xa = max(0, x - half);
  const int xb = min(gray.width - 1, x + half);
  for (int v = 0; v < kBins; ++v) h.fine[v][tid] = 0;
  for (int k = 0; k < kCoarse; ++k) {
    h.coarse_count[k][tid] = 0;
    h.coarse_sum[k][tid] = 0;
  }
  unsigned long long n = 0;  // pixels in the window; their sum comes from the coarse sums
  for (int yy = max(0, y0 - half); yy <= min(gray.height - 1, y0 + half); ++yy) {
    update_row(h, tid, row_of(gray, yy), xa, xb, 1, n);
  }
  for (int y = y0; y < y1; ++y) {
    if (y > y0) {
      if (y - half - 1 >= 0) update_row(h, tid, row_of(gray, y - half - 1), xa, xb, -1, n);
      if (y + half < gray.height) update_row(h, tid, row_of(gray, y + half), xa, xb, 1, n);
    }
    unsigned long long total = 0;
    for (int k = 0; k < kCoarse; ++k) total += h.coarse_sum[k][tid];
    const int v = row_of(gray, y)[x];
    const int t =
        highest(h, tid) - lowest(h, tid) < min_contrast ? global_t : isodata(h, tid, n, total);
    mutable_row(out, y)[x] = v > t ? kForeground : 0;
  }
}

}  // namespace

void launch_adaptive_segment(const DeviceImage& gray, const DeviceImage& out, int window,
                             int min_contrast, int global_threshold, cudaStream_t stream) {
  const int half = window / 2;
  const long long window_pixels =
      static_cast<long long>(std::min(window, gray.width)) * std::min(window, gray.height);
  const dim3 strips(1, blocks_for(gray.height, kStripRows));
  if (window_pixels <= kMaxShortCount) {
    constexpr int kThreads = 64;  // 16-bit counts: 38 KB of shared memory per block
    const dim3 grid(blocks_for(gray.width, kThreads), strips.y);
    adaptive_segment_kernel<unsigned short, kThreads>
        <<<grid, kThreads, 0, stream>>>(gray, out, half, min_contrast, global_threshold);
  } else {
    constexpr int kThreads = 32;  // 32-bit counts for large windows: 36 KB per block
    const dim3 grid(blocks_for(gray.width, kThreads), strips.y);
    adaptive_segment_kernel<unsigned int, kThreads>
        <<<grid, kThreads, 0, stream>>>(gray, out, half, min_contrast, global_threshold);
  }
  CUDA_CHECK_LAUNCH("adaptive_segment_kernel");
}

}  // namespace parfilter::cuda
