// The ops on 16-bit images (docs/FILTERS.md with T = 65535), one work item per output pixel,
// driven by common/kernels/device_chain_16.hpp. The source is generic in the sample type:
// SAMPLE and TOP come from the build options (ushort, 65535). Images are packed rows of `cn`
// interleaved samples; the 2-D kernels run over (width, height) and check their bounds. The
// spec's shared constants (GRAY_*, BORDER_*, SOBEL_*, GAUSSIAN_*) and border_index are
// common.cl's.

#ifndef SAMPLE
#define SAMPLE ushort
#endif
#ifndef TOP
#define TOP 65535
#endif
#define HALF ((TOP + 1) / 2)
#define RGB 3

#define GAUSS_WEIGHT_SUM 256u

// OpenCV 4.6's YCrCb constants (YUV_SHIFT, R2Y ... B_FROM_CB) are the host's, as common.cl's.

#define SHARPEN_CENTRE 5
#define POOL_STRIDE 2

inline size_t deep_at(int x, int y, int width, int cn) {
  return ((size_t)y * (size_t)width + (size_t)x) * (size_t)cn;
}

inline bool deep_filtered(int cn, int c) { return cn <= RGB || c < RGB; }

inline uint deep_bordered(__global const SAMPLE* src, int x, int y, int c, int width, int height,
                          int cn, int kind, uint value) {
  const int bx = border_index(x, width, kind);
  const int by = border_index(y, height, kind);
  if (bx < 0 || by < 0) return value;
  return src[deep_at(bx, by, width, cn) + (size_t)c];
}

inline int deep_clamp(int v) { return v < 0 ? 0 : (v > TOP ? TOP : v); }
inline int deep_descale(int v) { return (v + (1 << (YUV_SHIFT - 1))) >> YUV_SHIFT; }
inline int deep_luma(int r, int g, int b) { return deep_descale(R2Y * r + G2Y * g + B2Y * b); }

// Every channel of pixel (x, y) into dst: filtered ones from VALUE (an expression of c), the
// alpha of RGBA copied. The kernels' names x, y, width, cn, src and dst are its arguments.
#define FOR_FILTERED_SAMPLES(VALUE)                           \
  for (int c = 0; c < cn; ++c) {                              \
    const size_t o = deep_at(x, y, width, cn) + (size_t)c;    \
    dst[o] = deep_filtered(cn, c) ? (SAMPLE)(VALUE) : src[o]; \
  }

__kernel void deep_gray(__global const SAMPLE* src, __global SAMPLE* dst, int width, int height,
                        int cn) {
  const int x = get_global_id(0), y = get_global_id(1);
  if (x >= width || y >= height) return;
  const size_t i = deep_at(x, y, width, cn);
  const uint sum = (uint)GRAY_R * src[i] + (uint)GRAY_G * src[i + 1] + (uint)GRAY_B * src[i + 2] +
                   (1u << (GRAY_SHIFT - 1));
  dst[deep_at(x, y, width, 1)] = (SAMPLE)(sum >> GRAY_SHIFT);
}

// The 5x5 sum of q_i q_j s, as the spec writes it; below 2^32 at 16 bits.
inline uint gaussian_direct_at(__global const SAMPLE* src, int x, int y, int c, int width,
                               int height, int cn, const int* q, int kind, uint value) {
  uint sum = 0;
  for (int i = 0; i < 5; ++i) {
    for (int j = 0; j < 5; ++j) {
      sum +=
          (uint)(q[i] * q[j]) * deep_bordered(src, x + j - GAUSSIAN_RADIUS, y + i - GAUSSIAN_RADIUS,
                                              c, width, height, cn, kind, value);
    }
  }
  return (sum + (1u << (GAUSSIAN_SHIFT - 1))) >> GAUSSIAN_SHIFT;
}

