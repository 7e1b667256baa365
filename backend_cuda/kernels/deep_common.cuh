// What the 16-bit kernels share (deep_filters.cu, deep_levels.cu): the sample type's top, launch
// geometry, the pixel loop and bordered reads. Images are packed rows; 2-D kernels step over
// rows by the grid's height, so that any image height fits the grid's limit.
#pragma once

#include <algorithm>
#include <cstdint>

#include "../src/deep_launchers.hpp"
#include "device_common.cuh"

namespace parfilter::cuda::deep16 {

template <typename T>
constexpr int kTopOf = (1 << (8 * sizeof(T))) - 1;
template <typename T>
constexpr int kHalfOf = (kTopOf<T> + 1) / 2;

constexpr int kBlockX = 32;
constexpr int kBlockY = 8;
constexpr int kFlatBlock = 256;
constexpr unsigned int kMaxGridY = 65535;
constexpr int kRgb = 3;
constexpr int kSharpenCentre = 5;
constexpr int kPoolStride = 2;
constexpr std::uint32_t kGaussianRound = 1U << (kGaussianShift - 1);
constexpr std::uint32_t kGaussianSum = 1U << kGaussianWeightBits;

inline dim3 grid_2d(int width, int height) {
  return dim3(blocks_for(width, kBlockX), std::min(blocks_for(height, kBlockY), kMaxGridY));
}
inline dim3 block_2d() { return dim3(kBlockX, kBlockY); }

inline dim3 grid_1d(std::uint64_t items) {
  return dim3(blocks_for(static_cast<long long>(items), kFlatBlock));
}

/// Runs body(x, y) for this thread's pixels of a width x height grid.
template <typename Body>
__device__ __forceinline__ void for_pixels(int width, int height, Body body) {
  const int x = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
  if (x >= width) return;
  for (int y = static_cast<int>(blockIdx.y * blockDim.y + threadIdx.y); y < height;
       y += static_cast<int>(gridDim.y * blockDim.y)) {
    body(x, y);
  }
}

__device__ __forceinline__ std::size_t flat_index() {
  return static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
}

__device__ __forceinline__ std::size_t at(int x, int y, int width, int channels) {
  return (static_cast<std::size_t>(y) * static_cast<std::size_t>(width) +
          static_cast<std::size_t>(x)) *
         static_cast<std::size_t>(channels);
}

__device__ __forceinline__ bool filtered_channel(int channels, int c) {
  return channels <= kRgb || c < kRgb;
}

/// out = value(x, y, c) for every filtered channel of this thread's pixels; alpha of RGBA is
/// copied.
template <typename T, typename Value>
__device__ __forceinline__ void for_filtered_samples(const T* in, T* out, const Shape& s,
                                                     Value value) {
  for_pixels(s.width, s.height, [&](int x, int y) {
    for (int c = 0; c < s.channels; ++c) {
      const std::size_t o = at(x, y, s.width, s.channels) + static_cast<std::size_t>(c);
      out[o] = filtered_channel(s.channels, c) ? static_cast<T>(value(x, y, c)) : in[o];
    }
  });
}

template <typename T>
__device__ __forceinline__ int clamp_top(int v) {
  return v < 0 ? 0 : (v > kTopOf<T> ? kTopOf<T> : v);
}

template <typename T>
__device__ __forceinline__ int bordered(const T* src, int x, int y, int c, const Shape& s,
                                        BorderMode border) {
  const int bx = border_index_dev(x, s.width, border.kind);
  const int by = border_index_dev(y, s.height, border.kind);
  if (bx < 0 || by < 0) return border.value;
  return src[at(bx, by, s.width, s.channels) + static_cast<std::size_t>(c)];
}

}  // namespace parfilter::cuda::deep16
