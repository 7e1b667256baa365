// 256-bin histograms of gray, of the Y of YCrCb, or of every channel, in two variants:
//   shared-atomics - every thread gets the same number of quads (four pixels, one 16-byte load
//                    for RGBA): the image's quads are one flat sequence that the grid (one
//                    wave of resident blocks) strides through. A thread loads a batch of quads
//                    at once, the next batch's loads in flight while it counts this one. Each
//                    warp counts into its own sub-histograms in shared memory: for one
//                    histogram, 16-bit counters per lane pair (lanes never contend, so flat
//                    areas cost no serialized atomics); per channel, one 32-bit counter per
//                    bin. The block merges its warps' counts and adds them to the global
//                    counts with one atomic per bin;
//   no-atomics     - each thread counts into its own 16-bit sub-histogram in shared memory, the
//                    block sums its threads' counts per bin into a per-block row in global
//                    memory, and a second kernel sums the rows: no atomic anywhere.
// The gray plane can be written in the same pass (otsu and segment need it next).
#include <algorithm>
#include <array>
#include <atomic>

#include "async_copy.cuh"
#include "device_common.cuh"

namespace parfilter::cuda {
namespace {

constexpr int kBins = kHistogramBins;
constexpr int kAtomicBlock = 128;
constexpr int kWarp = 32;
constexpr int kAtomicWarps = kAtomicBlock / kWarp;
constexpr int kBatch = 8;          ///< quads a thread loads at once (shared atomics, one histogram)
constexpr int kChannelBatch = 12;  ///< the same, per-channel histograms
constexpr int kCachedDevices = 64;
constexpr int kDefaultSharedBytes = 48 * 1024;  ///< dynamic shared memory without opting in
constexpr int kLanesPerWord = 2;                ///< lanes sharing a word of 16-bit counters
constexpr int kPairWords = kWarp / kLanesPerWord;
constexpr int kHalfBits = 16;
constexpr unsigned int kHalfMask = 0xFFFFU;
constexpr int kPrivateBlock = 64;                         ///< threads with private histograms
constexpr int kMaxQuadsPerThread = 0xFFFF / kQuadPixels;  ///< keeps 16-bit counters exact
constexpr int kBlocksPerSm = 4;  ///< no-atomics: enough blocks to fill the GPU

/// What a pixel contributes: gray, luma, or channel `channel`.
enum class Value : std::uint8_t { gray, luma, channel };

template <int C, Value V>
__device__ __forceinline__ int value_of(const std::uint8_t* pixel, int channel) {
  if constexpr (V == Value::gray) {
    return C == 1 ? pixel[0] : gray_dev(pixel[0], pixel[1], pixel[2]);
  } else if constexpr (V == Value::luma) {
    return luma_dev(pixel[0], pixel[1], pixel[2]);
  } else {
    return pixel[channel];
  }
}

/// Counts the four pixels of a full quad; add(h, v) counts value v in histogram h. Returns
/// the quad's gray (or luma) values packed in a word when V is gray or luma.
template <int C, Value V, int Hists, typename Add>
__device__ __forceinline__ std::uint32_t count_full_quad(const Quad<C>& q, int channel, Add&& add) {
  std::uint32_t gray_word = 0;
#pragma unroll
  for (int p = 0; p < kQuadPixels; ++p) {
    if constexpr (Hists > 1) {
#pragma unroll
      for (int h = 0; h < Hists; ++h) add(h, quad_byte(q, p * C + h));
    } else if constexpr (C == 1 || V == Value::channel) {
      add(0, quad_byte(q, p * C + (V == Value::channel ? channel : 0)));
    } else {
      // Gray or luma in two byte dot products.
      const std::uint32_t rgb = quad_pixel(q, p);
      const int v = V == Value::gray ? gray_of_word(rgb) : luma_of_word(rgb);
      add(0, v);
      gray_word |= static_cast<std::uint32_t>(v) << (8 * p);
    }
  }
  return gray_word;
}

/// Counts the pixels of the row's last, partial quad starting at x0 (one pixel at a time).
template <int C, Value V, int Hists, typename Add>
__device__ __forceinline__ void count_partial_quad(const std::uint8_t* row, int x0, int width,
                                                   int channel, std::uint8_t* gray_row, Add&& add) {
  for (int x = x0; x < width; ++x) {
    const std::uint8_t* pixel = row + x * C;
    if constexpr (Hists > 1) {
      for (int h = 0; h < Hists; ++h) add(h, pixel[h]);
    } else {
      const int v = value_of<C, V>(pixel, channel);
      add(0, v);
      if (gray_row != nullptr) gray_row[x] = static_cast<std::uint8_t>(v);
    }
  }
}

/// Counts the pixels of quad qx of `row` (all of them, or those inside for the last quad).
template <int C, Value V, int Hists, typename Add>
__device__ __forceinline__ void count_quad(const std::uint8_t* row, int qx, int width, int channel,
                                           Add&& add) {
  const int x0 = kQuadPixels * qx;
  if (x0 + kQuadPixels <= width) {
    count_full_quad<C, V, Hists>(load_quad<C>(row, qx), channel, add);
  } else {
    count_partial_quad<C, V, Hists>(row, x0, width, channel, nullptr, add);
  }
}

/// A thread's place in the image's quads taken as one flat sequence (row by row): it starts
/// at its global index and steps by the grid's thread count, so every thread gets the same
/// number of quads (within one) whatever the shape of the image.
struct QuadCursor {
  int y;
  int qx;
  int step_y;
  int step_x;

