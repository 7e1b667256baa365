// 256-bin histograms of gray, of the Y of YCrCb, or of every channel, in two variants:
//   shared-atomics - each warp counts into its own sub-histogram in shared memory (privatized,
//                    so warps never contend), the block merges them and adds the result to
//                    the global counts with one atomic per bin;
//   no-atomics     - each thread counts into its own 16-bit sub-histogram in shared memory, the
//                    block sums its threads' counts per bin into a per-block row in global
//                    memory, and a second kernel sums the rows: no atomic anywhere.
// Threads read quads (four pixels, one 16-byte load for RGBA). The gray plane can be written in
// the same pass (otsu and segment need it next).
#include <algorithm>

#include "device_common.cuh"

namespace parfilter::cuda {
namespace {

constexpr int kBins = kHistogramBins;
constexpr int kAtomicBlock = 256;
constexpr int kWarp = 32;
constexpr int kAtomicWarps = kAtomicBlock / kWarp;
constexpr int kPrivateBlock = 64;                         ///< threads with private histograms
constexpr int kMaxQuadsPerThread = 0xFFFF / kQuadPixels;  ///< keeps 16-bit counters exact
constexpr int kBlocksPerSm = 4;        ///< no-atomics: enough blocks to fill the GPU
constexpr int kAtomicBlocksPerSm = 8;  ///< shared atomics: a full SM of 256-thread blocks

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

/// Counts the pixels of quad qx of `row` (all of them, or those inside for the last quad).
/// add(h, v) counts value v in histogram h. Returns the gray word when V is gray.
template <int C, Value V, int Hists, typename Add>
__device__ __forceinline__ void count_quad(const std::uint8_t* row, int qx, int width, int channel,
                                           std::uint8_t* gray_row, Add&& add) {
  const int x0 = kQuadPixels * qx;
  if (x0 + kQuadPixels <= width) {
    const Quad<C> q = load_quad<C>(row, qx);
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
    if (gray_row != nullptr) reinterpret_cast<std::uint32_t*>(gray_row)[qx] = gray_word;
    return;
  }
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

template <int C, Value V, int Hists>
__global__ void histogram_shared_kernel(DeviceImage in, unsigned long long* counts,
                                        DeviceImage gray_out) {
  __shared__ unsigned int sub[kAtomicWarps][Hists][kBins];
  const int tid = static_cast<int>(threadIdx.x);
  for (int i = tid; i < kAtomicWarps * Hists * kBins; i += kAtomicBlock) (&sub[0][0][0])[i] = 0;
  __syncthreads();
  const int warp = tid / kWarp;
  const auto add = [&](int h, int v) { atomicAdd(&sub[warp][h][v], 1U); };
  const int quads = (in.width + kQuadPixels - 1) / kQuadPixels;
  for (int y = static_cast<int>(blockIdx.x); y < in.height; y += static_cast<int>(gridDim.x)) {
    const std::uint8_t* row = row_of(in, y);
    std::uint8_t* gray_row = gray_out.data != nullptr ? mutable_row(gray_out, y) : nullptr;
    for (int qx = tid; qx < quads; qx += kAtomicBlock) {
      count_quad<C, V, Hists>(row, qx, in.width, 0, gray_row, add);
    }
  }
  __syncthreads();
  for (int i = tid; i < Hists * kBins; i += kAtomicBlock) {
    unsigned int total = 0;
    for (int w = 0; w < kAtomicWarps; ++w) total += (&sub[w][0][0])[i];
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
    count_quad<C, V, 1>(row_of(in, y), qx, in.width, channel, nullptr, add);
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

template <int C>
void shared_atomics(HistogramSource source, const DeviceImage& in, unsigned long long* counts,
                    const DeviceImage& gray_out, cudaStream_t stream) {
  const int blocks = std::min(in.height, sm_count() * kAtomicBlocksPerSm);
  if (source == HistogramSource::channels && C > 1) {
    histogram_shared_kernel<C, Value::channel, C>
        <<<blocks, kAtomicBlock, 0, stream>>>(in, counts, DeviceImage{});
  } else if (source == HistogramSource::luma && C > 1) {
    histogram_shared_kernel<C, Value::luma, 1>
        <<<blocks, kAtomicBlock, 0, stream>>>(in, counts, DeviceImage{});
  } else {
    histogram_shared_kernel<C, Value::gray, 1>
        <<<blocks, kAtomicBlock, 0, stream>>>(in, counts, gray_out);
  }
  CUDA_CHECK_LAUNCH("histogram_shared_kernel");
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