__kernel void deep_gaussian_direct(__global const SAMPLE* src, __global SAMPLE* dst, int width,
                                   int height, int cn, int4 q0123, int q4, int kind, uint value) {
  const int x = get_global_id(0), y = get_global_id(1);
  if (x >= width || y >= height) return;
  const int q[5] = {q0123.x, q0123.y, q0123.z, q0123.w, q4};
  FOR_FILTERED_SAMPLES(gaussian_direct_at(src, x, y, c, width, height, cn, q, kind, value))
}

// The separable form: each row's 5-tap sums (exact, below 2^24), then the column's.
__kernel void deep_gaussian_rows(__global const SAMPLE* src, __global uint* sums, int width,
                                 int height, int cn, int4 q0123, int q4, int kind, uint value) {
  const int x = get_global_id(0), y = get_global_id(1);
  if (x >= width || y >= height) return;
  const int q[5] = {q0123.x, q0123.y, q0123.z, q0123.w, q4};
  for (int c = 0; c < cn; ++c) {
    uint sum = 0;
    for (int j = 0; j < 5; ++j) {
      sum += (uint)q[j] *
             deep_bordered(src, x + j - GAUSSIAN_RADIUS, y, c, width, height, cn, kind, value);
    }
    sums[deep_at(x, y, width, cn) + (size_t)c] = sum;
  }
}

// The column pass over the row sums; a row outside a constant border is V in every tap: 256 V.
inline uint gaussian_column_at(__global const uint* sums, int x, int y, int c, int width,
                               int height, int cn, const int* q, int kind, uint value) {
  uint sum = 0;
  for (int i = 0; i < 5; ++i) {
    const int by = border_index(y + i - GAUSSIAN_RADIUS, height, kind);
    const uint row =
        by < 0 ? GAUSS_WEIGHT_SUM * value : sums[deep_at(x, by, width, cn) + (size_t)c];
    sum += (uint)q[i] * row;
  }
  return (sum + (1u << (GAUSSIAN_SHIFT - 1))) >> GAUSSIAN_SHIFT;
}

__kernel void deep_gaussian_columns(__global const SAMPLE* src, __global const uint* sums,
                                    __global SAMPLE* dst, int width, int height, int cn, int4 q0123,
                                    int q4, int kind, uint value) {
  const int x = get_global_id(0), y = get_global_id(1);
  if (x >= width || y >= height) return;
  const int q[5] = {q0123.x, q0123.y, q0123.z, q0123.w, q4};
  FOR_FILTERED_SAMPLES(gaussian_column_at(sums, x, y, c, width, height, cn, q, kind, value))
}

// filter_math's isqrt_round: round(sqrt(n)), from a float estimate corrected to be exact.
inline uint deep_isqrt_round(ulong n) {
  ulong r = (ulong)sqrt((float)n);
  while (r * r > n) --r;
  while ((r + 1) * (r + 1) <= n) ++r;
  if (n > r * r + r) ++r;
  return (uint)r;
}

__kernel void deep_sobel(__global const SAMPLE* gray, __global SAMPLE* dst, int width, int height,
                         int kind, uint value, int output) {
  const int x = get_global_id(0), y = get_global_id(1);
  if (x >= width || y >= height) return;
#define P(dx, dy) ((int)deep_bordered(gray, x + (dx), y + (dy), 0, width, height, 1, kind, value))
  const int gx = (P(1, -1) + 2 * P(1, 0) + P(1, 1)) - (P(-1, -1) + 2 * P(-1, 0) + P(-1, 1));
  const int gy = (P(-1, 1) + 2 * P(0, 1) + P(1, 1)) - (P(-1, -1) + 2 * P(0, -1) + P(1, -1));
#undef P
  const uint ax = (uint)abs(gx), ay = (uint)abs(gy);
  uint level;
  if (output == SOBEL_MAGNITUDE) {
    level = deep_isqrt_round((ulong)ax * ax + (ulong)ay * ay);
  } else if (output == SOBEL_L1) {
    level = ax + ay;
  } else {
    level = output == SOBEL_DX ? ax : ay;
  }
  dst[deep_at(x, y, width, 1)] = (SAMPLE)min(level, (uint)TOP);
}