  __device__ QuadCursor(int quads_per_row, long long first, long long stride)
      : y(static_cast<int>(first / quads_per_row)),
        qx(static_cast<int>(first % quads_per_row)),
        step_y(static_cast<int>(stride / quads_per_row)),
        step_x(static_cast<int>(stride % quads_per_row)) {}

  __device__ __forceinline__ void advance(int quads_per_row) {
    qx += step_x;
    y += step_y;
    if (qx >= quads_per_row) {
      qx -= quads_per_row;
      ++y;
    }
  }
};

/// B quads of a thread, loaded together so that their loads are in flight at once. `all_full`:
/// every one is a full quad inside the image (y only grows along the cursor, so the last one
/// tells), and they are counted without a check each.
template <int C, int B>
struct QuadBatch {
  Quad<C> q[B];
  QuadCursor first;  ///< where the batch starts (replayed when counting)
  bool all_full;
};

/// Loads the cursor's next B quads (full quads only; a partial one is read when counted) and
/// advances it.
template <int C, int B>
__device__ __forceinline__ QuadBatch<C, B> load_batch(const DeviceImage& in, int quads_per_row,
                                                      bool full_rows, QuadCursor& cursor) {
  QuadBatch<C, B> batch{{}, cursor, false};
  int y[B];
  int qx[B];
#pragma unroll
  for (int b = 0; b < B; ++b) {
    y[b] = cursor.y;
    qx[b] = cursor.qx;
    cursor.advance(quads_per_row);
  }
  batch.all_full = full_rows && y[B - 1] < in.height;
  if (batch.all_full) {
#pragma unroll
    for (int b = 0; b < B; ++b) batch.q[b] = load_quad<C>(row_of(in, y[b]), qx[b]);
  } else {
#pragma unroll
    for (int b = 0; b < B; ++b) {
      if (y[b] < in.height && kQuadPixels * (qx[b] + 1) <= in.width) {
        batch.q[b] = load_quad<C>(row_of(in, y[b]), qx[b]);
      }
    }
  }
  return batch;
}

/// Adds `value` to the shared word at shared-window address `address`, result unused.
__device__ __forceinline__ void shared_add(unsigned int address, unsigned int value) {
  asm volatile("red.shared.add.u32 [%0], %1;" ::"r"(address), "r"(value) : "memory");
}

/// How a warp's sub-histograms lie in shared memory:
///   warp  - one 32-bit counter per histogram and bin;
///   pairs - (one histogram) 16-bit counters in the halves of a word per lane pair and bin,
///           [bin][lane / 2]: lanes never contend, distinct lane pairs never share a bank.
enum class Layout : std::uint8_t { warp, pairs };

__host__ __device__ constexpr int warp_words(Layout layout, int hists) {
  return layout == Layout::pairs ? kBins * kPairWords : hists * kBins;
}

template <int C, Value V, int Hists, bool WriteGray, int B, Layout L>
__global__ void __launch_bounds__(kAtomicBlock)
    histogram_shared_kernel(DeviceImage in, unsigned long long* counts, DeviceImage gray_out) {
  extern __shared__ unsigned int sub[];
  constexpr int kWords = warp_words(L, Hists);
  constexpr int kWordBytes = sizeof(unsigned int);
  constexpr int kBinBytes = L == Layout::pairs ? kPairWords * kWordBytes : kWordBytes;
  const int tid = static_cast<int>(threadIdx.x);
  const int quads = (in.width + kQuadPixels - 1) / kQuadPixels;
  const bool full_rows = in.width % kQuadPixels == 0;
  QuadCursor cursor(quads, static_cast<long long>(blockIdx.x) * kAtomicBlock + tid,
                    static_cast<long long>(gridDim.x) * kAtomicBlock);
  // The first loads are in flight while the sub-histograms are cleared.
  QuadBatch<C, B> batch = load_batch<C, B>(in, quads, full_rows, cursor);
  for (int i = tid; i < kAtomicWarps * kWords; i += kAtomicBlock) sub[i] = 0;
  __syncthreads();
  const int lane = tid % kWarp;
  const unsigned int mine = shared_address(sub + (tid / kWarp) * kWords +
                                           (L == Layout::pairs ? lane / kLanesPerWord : 0));
  const unsigned int one = L == Layout::pairs ? 1U << (kHalfBits * (lane % kLanesPerWord)) : 1U;
  const auto add = [&](int h, int v) {
    shared_add(mine + static_cast<unsigned int>(h * kBins * kWordBytes + v * kBinBytes), one);
  };
  const auto count_batch = [&](const QuadBatch<C, B>& loaded) {
    QuadCursor at = loaded.first;
    if (loaded.all_full) {
#pragma unroll
      for (int b = 0; b < B; ++b) {
        const std::uint32_t gray_word = count_full_quad<C, V, Hists>(loaded.q[b], 0, add);
        if constexpr (WriteGray) {
          reinterpret_cast<std::uint32_t*>(mutable_row(gray_out, at.y))[at.qx] = gray_word;
        }
        at.advance(quads);
      }
      return;
    }
#pragma unroll
    for (int b = 0; b < B; ++b) {
      if (at.y >= in.height) break;
      std::uint8_t* gray_row = WriteGray ? mutable_row(gray_out, at.y) : nullptr;
      const int x0 = kQuadPixels * at.qx;
      if (x0 + kQuadPixels <= in.width) {
        const std::uint32_t gray_word = count_full_quad<C, V, Hists>(loaded.q[b], 0, add);
        if constexpr (WriteGray) reinterpret_cast<std::uint32_t*>(gray_row)[at.qx] = gray_word;
      } else {
        count_partial_quad<C, V, Hists>(row_of(in, at.y), x0, in.width, 0, gray_row, add);
      }
      at.advance(quads);
    }
  };
  // Software pipeline: the next batch's loads are in flight while this one is counted.
  while (batch.first.y < in.height) {
    const QuadBatch<C, B> next = load_batch<C, B>(in, quads, full_rows, cursor);
    count_batch(batch);
    batch = next;
  }
  __syncthreads();
  for (int i = tid; i < Hists * kBins; i += kAtomicBlock) {
    unsigned int total = 0;
    if constexpr (L == Layout::pairs) {
      // Bin i's words of every warp, each thread starting at another word so that a warp's
      // reads fall in distinct banks.
      for (int k = 0; k < kPairWords; ++k) {
        const int word = i * kPairWords + (k + i / kLanesPerWord) % kPairWords;
        for (int w = 0; w < kAtomicWarps; ++w) {
          const unsigned int pair = sub[w * kWords + word];
          total += (pair & kHalfMask) + (pair >> kHalfBits);
        }
      }
    } else {
      for (int w = 0; w < kAtomicWarps; ++w) total += sub[w * kWords + i];
    }
    if (total != 0) atomicAdd(counts + i, static_cast<unsigned long long>(total));
  }
}

template <int C, Value V>
__global__ void histogram_private_kernel(DeviceImage in, int channel, unsigned int* block_rows) {
  __shared__ unsigned short sub[kBins][kPrivateBlock];  // [bin][thread]: conflict-free
  const int tid = static_cast<int>(threadIdx.x);
  for (int b = 0; b < kBins; ++b) sub[b][tid] = 0;  // each thread clears only its own column
  const int quads = (in.width + kQuadPixels - 1) / kQuadPixels;
  const long long total = static_cast<long long>(quads) * in.height;
  const long long stride = static_cast<long long>(gridDim.x) * kPrivateBlock;
  const auto add = [&](int, int v) { ++sub[v][tid]; };
  for (long long q = blockIdx.x * static_cast<long long>(kPrivateBlock) + tid; q < total;
       q += stride) {
    const int y = static_cast<int>(q / quads);
    const int qx = static_cast<int>(q % quads);
    count_quad<C, V, 1>(row_of(in, y), qx, in.width, channel, add);
  }
  __syncthreads();
  for (int b = tid; b < kBins; b += kPrivateBlock) {
    unsigned int sum = 0;
    for (int t = 0; t < kPrivateBlock; ++t) sum += sub[b][t];
    block_rows[blockIdx.x * kBins + b] = sum;
  }
}

__global__ void sum_block_rows_kernel(const unsigned int* block_rows, int blocks,
                                      unsigned long long* counts) {
  const int b = static_cast<int>(threadIdx.x);
  unsigned long long sum = 0;
  for (int k = 0; k < blocks; ++k) sum += block_rows[k * kBins + b];
  counts[b] = sum;
}

int sm_count() {
  int device = 0;
  CUDA_CHECK(cudaGetDevice(&device));
  int sms = 0;
  CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  return sms;
}

/// Blocks of the no-atomics kernel: enough for the GPU, and enough that no thread counts more
/// than its 16-bit counters hold.
int private_blocks(const DeviceImage& in) {
  const long long quads =
      static_cast<long long>((in.width + kQuadPixels - 1) / kQuadPixels) * in.height;
  const long long needed =
      (quads + static_cast<long long>(kMaxQuadsPerThread) * kPrivateBlock - 1) /
      (static_cast<long long>(kMaxQuadsPerThread) * kPrivateBlock);
  return static_cast<int>(
      std::max<long long>(needed, static_cast<long long>(sm_count()) * kBlocksPerSm));
}

/// One wave of resident blocks of the shared-atomics kernel, but enough that no thread counts
/// more pixels than a 16-bit counter holds, and no more than there are quads for. The resident
/// count is worked out once per device: these host calls would otherwise sit between the
/// counts' memset and the kernel on the GPU's timeline.
template <int C, Value V, int Hists, bool WriteGray>
void launch_shared(const DeviceImage& in, unsigned long long* counts, const DeviceImage& gray_out,
                   cudaStream_t stream) {
  constexpr Layout L = Hists == 1 ? Layout::pairs : Layout::warp;
  constexpr int B = Hists == 1 ? kBatch : kChannelBatch;
  const auto kernel = histogram_shared_kernel<C, V, Hists, WriteGray, B, L>;
  constexpr int kSharedBytes = kAtomicWarps * warp_words(L, Hists) * sizeof(unsigned int);
  static std::array<std::atomic<int>, kCachedDevices> resident_cache{};
  int device = 0;
  CUDA_CHECK(cudaGetDevice(&device));
  int resident = device < kCachedDevices ? resident_cache[device].load() : 0;
  if (resident == 0) {
    if constexpr (kSharedBytes > kDefaultSharedBytes) {
      CUDA_CHECK(
          cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, kSharedBytes));
    }
    int per_sm = 0;
    CUDA_CHECK(
        cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, kAtomicBlock, kSharedBytes));
    resident = std::max(per_sm, 1) * sm_count();
    if (device < kCachedDevices) resident_cache[device].store(resident);
  }
  const long long quads =
      static_cast<long long>((in.width + kQuadPixels - 1) / kQuadPixels) * in.height;
  if (quads == 0) return;  // nothing to count: the counts stay zero
  const long long per_block = static_cast<long long>(kAtomicBlock) * kMaxQuadsPerThread;
  long long blocks = std::max<long long>(resident, (quads + per_block - 1) / per_block);
  blocks = std::clamp<long long>((quads + kAtomicBlock - 1) / kAtomicBlock, 1, blocks);
  kernel<<<static_cast<unsigned int>(blocks), kAtomicBlock, kSharedBytes, stream>>>(in, counts,
                                                                                    gray_out);
  CUDA_CHECK_LAUNCH("histogram_shared_kernel");
}

