// The 16-bit ops on levels (docs/FILTERS.md with T = 65535): histograms counted once per
// distinct value of a warp, the equalize tables applied, thresholds and segment --adaptive.
// Templated on the sample type and instantiated for 16-bit samples.
#include "deep_common.cuh"

namespace parfilter::cuda::deep16 {
namespace {

/// One count for `value` per thread, added once per distinct value of the warp.
__device__ __forceinline__ void count_value(unsigned int value, std::uint32_t* bins) {
  const unsigned int peers = __match_any_sync(__activemask(), value);
  const auto lane = static_cast<int>(threadIdx.x % warpSize);
  if (__ffs(static_cast<int>(peers)) - 1 == lane) atomicAdd(&bins[value], __popc(peers));
}

template <typename T>
__global__ void histogram_kernel(const T* in, std::uint64_t first, int stride, std::uint32_t count,
                                 std::uint32_t* bins) {
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

}  // namespace

void launch_histogram(const Sample* in, std::uint64_t first, int stride, std::uint32_t count,
                      std::uint32_t* bins, cudaStream_t stream) {
  histogram_kernel<<<grid_1d(count), kFlatBlock, 0, stream>>>(in, first, stride, count, bins);
  CUDA_CHECK_LAUNCH("deep histogram_kernel");
}

void launch_luma_histogram(const Sample* in, std::uint64_t first, int channels, std::uint32_t count,
                           std::uint32_t* bins, cudaStream_t stream) {
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
  equalize_color_kernel<<<grid_1d(pixels), kFlatBlock, 0, stream>>>(in, out, pixels, shape.channels,
                                                                    lut);
  CUDA_CHECK_LAUNCH("deep equalize_color_kernel");
}

void launch_threshold(const Sample* gray, Sample* out, Shape shape, int t, cudaStream_t stream) {
  const std::uint64_t pixels = shape.pixels();
  threshold_kernel<<<grid_1d(pixels), kFlatBlock, 0, stream>>>(gray, out, pixels, t);
  CUDA_CHECK_LAUNCH("deep threshold_kernel");
}

void launch_adaptive_segment(const Sample* gray, Sample* out, Shape shape, int window,
                             int min_contrast, int global_t, cudaStream_t stream) {
  adaptive_segment_kernel<<<grid_2d(shape.width, shape.height), block_2d(), 0, stream>>>(
      gray, out, shape, window, min_contrast, global_t);
  CUDA_CHECK_LAUNCH("deep adaptive_segment_kernel");
}

}  // namespace parfilter::cuda::deep16
