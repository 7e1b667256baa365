// The separable Gaussian in one kernel: a block loads a bordered tile into shared memory,
// runs the row pass on every tile row (including the 2-row aprons) into a second shared
// buffer, then the column pass. Both passes work on 4 bytes at a time: the row pass packs two
// samples per 32-bit register (16-bit lanes: a row sum is at most 256 * 255 = 65280, so lanes
// never carry into each other) and the column pass slides down 4 output rows per thread.
// Nothing is rounded between the passes, so the result is the 2-D sum's (docs/FILTERS.md).
#include "device_common.cuh"
#include "internal.hpp"

namespace parfilter::cuda {
namespace {

constexpr int kTaps = kGaussianTaps;
constexpr int kRadius = kGaussianRadius;
constexpr int kRounding = 1 << (kGaussianShift - 1);
constexpr int kTilePixels = 64;  ///< output pixels per tile row
constexpr int kTileRows = 32;    ///< output rows per tile
constexpr int kInputRows = kTileRows + 2 * kRadius;
constexpr int kBlockX = 32;
constexpr int kBlockY = 8;
constexpr int kRowsPerThread = kTileRows / kBlockY;  ///< column pass: output rows per thread
constexpr int kLanes = 4;                            ///< bytes per 32-bit word

struct Q5 {
  int q[kTaps];
};

/// Words in a shared input row: the tile row plus apron, plus one word that stream_word may
/// read past the last byte.
template <int C>
__host__ __device__ constexpr int input_row_words() {
  return ((kTilePixels + 2 * kRadius) * C + kLanes - 1) / kLanes + 1;
}
/// Output words per tile row.
template <int C>
__host__ __device__ constexpr int output_row_words() {
  return kTilePixels * C / kLanes;
}

template <int C>
__device__ void load_tile(const DeviceImage& in, BorderMode border, int x0, int y0,
                          std::uint32_t* tile) {
  constexpr int kWords = input_row_words<C>();
  const int tid = static_cast<int>(threadIdx.y * kBlockX + threadIdx.x);
  const bool interior = x0 - kRadius >= 0 && x0 + kTilePixels + kRadius <= in.width &&
                        y0 - kRadius >= 0 && y0 + kTileRows + kRadius <= in.height;
  if (C == 4 && interior) {
    // Pixel words straight from global memory, coalesced.
    for (int i = tid; i < kInputRows * kWords; i += kBlockX * kBlockY) {
      const int r = i / kWords;
      const int k = i % kWords;
      const int x = x0 - kRadius + k;
      tile[i] =
          k < kWords - 1
              ? __ldg(reinterpret_cast<const std::uint32_t*>(row_of(in, y0 - kRadius + r)) + x)
              : 0U;
    }
    return;
  }
  auto* bytes = reinterpret_cast<std::uint8_t*>(tile);
  constexpr int kBytes = kWords * kLanes;
  constexpr int kUsed = (kTilePixels + 2 * kRadius) * C;
  for (int i = tid; i < kInputRows * kBytes; i += kBlockX * kBlockY) {
    const int r = i / kBytes;
    const int b = i % kBytes;
    bytes[i] = b < kUsed ? static_cast<std::uint8_t>(bordered_sample<C>(
                               in, x0 - kRadius + b / C, y0 - kRadius + r, b % C, border))
                         : std::uint8_t{0};
  }
}

template <int C>
__global__ void gaussian_separable_kernel(DeviceImage in, DeviceImage out, Q5 weights,
                                          BorderMode border) {
  constexpr int kInWords = input_row_words<C>();
  constexpr int kOutWords = output_row_words<C>();
  __shared__ std::uint32_t tile[kInputRows * kInWords];
  __shared__ uint2 rows[kInputRows * kOutWords];  // row-pass sums, (even, odd) 16-bit lanes

  const int x0 = static_cast<int>(blockIdx.x) * kTilePixels;
  const int y0 = static_cast<int>(blockIdx.y) * kTileRows;
  load_tile<C>(in, border, x0, y0, tile);
  __syncthreads();

  // Row pass: output byte b of a tile row reads input bytes b + i C, i = 0..4.
  const int tid = static_cast<int>(threadIdx.y * kBlockX + threadIdx.x);
  for (int t = tid; t < kInputRows * kOutWords; t += kBlockX * kBlockY) {
    const int r = t / kOutWords;
    const int k = t % kOutWords;
    std::uint32_t window[C + 2];
#pragma unroll
    for (int i = 0; i < C + 2; ++i) window[i] = tile[r * kInWords + k + i];
    std::uint32_t even = 0;
    std::uint32_t odd = 0;
#pragma unroll
    for (int i = 0; i < kTaps; ++i) {
      const std::uint32_t w = stream_word(window, i * C);
      even += static_cast<std::uint32_t>(weights.q[i]) * even_lanes(w);
      odd += static_cast<std::uint32_t>(weights.q[i]) * odd_lanes(w);
    }
    rows[t] = make_uint2(even, odd);
  }
  __syncthreads();

  // Column pass: each thread slides down kRowsPerThread output rows of one word column.
  const int first = static_cast<int>(threadIdx.y) * kRowsPerThread;
  const int row_bytes = in.width * C;
  for (int k = static_cast<int>(threadIdx.x); k < kOutWords; k += kBlockX) {
    int sums[kRowsPerThread][kLanes] = {};
#pragma unroll
    for (int r = 0; r < kRowsPerThread + kTaps - 1; ++r) {
      const uint2 h = rows[(first + r) * kOutWords + k];
      const int lane[kLanes] = {static_cast<int>(h.x & 0xFFFFU), static_cast<int>(h.y & 0xFFFFU),
                                static_cast<int>(h.x >> 16), static_cast<int>(h.y >> 16)};
#pragma unroll
      for (int o = 0; o < kRowsPerThread; ++o) {
        const int j = r - o;  // tap of input row r for output row o
        if (j >= 0 && j < kTaps) {
#pragma unroll
          for (int b = 0; b < kLanes; ++b) sums[o][b] += weights.q[j] * lane[b];
        }
      }
    }
    const int byte0 = x0 * C + k * kLanes;
#pragma unroll
    for (int o = 0; o < kRowsPerThread; ++o) {
      const int y = y0 + first + o;
      if (y >= in.height || byte0 >= row_bytes) continue;
      std::uint32_t packed = 0;
#pragma unroll
      for (int b = 0; b < kLanes; ++b) {
        packed |= static_cast<std::uint32_t>((sums[o][b] + kRounding) >> kGaussianShift) << (8 * b);
      }
      if (C == 4) {
        // Alpha is copied: the centre pixel's word, kRadius words right of the tile's start.
        packed = with_alpha(packed, tile[(first + o + kRadius) * kInWords + k + kRadius]);
      }
      std::uint8_t* dst = mutable_row(out, y) + byte0;
      if (byte0 + kLanes <= row_bytes) {
        *reinterpret_cast<std::uint32_t*>(dst) = packed;
      } else {
        for (int b = 0; b < row_bytes - byte0; ++b)
          dst[b] = static_cast<std::uint8_t>(packed >> (8 * b));
      }
    }
  }
}

}  // namespace

void launch_gaussian_separable(const DeviceImage& in, const DeviceImage& out,
                               const std::array<int, 5>& q, BorderMode border,
                               cudaStream_t stream) {
  Q5 weights{};
  for (int i = 0; i < kTaps; ++i) weights.q[i] = q[i];
  const dim3 grid(blocks_for(in.width, kTilePixels), blocks_for(in.height, kTileRows));
  const dim3 block(kBlockX, kBlockY);
  with_channels(in.channels, [&](auto c) {
    gaussian_separable_kernel<decltype(c)::value>
        <<<grid, block, 0, stream>>>(in, out, weights, border);
  });
  CUDA_CHECK_LAUNCH("gaussian_separable_kernel");
}

}  // namespace parfilter::cuda
