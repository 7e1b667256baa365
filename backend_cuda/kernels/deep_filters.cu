// The 16-bit stencils and per-pixel filters (docs/FILTERS.md with T = 65535): one thread per
// output pixel, templated on the sample type and instantiated for 16-bit samples (the 8-bit
// ones are the packed-byte kernels of the other files).
#include "deep_common.cuh"

namespace parfilter::cuda::deep16 {
namespace {

/// filter_math's gray_value: at 16 bits the sum needs 32 unsigned bits.
__device__ __forceinline__ int gray_wide(int r, int g, int b) {
  return static_cast<int>((static_cast<std::uint32_t>(kGrayR * r) +
                           static_cast<std::uint32_t>(kGrayG * g) +
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
  for_filtered_samples(in, out, s, [&](int x, int y, int c) {
    std::uint32_t sum = 0;  // the weights sum to 2^16: below 2^32 at 16 bits
    for (int i = 0; i < kGaussianTaps; ++i) {
      for (int j = 0; j < kGaussianTaps; ++j) {
        sum += static_cast<std::uint32_t>(w.q[i] * w.q[j]) *
               static_cast<std::uint32_t>(
                   bordered(in, x + j - kGaussianRadius, y + i - kGaussianRadius, c, s, border));
      }
    }
    return (sum + kGaussianRound) >> kGaussianShift;
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
  for_filtered_samples(in, out, s, [&](int x, int y, int c) {
    std::uint32_t sum = 0;
    for (int i = 0; i < kGaussianTaps; ++i) {
      const int by = border_index_dev(y + i - kGaussianRadius, s.height, border.kind);
      // A row outside a constant border is V in every tap: 256 V.
      const std::uint32_t row =
          by < 0 ? kGaussianSum * border.value
                 : sums[at(x, by, s.width, s.channels) + static_cast<std::size_t>(c)];
      sum += static_cast<std::uint32_t>(w.q[i]) * row;
    }
    return (sum + kGaussianRound) >> kGaussianShift;
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
  for_filtered_samples(in, out, s, [&](int x, int y, int c) {
    const auto p = [&](int dx, int dy) { return bordered(in, x + dx, y + dy, c, s, border); };
    const int v = kSharpenCentre * p(0, 0) - p(0, -1) - p(0, 1) - p(-1, 0) - p(1, 0);
    return clamp_top<T>(v);
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
  for_filtered_samples(in, out, s, [&](int x, int y, int c) {
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
    return best;
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
            best =
                max(best, static_cast<int>(
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
  gray_kernel<<<grid_2d(shape.width, shape.height), block_2d(), 0, stream>>>(in, out, shape);
  CUDA_CHECK_LAUNCH("deep gray_kernel");
}

void launch_gaussian(const Sample* in, Sample* out, std::uint32_t* row_sums, Shape shape,
                     const GaussianTaps& q, BorderMode border, cudaStream_t stream) {
  const dim3 grid = grid_2d(shape.width, shape.height);
  if (row_sums == nullptr) {
    gaussian_direct_kernel<<<grid, block_2d(), 0, stream>>>(in, out, shape, taps_of(q), border);
    CUDA_CHECK_LAUNCH("deep gaussian_direct_kernel");
    return;
  }
  gaussian_rows_kernel<<<grid, block_2d(), 0, stream>>>(in, row_sums, shape, taps_of(q), border);
  CUDA_CHECK_LAUNCH("deep gaussian_rows_kernel");
  gaussian_columns_kernel<<<grid, block_2d(), 0, stream>>>(in, row_sums, out, shape, taps_of(q),
                                                           border);
  CUDA_CHECK_LAUNCH("deep gaussian_columns_kernel");
}

void launch_sobel(const Sample* gray, Sample* out, Shape shape, BorderMode border,
                  SobelOutput output, cudaStream_t stream) {
  sobel_kernel<<<grid_2d(shape.width, shape.height), block_2d(), 0, stream>>>(gray, out, shape,
                                                                              border, output);
  CUDA_CHECK_LAUNCH("deep sobel_kernel");
}

void launch_sharpen(const Sample* in, Sample* out, Shape shape, BorderMode border,
                    cudaStream_t stream) {
  sharpen_kernel<<<grid_2d(shape.width, shape.height), block_2d(), 0, stream>>>(in, out, shape,
                                                                                border);
  CUDA_CHECK_LAUNCH("deep sharpen_kernel");
}

void launch_morphology(const Sample* in, Sample* out, Shape shape, const std::uint8_t* mask,
                       const StructuringElement& se, MorphOp op, cudaStream_t stream) {
  const Element element{mask, se.width, se.height, se.anchor_x, se.anchor_y};
  morphology_kernel<<<grid_2d(shape.width, shape.height), block_2d(), 0, stream>>>(
      in, out, shape, element, op == MorphOp::erode);
  CUDA_CHECK_LAUNCH("deep morphology_kernel");
}

void launch_pool(const Sample* in, Sample* out, Shape in_shape, Shape out_shape,
                 cudaStream_t stream) {
  pool_kernel<<<grid_2d(out_shape.width, out_shape.height), block_2d(), 0, stream>>>(
      in, out, in_shape, out_shape);
  CUDA_CHECK_LAUNCH("deep pool_kernel");
}

}  // namespace parfilter::cuda::deep16