inline int sharpen_at(__global const SAMPLE* src, int x, int y, int c, int width, int height,
                      int cn, int kind, uint value) {
#define P(dx, dy) ((int)deep_bordered(src, x + (dx), y + (dy), c, width, height, cn, kind, value))
  const int v = SHARPEN_CENTRE * P(0, 0) - P(0, -1) - P(0, 1) - P(-1, 0) - P(1, 0);
#undef P
  return deep_clamp(v);
}

__kernel void deep_sharpen(__global const SAMPLE* src, __global SAMPLE* dst, int width, int height,
                           int cn, int kind, uint value) {
  const int x = get_global_id(0), y = get_global_id(1);
  if (x >= width || y >= height) return;
  FOR_FILTERED_SAMPLES(sharpen_at(src, x, y, c, width, height, cn, kind, value))
}

// Counts of samples src[first + k * stride], k < count, in 32-bit bins (the host launches at
// most 2^31 samples at a time and sums the launches in 64 bits).
__kernel void deep_histogram(__global const SAMPLE* src, ulong first, int stride, uint count,
                             __global uint* bins) {
  const size_t k = get_global_id(0);
  if (k >= count) return;
  atomic_inc(&bins[src[first + k * (size_t)stride]]);
}

__kernel void deep_luma_histogram(__global const SAMPLE* src, ulong first_pixel, int cn, uint count,
                                  __global uint* bins) {
  const size_t k = get_global_id(0);
  if (k >= count) return;
  const size_t i = (first_pixel + k) * (size_t)cn;
  atomic_inc(&bins[deep_luma(src[i], src[i + 1], src[i + 2])]);
}

__kernel void deep_apply_lut(__global const SAMPLE* src, __global SAMPLE* dst, ulong pixels,
                             __global const ushort* lut) {
  const size_t i = get_global_id(0);
  if (i < pixels) dst[i] = (SAMPLE)lut[src[i]];
}

__kernel void deep_equalize_color(__global const SAMPLE* src, __global SAMPLE* dst, ulong pixels,
                                  int cn, __global const ushort* lut) {
  const size_t p = get_global_id(0);
  if (p >= pixels) return;
  const size_t i = p * (size_t)cn;
  const int r = src[i], g = src[i + 1], b = src[i + 2];
  const int y = deep_luma(r, g, b);
  const int cr = deep_clamp(deep_descale((r - y) * CR_FROM_R_MINUS_Y + (HALF << YUV_SHIFT))) - HALF;
  const int cb = deep_clamp(deep_descale((b - y) * CB_FROM_B_MINUS_Y + (HALF << YUV_SHIFT))) - HALF;
  const int ey = lut[y];
  dst[i] = (SAMPLE)deep_clamp(ey + deep_descale(cr * R_FROM_CR));
  dst[i + 1] = (SAMPLE)deep_clamp(ey + deep_descale(cb * G_FROM_CB + cr * G_FROM_CR));
  dst[i + 2] = (SAMPLE)deep_clamp(ey + deep_descale(cb * B_FROM_CB));
  if (cn > RGB) dst[i + RGB] = src[i + RGB];
}

__kernel void deep_threshold(__global const SAMPLE* gray, __global SAMPLE* dst, ulong pixels,
                             int t) {
  const size_t i = get_global_id(0);
  if (i < pixels) dst[i] = (SAMPLE)((int)gray[i] > t ? TOP : 0);
}

