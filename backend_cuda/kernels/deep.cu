// The ops at 16 bits (docs/FILTERS.md with T = 65535): one thread per output pixel, the
// kernels templated on the sample type and instantiated for 16-bit samples (the 8-bit ones
// are the packed-byte kernels of the other files). Images are packed rows; 2-D kernels step
// over rows by the grid's height, so that any image height fits the grid's limit.
#include <algorithm>

#include "../src/deep_launchers.hpp"
#include "device_common.cuh"

namespace parfilter::cuda::deep16 {
namespace {

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

dim3 grid_2d(int width, int height) {
  return dim3(blocks_for(width, kBlockX),
              std::min(blocks_for(height, kBlockY), kMaxGridY));
}
const dim3 kBlock2d(kBlockX, kBlockY);

dim3 grid_1d(std::uint64_t items) {
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

/// filter_math's gray_value: at 16 bits the sum needs 32 unsigned bits.
__device__ __forceinline__ int gray_wide(int r, int g, int b) {
  return static_cast<int>(
      (static_cast<std::uint32_t>(kGrayR * r) + static_cast<std::uint32_t>(kGrayG * g) +
       static_cast<std::uint32_t>(kGrayB * b) + (1U << (kGrayShift - 1))) >>
      kGrayShift);
}

template <typename T>
__global__ void gray_kernel(const T* in, T* out, Shape s) {
  for_pixels(s.width, s.height, [&](int x, int y) {
    const T* p = in + at(x, y, s.width, s.channels);
    out[at(x, y, s.width, 1)] = static_cast<T>(gray_wide(p[0], p[1], p[2]));
  });
}

struct Taps {
  int q[kGaussianTaps];
};

Taps taps_of(const GaussianTaps& q) {
  Taps taps{};
  std::copy(q.begin(), q.end(), taps.q);
  return taps;
}

template <typename T>
__global__ void gaussian_direct_kernel(const T* in, T* out, Shape s, Taps w, BorderMode border) {
  for_pixels(s.width, s.height, [&](int x, int y) {
    for (int c = 0; c < s.channels; ++c) {
      const std::size_t o = at(x, y, s.width, s.channels) + static_cast<std::size_t>(c);
      if (!filtered_channel(s.channels, c)) {
        out[o] = in[o];
        continue;
      }
      std::uint32_t sum = 0;  // the weights sum to 2^16: below 2^32 at 16 bits
      for (int i = 0; i < kGaussianTaps; ++i) {
        for (int j = 0; j < kGaussianTaps; ++j) {
          sum += static_cast<std::uint32_t>(w.q[i] * w.q[j]) *
                 static_cast<std::uint32_t>(bordered(in, x + j - kGaussianRadius,
                                                     y + i - kGaussianRadius, c, s, border));
        }
      }
      out[o] = static_cast<T>((sum + kGaussianRound) >> kGaussianShift);
    }
  });
}

template <typename T>
__global__ void gaussian_rows_kernel(const T* in, std::uint32_t* sums, Shape s, Taps w,
                                     BorderMode border) {
  for_pixels(s.width, s.height, [&](int x, int y) {
    for (int c = 0; c < s.channels; ++c) {
      std::uint32_t sum = 0;
      for (int j = 0; j < kGaussianTaps; ++j) {
        sum += static_cast<std::uint32_t>(w.q[j]) *
               static_cast<std::uint32_t>(bordered(in, x + j - kGaussianRadius, y, c, s, border));
      }
      sums[at(x, y, s.width, s.channels) + static_cast<std::size_t>(c)] = sum;
    }
  });
}

template <typename T>
__global__ void gaussian_columns_kernel(const T* in, const std::uint32_t* sums, T* out, Shape s,
                                        Taps w, BorderMode border) {
  for_pixels(s.width, s.height, [&](int x, int y) {
    for (int c = 0; c < s.channels; ++c) {
      const std::size_t o = at(x, y, s.width, s.channels) + static_cast<std::size_t>(c);
      if (!filtered_channel(s.channels, c)) {
        out[o] = in[o];
        continue;
      }
      std::uint32_t sum = 0;
      for (int i = 0; i < kGaussianTaps; ++i) {
        const int by = border_index_dev(y + i - kGaussianRadius, s.height, border.kind);
        // A row outside a constant border is V in every tap: 256 V.
        const std::uint32_t row =
            by < 0 ? kGaussianSum * border.value
                   : sums[at(x, by, s.width, s.channels) + static_cast<std::size_t>(c)];
        sum += static_cast<std::uint32_t>(w.q[i]) * row;
      }
      out[o] = static_cast<T>((sum + kGaussianRound) >> kGaussianShift);
    }
  });
}

/// filter_math's isqrt_round, from a float estimate corrected to be exact.
__device__ __forceinline__ std::uint32_t isqrt_round_dev(std::uint64_t n) {
  auto r = static_cast<std::uint64_t>(sqrtf(static_cast<float>(n)));
  while (r * r > n) --r;
  while ((r + 1) * (r + 1) <= n) ++r;
  if (n > r * r + r) ++r;
  return static_cast<std::uint32_t>(r);
}

template <typename T>
__global__ void sobel_kernel(const T* gray, T* out, Shape s, BorderMode border,
                             SobelOutput output) {
  for_pixels(s.width, s.height, [&](int x, int y) {
    const auto p = [&](int dx, int dy) { return bordered(gray, x + dx, y + dy, 0, s, border); };
    const int gx = (p(1, -1) + 2 * p(1, 0) + p(1, 1)) - (p(-1, -1) + 2 * p(-1, 0) + p(-1, 1));
    const int gy = (p(-1, 1) + 2 * p(0, 1) + p(1, 1)) - (p(-1, -1) + 2 * p(0, -1) + p(1, -1));
    const auto ax = static_cast<std::uint32_t>(abs(gx));
    const auto ay = static_cast<std::uint32_t>(abs(gy));
    std::uint32_t level = 0;
    switch (output) {
      case SobelOutput::magnitude:
        level = isqrt_round_dev(static_cast<std::uint64_t>(ax) * ax +
                                static_cast<std::uint64_t>(ay) * ay);
        break;
      case SobelOutput::l1:
        level = ax + ay;
        break;
      case SobelOutput::dx:
        level = ax;
        break;
      case SobelOutput::dy:
        level = ay;
        break;
    }
    out[at(x, y, s.width, 1)] = static_cast<T>(min(level, static_cast<std::uint32_t>(kTopOf<T>)));
  });
}

template <typename T>
__global__ void sharpen_kernel(const T* in, T* out, Shape s, BorderMode border) {
  for_pixels(s.width, s.height, [&](int x, int y) {
    for (int c = 0; c < s.channels; ++c) {
      const std::size_t o = at(x, y, s.width, s.channels) + static_cast<std::size_t>(c);
      if (!filtered_channel(s.channels, c)) {
        out[o] = in[o];
        continue;
      }
      const auto p = [&](int dx, int dy) { return bordered(in, x + dx, y + dy, c, s, border); };
      const int v = kSharpenCentre * p(0, 0) - p(0, -1) - p(0, 1) - p(-1, 0) - p(1, 0);
      out[o] = static_cast<T>(clamp_top<T>(v));
    }
  });
}

/// One count for `value` per thread, added once per distinct value of the warp.
__device__ __forceinline__ void count_value(unsigned int value, std::uint32_t* bins) {
  const unsigned int peers = __match_any_sync(__activemask(), value);
  const auto lane = static_cast<int>(threadIdx.x % warpSize);
  if (__ffs(static_cast<int>(peers)) - 1 == lane) atomicAdd(&bins[value], __popc(peers));
}

template <typename T>
__global__ void histogram_kernel(const T* in, std::uint64_t first, int stride,
                                 std::uint32_t count, std::uint32_t* bins) {
  const std::size_t k = flat_index();
  if (k >= count) return;
  count_value(in[first + k * static_cast<std::size_t>(stride)], bins);
}

template <typename T>
__global__ void luma_histogram_kernel(const T* in, std::uint64_t first, int channels,
                                      std::uint32_t count, std::uint32_t* bins) {
  const std::size_t k = flat_index();
  if (k >= count) return;
  const T* p = in + (first + k) * static_cast<std::size_t>(channels);
  count_value(static_cast<unsigned int>(luma_dev(p[0], p[1], p[2])), bins);
}

template <typename T>
__global__ void apply_lut_kernel(const T* in, T* out, std::uint64_t pixels,
                                 const std::uint16_t* lut) {
  const std::size_t i = flat_index();
  if (i < pixels) out[i] = static_cast<T>(lut[in[i]]);
}

template <typename T>
__global__ void equalize_color_kernel(const T* in, T* out, std::uint64_t pixels, int channels,
                                      const std::uint16_t* lut) {
  const std::size_t p = flat_index();
  if (p >= pixels) return;
  const std::size_t i = p * static_cast<std::size_t>(channels);
  constexpr int kHalf = kHalfOf<T>;
  const int r = in[i];
  const int g = in[i + 1];
  const int b = in[i + 2];
  const int y = luma_dev(r, g, b);
  const int cr = clamp_top<T>(descale((r - y) * kCrFromRMinusY + (kHalf << kYuvShift))) - kHalf;
  const int cb = clamp_top<T>(descale((b - y) * kCbFromBMinusY + (kHalf << kYuvShift))) - kHalf;
  const int ey = lut[y];
  out[i] = static_cast<T>(clamp_top<T>(ey + descale(cr * kRFromCr)));
  out[i + 1] = static_cast<T>(clamp_top<T>(ey + descale(cb * kGFromCb + cr * kGFromCr)));
  out[i + 2] = static_cast<T>(clamp_top<T>(ey + descale(cb * kBFromCb)));
  if (channels > kRgb) out[i + kRgb] = in[i + kRgb];
}

template <typename T>
__global__ void threshold_kernel(const T* gray, T* out, std::uint64_t pixels, int t) {
  const std::size_t i = flat_index();
  if (i < pixels) out[i] = static_cast<T>(gray[i] > t ? kTopOf<T> : 0);
}

/// segment --adaptive: filter_math's isodata rounds over the window clipped to the image, each
/// round counting the window's values <= t (64 bits hold n * s for any window).
template <typename T>
__global__ void adaptive_segment_kernel(const T* gray, T* out, Shape s, int window,
                                        int min_contrast, int global_t) {
  for_pixels(s.width, s.height, [&](int x, int y) {
    const int half = window / 2;
    const int x0 = max(0, x - half);
    const int x1 = min(s.width - 1, x + half);
    const int y0 = max(0, y - half);
    const int y1 = min(s.height - 1, y + half);
    std::uint64_t n = 0;
    std::uint64_t sum = 0;
    int lo = kTopOf<T>;
    int hi = 0;
    for (int yy = y0; yy <= y1; ++yy) {
      for (int xx = x0; xx <= x1; ++xx) {
        const int v = gray[at(xx, yy, s.width, 1)];
        ++n;
        sum += static_cast<std::uint64_t>(v);
        lo = min(lo, v);
        hi = max(hi, v);
      }
    }
    int t = global_t;
    if (hi - lo >= min_contrast) {
      t = static_cast<int>(sum / n);
      for (int round = 0; round <= kTopOf<T>; ++round) {
        std::uint64_t w1 = 0;
        std::uint64_t s1 = 0;
        for (int yy = y0; yy <= y1; ++yy) {
          for (int xx = x0; xx <= x1; ++xx) {
            const int v = gray[at(xx, yy, s.width, 1)];
            if (v <= t) {
              ++w1;
              s1 += static_cast<std::uint64_t>(v);
            }
          }
        }
        const std::uint64_t w2 = n - w1;
        const std::uint64_t s2 = sum - s1;
        if (w1 == 0 || w2 == 0) break;
        const auto next = static_cast<int>((s1 * w2 + s2 * w1) / (2 * w1 * w2));
        if (next == t) break;
        t = next;
      }
    }
    out[at(x, y, s.width, 1)] = static_cast<T>(gray[at(x, y, s.width, 1)] > t ? kTopOf<T> : 0);
  });
}

struct Element {
  const std::uint8_t* mask;
  int width;
  int height;
  int anchor_x;
  int anchor_y;
};

template <typename T>
__global__ void morphology_kernel(const T* in, T* out, Shape s, Element se, bool erode) {
  for_pixels(s.width, s.height, [&](int x, int y) {
    for (int c = 0; c < s.channels; ++c) {
      const std::size_t o = at(x, y, s.width, s.channels) + static_cast<std::size_t>(c);
      if (!filtered_channel(s.channels, c)) {
        out[o] = in[o];
        continue;
      }
      int best = erode ? kTopOf<T> : 0;  // pixels outside the image are ignored
      for (int j = 0; j < se.height; ++j) {
        const int yy = y + j - se.anchor_y;
        if (yy < 0 || yy >= s.height) continue;
        for (int i = 0; i < se.width; ++i) {
          const int xx = x + i - se.anchor_x;
          if (xx < 0 || xx >= s.width || se.mask[j * se.width + i] == 0) continue;
          const int v = in[at(xx, yy, s.width, s.channels) + static_cast<std::size_t>(c)];
          best = erode ? min(best, v) : max(best, v);
        }
      }
      out[o] = static_cast<T>(best);
    }
  });
}

template <typename T>
__global__ void pool_kernel(const T* in, T* out, Shape s, Shape o) {
  for_pixels(o.width, o.height, [&](int x, int y) {
    for (int c = 0; c < s.channels; ++c) {
      int best = 0;
      for (int dy = 0; dy < kPoolStride; ++dy) {
        for (int dx = 0; dx < kPoolStride; ++dx) {
          const int xx = kPoolStride * x + dx;
          const int yy = kPoolStride * y + dy;
          if (xx < s.width && yy < s.height) {
            best = max(best, static_cast<int>(
                                 in[at(xx, yy, s.width, s.channels) + static_cast<std::size_t>(c)]));
          }
        }
      }
      out[at(x, y, o.width, o.channels) + static_cast<std::size_t>(c)] = static_cast<T>(best);
    }
  });
}

}  // namespace

void launch_gray(const Sample* in, Sample* out, Shape shape, cudaStream_t stream) {
  gray_kernel<<<grid_2d(shape.width, shape.height), kBlock2d, 0, stream>>>(in, out, shape);
  CUDA_CHECK_LAUNCH("deep gray_kernel");
}

void launch_gaussian(const Sample* in, Sample* out, std::uint32_t* row_sums, Shape shape,
                     const GaussianTaps& q, BorderMode border, cudaStream_t stream) {
  const dim3 grid = grid_2d(shape.width, shape.height);
  if (row_sums == nullptr) {
    gaussian_direct_kernel<<<grid, kBlock2d, 0, stream>>>(in, out, shape, taps_of(q), border);
    CUDA_CHECK_LAUNCH("deep gaussian_direct_kernel");
    return;
  }
  gaussian_rows_kernel<<<grid, kBlock2d, 0, stream>>>(in, row_sums, shape, taps_of(q), border);
  CUDA_CHECK_LAUNCH("deep gaussian_rows_kernel");
  gaussian_columns_kernel<<<grid, kBlock2d, 0, stream>>>(in, row_sums, out, shape, taps_of(q),
                                                          border);
  CUDA_CHECK_LAUNCH("deep gaussian_columns_kernel");
}

void launch_sobel(const Sample* gray, Sample* out, Shape shape, BorderMode border,
                  SobelOutput output, cudaStream_t stream) {
  sobel_kernel<<<grid_2d(shape.width, shape.height), kBlock2d, 0, stream>>>(gray, out, shape,
                                                                             border, output);
  CUDA_CHECK_LAUNCH("deep sobel_kernel");
}

void launch_sharpen(const Sample* in, Sample* out, Shape shape, BorderMode border,
                    cudaStream_t stream) {
  sharpen_kernel<<<grid_2d(shape.width, shape.height), kBlock2d, 0, stream>>>(in, out, shape,
                                                                               border);
  CUDA_CHECK_LAUNCH("deep sharpen_kernel");
}

void launch_histogram(const Sample* in, std::uint64_t first, int stride, std::uint32_t count,
                      std::uint32_t* bins, cudaStream_t stream) {
  histogram_kernel<<<grid_1d(count), kFlatBlock, 0, stream>>>(in, first, stride, count, bins);
  CUDA_CHECK_LAUNCH("deep histogram_kernel");
}

void launch_luma_histogram(const Sample* in, std::uint64_t first, int channels,
                           std::uint32_t count, std::uint32_t* bins, cudaStream_t stream) {
  luma_histogram_kernel<<<grid_1d(count), kFlatBlock, 0, stream>>>(in, first, channels, count,
                                                                    bins);
  CUDA_CHECK_LAUNCH("deep luma_histogram_kernel");
}

void launch_apply_lut(const Sample* in, Sample* out, Shape shape, const std::uint16_t* lut,
                      cudaStream_t stream) {
  const std::uint64_t pixels = shape.pixels();
  apply_lut_kernel<<<grid_1d(pixels), kFlatBlock, 0, stream>>>(in, out, pixels, lut);
  CUDA_CHECK_LAUNCH("deep apply_lut_kernel");
}

void launch_equalize_color(const Sample* in, Sample* out, Shape shape, const std::uint16_t* lut,
                           cudaStream_t stream) {
  const std::uint64_t pixels = shape.pixels();
  equalize_color_kernel<<<grid_1d(pixels), kFlatBlock, 0, stream>>>(in, out, pixels,
                                                                     shape.channels, lut);
  CUDA_CHECK_LAUNCH("deep equalize_color_kernel");
}

void launch_threshold(const Sample* gray, Sample* out, Shape shape, int t, cudaStream_t stream) {
  const std::uint64_t pixels = shape.pixels();
  threshold_kernel<<<grid_1d(pixels), kFlatBlock, 0, stream>>>(gray, out, pixels, t);
  CUDA_CHECK_LAUNCH("deep threshold_kernel");
}

void launch_adaptive_segment(const Sample* gray, Sample* out, Shape shape, int window,
                             int min_contrast, int global_t, cudaStream_t stream) {
  adaptive_segment_kernel<<<grid_2d(shape.width, shape.height), kBlock2d, 0, stream>>>(
      gray, out, shape, window, min_contrast, global_t);
  CUDA_CHECK_LAUNCH("deep adaptive_segment_kernel");
}

void launch_morphology(const Sample* in, Sample* out, Shape shape, const std::uint8_t* mask,
                       const StructuringElement& se, MorphOp op, cudaStream_t stream) {
  const Element element{mask, se.width, se.height, se.anchor_x, se.anchor_y};
  morphology_kernel<<<grid_2d(shape.width, shape.height), kBlock2d, 0, stream>>>(
      in, out, shape, element, op == MorphOp::erode);
  CUDA_CHECK_LAUNCH("deep morphology_kernel");
}

void launch_pool(const Sample* in, Sample* out, Shape in_shape, Shape out_shape,
                 cudaStream_t stream) {
  pool_kernel<<<grid_2d(out_shape.width, out_shape.height), kBlock2d, 0, stream>>>(
      in, out, in_shape, out_shape);
  CUDA_CHECK_LAUNCH("deep pool_kernel");
}

}  // namespace parfilter::cuda::deep16