template <int C>
void shared_atomics(HistogramSource source, const DeviceImage& in, unsigned long long* counts,
                    const DeviceImage& gray_out, cudaStream_t stream) {
  if (source == HistogramSource::channels && C > 1) {
    launch_shared<C, Value::channel, C, false>(in, counts, DeviceImage{}, stream);
  } else if (source == HistogramSource::luma && C > 1) {
    launch_shared<C, Value::luma, 1, false>(in, counts, DeviceImage{}, stream);
  } else if (gray_out.data != nullptr) {
    launch_shared<C, Value::gray, 1, true>(in, counts, gray_out, stream);
  } else {
    launch_shared<C, Value::gray, 1, false>(in, counts, DeviceImage{}, stream);
  }
}

template <int C>
void no_atomics(HistogramSource source, const DeviceImage& in, unsigned long long* counts,
                void* scratch, cudaStream_t stream) {
  const int blocks = private_blocks(in);
  auto* rows = static_cast<unsigned int*>(scratch);
  const int hists = source == HistogramSource::channels ? C : 1;
  for (int h = 0; h < hists; ++h) {
    if (source == HistogramSource::channels && C > 1) {
      histogram_private_kernel<C, Value::channel>
          <<<blocks, kPrivateBlock, 0, stream>>>(in, h, rows);
    } else if (source == HistogramSource::luma && C > 1) {
      histogram_private_kernel<C, Value::luma><<<blocks, kPrivateBlock, 0, stream>>>(in, 0, rows);
    } else {
      histogram_private_kernel<C, Value::gray><<<blocks, kPrivateBlock, 0, stream>>>(in, 0, rows);
    }
    CUDA_CHECK_LAUNCH("histogram_private_kernel");
    sum_block_rows_kernel<<<1, kBins, 0, stream>>>(rows, blocks, counts + h * kBins);
    CUDA_CHECK_LAUNCH("sum_block_rows_kernel");
  }
}

}  // namespace