// segment --adaptive: the isodata rounds of filter_math.hpp over the window clipped to the
// image, each round counting the window's values <= t (64 bits hold n * s for any window).
__kernel void deep_adaptive_segment(__global const SAMPLE* gray, __global SAMPLE* dst, int width,
                                    int height, int window, int min_contrast, int global_t) {
  const int x = get_global_id(0), y = get_global_id(1);
  if (x >= width || y >= height) return;
  const int radius = window / 2;
  const int x0 = max(0, x - radius), x1 = min(width - 1, x + radius);
  const int y0 = max(0, y - radius), y1 = min(height - 1, y + radius);
  ulong n = 0, s = 0;
  int lo = TOP, hi = 0;
  for (int yy = y0; yy <= y1; ++yy) {
    for (int xx = x0; xx <= x1; ++xx) {
      const int v = gray[deep_at(xx, yy, width, 1)];
      ++n;
      s += (ulong)v;
      lo = min(lo, v);
      hi = max(hi, v);
    }
  }
  int t = global_t;
  if (hi - lo >= min_contrast) {
    t = (int)(s / n);
    for (int round = 0; round <= TOP; ++round) {
      ulong w1 = 0, s1 = 0;
      for (int yy = y0; yy <= y1; ++yy) {
        for (int xx = x0; xx <= x1; ++xx) {
          const int v = gray[deep_at(xx, yy, width, 1)];
          if (v <= t) {
            ++w1;
            s1 += (ulong)v;
          }
        }
      }
      const ulong w2 = n - w1, s2 = s - s1;
      if (w1 == 0 || w2 == 0) break;
      const int next = (int)((s1 * w2 + s2 * w1) / (2 * w1 * w2));
      if (next == t) break;
      t = next;
    }
  }
  dst[deep_at(x, y, width, 1)] = (SAMPLE)((int)gray[deep_at(x, y, width, 1)] > t ? TOP : 0);
}

// One erosion (erode != 0) or dilation over the element's set pixels inside the image.
inline int morphology_at(__global const SAMPLE* src, int x, int y, int c, int width, int height,
                         int cn, __global const uchar* mask, int se_width, int se_height,
                         int anchor_x, int anchor_y, int erode) {
  int best = erode ? TOP : 0;
  for (int j = 0; j < se_height; ++j) {
    const int yy = y + j - anchor_y;
    if (yy < 0 || yy >= height) continue;
    for (int i = 0; i < se_width; ++i) {
      const int xx = x + i - anchor_x;
      if (xx < 0 || xx >= width || !mask[j * se_width + i]) continue;
      const int v = src[deep_at(xx, yy, width, cn) + (size_t)c];
      best = erode ? min(best, v) : max(best, v);
    }
  }
  return best;
}

__kernel void deep_morphology(__global const SAMPLE* src, __global SAMPLE* dst, int width,
                              int height, int cn, __global const uchar* mask, int se_width,
                              int se_height, int anchor_x, int anchor_y, int erode) {
  const int x = get_global_id(0), y = get_global_id(1);
  if (x >= width || y >= height) return;
  FOR_FILTERED_SAMPLES(morphology_at(src, x, y, c, width, height, cn, mask, se_width, se_height,
                                     anchor_x, anchor_y, erode))
}

// 2x2 max pooling over (out_width, out_height); pixels past the edge are left out.
__kernel void deep_pool(__global const SAMPLE* src, __global SAMPLE* dst, int width, int height,
                        int cn, int out_width, int out_height) {
  const int x = get_global_id(0), y = get_global_id(1);
  if (x >= out_width || y >= out_height) return;
  for (int c = 0; c < cn; ++c) {
    int best = 0;
    for (int dy = 0; dy < POOL_STRIDE; ++dy) {
      for (int dx = 0; dx < POOL_STRIDE; ++dx) {
        const int xx = POOL_STRIDE * x + dx, yy = POOL_STRIDE * y + dy;
        if (xx < width && yy < height)
          best = max(best, (int)src[deep_at(xx, yy, width, cn) + (size_t)c]);
      }
    }
    dst[deep_at(x, y, out_width, cn) + (size_t)c] = (SAMPLE)best;
  }
}
