// parfilter-bench-cuda-halo: what the halo of a strip-tiled window filter costs in data
// movement alone, on a 7680 x 4320 RGBA image. For each geometry a copy kernel reads what a
// strip kernel must read (the strip, `apron` columns beside it and `warm-up` rows above each
// block of rows) and writes the strip, with no arithmetic, by 16-byte loads into registers.
// Its time against a device-to-device cudaMemcpy in the same run is what the geometry's data
// movement costs by itself: docs/CUDA.md compares erode 31 x 31 (30 apron columns, 30 warm-up
// rows) with it.
//
//   parfilter-bench-cuda-halo
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <exception>
#include <vector>

#include "bench_timer.hpp"
#include "cuda_util.hpp"

namespace parfilter::cuda::bench {
namespace {

constexpr int kWidth = 7680;
constexpr int kHeight = 4320;
constexpr int kPixelBytes = 4;                 // RGBA
constexpr int kQuadPixels = 16 / kPixelBytes;  // pixels per 16-byte load
constexpr int kWarmRows = 30;                  // a 31-row window's warm-up
constexpr int kLoadsInFlight = 4;              // loads a thread issues before storing

/// A strip kernel's shape, in pixels and rows.
struct Geometry {
  int strip = 0;    ///< output columns per block (a multiple of kQuadPixels)
  int apron = 0;    ///< extra columns read, half on each side
  int rows = 0;     ///< output rows per block
  int warm = 0;     ///< rows read above the block's first output row
  int threads = 0;  ///< threads per block, at most (whole rows of the read span)
};

/// Block (strip, band): thread t takes quad t % span of the read span and rows t / span,
/// + sweep, ...; reads every row from `warm` above the band, stores the strip's quads of the
/// band's rows. Reads that are not stored feed a value no run matches (kept, not stored).
__global__ void halo_copy(const uint4* __restrict__ in, uint4* __restrict__ out, int width_q,
                          int height, int pitch_q, int strip_q, int apron_q, int rows, int warm) {
  const int left = apron_q / 2;
  const int span = strip_q + apron_q;
  const int sweep = static_cast<int>(blockDim.x) / span;
  const int lane = static_cast<int>(threadIdx.x) % span;
  const int q = static_cast<int>(blockIdx.x) * strip_q - left + lane;
  if (static_cast<int>(threadIdx.x) / span >= sweep || q < 0 || q >= width_q) return;
  const bool stores = lane >= left && lane < left + strip_q;
  const int y0 = static_cast<int>(blockIdx.y) * rows;
  const int y_end = min(height, y0 + rows);
  unsigned int unused = 0;
  const auto move = [&](int y, const uint4& v) {
    if (stores && y >= y0) {
      out[static_cast<std::size_t>(y) * pitch_q + q] = v;
    } else {
      unused ^= v.x;
    }
  };
  int y = max(0, y0 - warm) + static_cast<int>(threadIdx.x) / span;
  for (; y + (kLoadsInFlight - 1) * sweep < y_end; y += kLoadsInFlight * sweep) {
    uint4 v[kLoadsInFlight];
#pragma unroll
    for (int u = 0; u < kLoadsInFlight; ++u) {
      v[u] = __ldcs(in + static_cast<std::size_t>(y + u * sweep) * pitch_q + q);
    }
#pragma unroll
    for (int u = 0; u < kLoadsInFlight; ++u) move(y + u * sweep, v[u]);
  }
  for (; y < y_end; y += sweep) move(y, __ldcs(in + static_cast<std::size_t>(y) * pitch_q + q));
  constexpr unsigned int kNever = 0x9e3779b9U;  // keeps the unstored reads alive
  if (unused == kNever) out[q] = make_uint4(unused, 0, 0, 0);
}

int bench_main() {
  CUDA_CHECK(cudaSetDevice(0));
  cudaDeviceProp prop{};
  CUDA_CHECK(cudaGetDeviceProperties(&prop, 0));
  const std::size_t pitch = static_cast<std::size_t>(kWidth) * kPixelBytes;
  const std::size_t bytes = pitch * kHeight;
  DeviceBuffer in;
  DeviceBuffer out;
  in.reserve(bytes);
  out.reserve(bytes);
  CUDA_CHECK(cudaMemset(in.get(), 1, bytes));
  const Stream stream;
  const double copy_ms = device_copy_ms(stream.get(), out.get(), in.get(), bytes);
  std::printf(
      "parfilter-bench-cuda-halo on %s, %dx%d RGBA: device-to-device copy %.4f ms = %.0f GB/s\n"
      "a strip kernel's reads and writes alone (16-byte loads, no arithmetic):\n\n"
      "| strip px | apron px | rows | warm-up rows | threads | ms | of copy |\n"
      "|---:|---:|---:|---:|---:|---:|---:|\n",
      prop.name, kWidth, kHeight, copy_ms, gb_per_s(2.0 * static_cast<double>(bytes), copy_ms));
  std::vector<Geometry> geometries = {
      {128, 0, 256, 0, 256},           // no halo: the strip pattern by itself
      {124, 32, 256, kWarmRows, 256},  // the register vHGW kernel's blocks (apron 30, in quads)
  };
  for (const int strip : {128, 256, 512}) {
    for (const int apron : {32, 64}) {
      for (const int threads : {256, 1024})
        geometries.push_back({strip, apron, 512, kWarmRows, threads});
    }
  }
  for (const Geometry& g : geometries) {
    const int strip_q = g.strip / kQuadPixels;
    const int apron_q = g.apron / kQuadPixels;
    const int span = strip_q + apron_q;
    const int threads = std::max(g.threads / span, 1) * span;
    const dim3 grid((kWidth / kQuadPixels + strip_q - 1) / strip_q,
                    (kHeight + g.rows - 1) / g.rows);
    const double ms = median_ms(stream.get(), [&] {
      halo_copy<<<grid, threads, 0, stream.get()>>>(
          in.as<const uint4>(), out.as<uint4>(), kWidth / kQuadPixels, kHeight,
          static_cast<int>(pitch / sizeof(uint4)), strip_q, apron_q, g.rows, g.warm);
      CUDA_CHECK_LAUNCH("halo_copy");
    });
    std::printf("| %d | %d | %d | %d | %d | %.4f | %.0f%% |\n", g.strip, g.apron, g.rows, g.warm,
                threads, ms, 100.0 * copy_ms / ms);
  }
  return 0;
}

}  // namespace
}  // namespace parfilter::cuda::bench

int main() {
  try {
    return parfilter::cuda::bench::bench_main();
  } catch (const std::exception& e) {
    std::fprintf(stderr, "parfilter-bench-cuda-halo: %s\n", e.what());
    return 1;
  }
}