std::size_t histogram_scratch_bytes(HistogramVariant variant, const DeviceImage& in) {
  if (variant != HistogramVariant::no_atomics) return 0;
  return static_cast<std::size_t>(private_blocks(in)) * kBins * sizeof(unsigned int);
}

void launch_histogram(HistogramVariant variant, HistogramSource source, const DeviceImage& in,
                      unsigned long long* counts, void* scratch, const DeviceImage& gray_out,
                      cudaStream_t stream) {
  const int hists = source == HistogramSource::channels ? in.channels : 1;
  if (variant == HistogramVariant::shared_atomics) {
    CUDA_CHECK(cudaMemsetAsync(counts, 0, sizeof(unsigned long long) * kBins * hists, stream));
  }
  with_channels(in.channels, [&](auto c) {
    constexpr int C = decltype(c)::value;
    if (variant == HistogramVariant::shared_atomics) {
      shared_atomics<C>(source, in, counts, gray_out, stream);
    } else {
      no_atomics<C>(source, in, counts, scratch, stream);
    }
  });
  // The gray plane of the no-atomics path, when asked for, comes from the gray kernel.
  if (variant == HistogramVariant::no_atomics && gray_out.data != nullptr) {
    launch_gray(in, gray_out, stream);
  }
}

}  // namespace parfilter::cuda
