// 5x5 Gaussian blur: out = (sum_j sum_i q_j q_i s(x + i, y + j) + 32768) >> 16 per colour
// channel, alpha copied. The weights q (filter_math's gaussian_weights) come from the host in
// the first five lanes of an int8, GAUSSIAN_RADIUS and GAUSSIAN_SHIFT from filter_math.hpp.
// Three schedules of the same integer sum.
#define RADIUS GAUSSIAN_RADIUS
#define TAPS (2 * RADIUS + 1)
#define ROUNDING (1 << (GAUSSIAN_SHIFT - 1))

inline void weights_of(int8 q, int* w) {
  w[0] = q.s0;
  w[1] = q.s1;
  w[2] = q.s2;
  w[3] = q.s3;
  w[4] = q.s4;
}

// The border-mapped columns and rows around (x, y): -1 where the border value is read.
inline void mapped_taps(int x, int y, int width, int height, int border_kind, int* bx, int* by) {
  for (int k = 0; k < TAPS; ++k) {
    bx[k] = border_index(x + k - RADIUS, width, border_kind);
    by[k] = border_index(y + k - RADIUS, height, border_kind);
  }
}

inline void copy_alpha(__global const uchar* src, __global uchar* dst, int x, int y, int width) {
#if HAS_ALPHA
  dst[sample_at(x, y, ALPHA, width)] = src[sample_at(x, y, ALPHA, width)];
#endif
}

// direct: the 25 products per pixel.
__kernel void gaussian_direct(__global const uchar* src, __global uchar* dst, int width, int height,
                              int border_kind, int border_value, int8 q) {
  const int x = get_global_id(0);
  const int y = get_global_id(1);
  if (x >= width || y >= height) return;
  int w[TAPS];
  int bx[TAPS];
  int by[TAPS];
  weights_of(q, w);
  mapped_taps(x, y, width, height, border_kind, bx, by);
  for (int c = 0; c < FCN; ++c) {
    int sum = 0;
    for (int j = 0; j < TAPS; ++j) {
      for (int i = 0; i < TAPS; ++i) {
        sum += w[j] * w[i] * mapped_sample(src, bx[i], by[j], c, width, border_value);
      }
    }
    dst[sample_at(x, y, c, width)] = (uchar)((sum + ROUNDING) >> GAUSSIAN_SHIFT);
  }
  copy_alpha(src, dst, x, y, width);
}

// lut: each product w(i, j) v read from a constant-memory table lut[class][v] of the 6
// distinct weights (filter_math's gaussian_lut); weight_class[j * 5 + i] says which.
__kernel void gaussian_lut(__global const uchar* src, __global uchar* dst, int width, int height,
                           int border_kind, int border_value, __constant uint* lut,
                           __constant int* weight_class) {
  const int x = get_global_id(0);
  const int y = get_global_id(1);
  if (x >= width || y >= height) return;
  int bx[TAPS];
  int by[TAPS];
  mapped_taps(x, y, width, height, border_kind, bx, by);
  for (int c = 0; c < FCN; ++c) {
    uint sum = 0;
    for (int j = 0; j < TAPS; ++j) {
      for (int i = 0; i < TAPS; ++i) {
        const int v = mapped_sample(src, bx[i], by[j], c, width, border_value);
        sum += lut[weight_class[j * TAPS + i] * BINS + v];
      }
    }
    dst[sample_at(x, y, c, width)] = (uchar)((sum + ROUNDING) >> GAUSSIAN_SHIFT);
  }
  copy_alpha(src, dst, x, y, width);
}

// separable: the tile and its 2-pixel apron in local memory (bordered as the 2-D sum reads
// it, so rows outside the image hold their border samples), a row pass r = sum_i q_i s over
// the apron's rows (at most 65280: ushort), then a column pass; nothing is rounded between.
#define APRON_W (TILE_W + 2 * RADIUS)
#define APRON_H (TILE_H + 2 * RADIUS)
__kernel __attribute__((reqd_work_group_size(TILE_W, TILE_H, 1))) void gaussian_separable(
    __global const uchar* src, __global uchar* dst, int width, int height, int border_kind,
    int border_value, int8 q) {
  __local uchar tile[APRON_H * APRON_W * CN];
  __local ushort rows[APRON_H * TILE_W * FCN];
  int w[TAPS];
  weights_of(q, w);
  load_tile(tile, src, get_group_id(0) * TILE_W - RADIUS, get_group_id(1) * TILE_H - RADIUS,
            APRON_W, APRON_H, width, height, border_kind, border_value);
  const int lid = get_local_id(1) * TILE_W + get_local_id(0);
  const int group = TILE_W * TILE_H;
  const int row_samples = TILE_W * FCN;
  for (int i = lid; i < APRON_H * row_samples; i += group) {
    const int ty = i / row_samples;
    const int tx = (i - ty * row_samples) / FCN;
    const int c = i % FCN;
    int sum = 0;
    for (int k = 0; k < TAPS; ++k) sum += w[k] * tile[(ty * APRON_W + tx + k) * CN + c];
    rows[i] = (ushort)sum;
  }
  barrier(CLK_LOCAL_MEM_FENCE);
  const int x = get_global_id(0);
  const int y = get_global_id(1);
  if (x >= width || y >= height) return;
  const int tx = get_local_id(0);
  const int ty = get_local_id(1);
  for (int c = 0; c < FCN; ++c) {
    int sum = 0;
    for (int k = 0; k < TAPS; ++k) sum += w[k] * rows[((ty + k) * TILE_W + tx) * FCN + c];
    dst[sample_at(x, y, c, width)] = (uchar)((sum + ROUNDING) >> GAUSSIAN_SHIFT);
  }
  copy_alpha(src, dst, x, y, width);
}

// strip: separable in registers. A work item walks STRIP output rows of one column, keeping the
// row sums r = sum_i q_i s(x + i, y) of the five rows around the current one: each new row
// costs one row sum (5 samples) and one column sum, and neighbouring items read neighbouring
// pixels. The border-mapped columns are found once per item.
inline void row_sums(__global const uchar* src, const int* bx, int y, int width, int height,
                     int border_kind, int border_value, const int* w, int* sums) {
  const int by = border_index(y, height, border_kind);
  for (int c = 0; c < FCN; ++c) {
    int sum = 0;
    for (int i = 0; i < TAPS; ++i)
      sum += w[i] * mapped_sample(src, bx[i], by, c, width, border_value);
    sums[c] = sum;
  }
}

__kernel void gaussian_strip(__global const uchar* src, __global uchar* dst, int width, int height,
                             int border_kind, int border_value, int8 q) {
  const int x = get_global_id(0);
  const int y0 = get_global_id(1) * STRIP;
  if (x >= width || y0 >= height) return;
  int w[TAPS];
  int bx[TAPS];
  weights_of(q, w);
  for (int i = 0; i < TAPS; ++i) bx[i] = border_index(x + i - RADIUS, width, border_kind);
  int sums[TAPS][FCN];  // rows y - 2 .. y + 2
  for (int k = 0; k < TAPS - 1; ++k) {
    row_sums(src, bx, y0 - RADIUS + k, width, height, border_kind, border_value, w, sums[k + 1]);
  }
  const int y_end = min(height, y0 + STRIP);
  for (int y = y0; y < y_end; ++y) {
    for (int k = 0; k < TAPS - 1; ++k) {  // slide the window down one row
      for (int c = 0; c < FCN; ++c) sums[k][c] = sums[k + 1][c];
    }
    row_sums(src, bx, y + RADIUS, width, height, border_kind, border_value, w, sums[TAPS - 1]);
    for (int c = 0; c < FCN; ++c) {
      int sum = 0;
      for (int k = 0; k < TAPS; ++k) sum += w[k] * sums[k][c];
      dst[sample_at(x, y, c, width)] = (uchar)((sum + ROUNDING) >> GAUSSIAN_SHIFT);
    }
    copy_alpha(src, dst, x, y, width);
  }
}

// vector: 16 consecutive samples of a row per work item (the channels interleaved: a pixel's
// neighbours are CN samples away), walking STRIP rows with the five row sums in int16
// registers: five unaligned vload16 per row. A row outside the image is its mapped row, or
// the constant row whose sum is 256 V. Samples near the left and right edges and the row's
// tail take the 25-tap scalar path.
#define VLANES 16

inline int gaussian_sample(__global const uchar* src, int x, int y, int c, int width, int height,
                           int border_kind, int border_value, const int* w) {
  int sum = 0;
  for (int j = 0; j < TAPS; ++j) {
    const int by = border_index(y + j - RADIUS, height, border_kind);
    for (int i = 0; i < TAPS; ++i) {
      const int bx = border_index(x + i - RADIUS, width, border_kind);
      sum += w[j] * w[i] * mapped_sample(src, bx, by, c, width, border_value);
    }
  }
  return (sum + ROUNDING) >> GAUSSIAN_SHIFT;
}

inline int16 vector_row_sum(__global const uchar* src, int by, int s0, int row_samples,
                            int border_value, const int* w) {
  if (by < 0) return (int16)((w[0] + w[1] + w[2] + w[3] + w[4]) * border_value);
  const __global uchar* p = src + (size_t)by * row_samples + s0;
  return w[0] * convert_int16(vload16(0, p - 2 * CN)) + w[1] * convert_int16(vload16(0, p - CN)) +
         w[2] * convert_int16(vload16(0, p)) + w[3] * convert_int16(vload16(0, p + CN)) +
         w[4] * convert_int16(vload16(0, p + 2 * CN));
}

__kernel void gaussian_vector(__global const uchar* src, __global uchar* dst, int width, int height,
                              int border_kind, int border_value, int8 q) {
  const int s0 = get_global_id(0) * VLANES;
  const int y0 = get_global_id(1) * STRIP;
  const int row_samples = width * CN;
  if (s0 >= row_samples || y0 >= height) return;
  const int y_end = min(height, y0 + STRIP);
  int w[TAPS];
  weights_of(q, w);
  if (s0 < RADIUS * CN || s0 + VLANES + RADIUS * CN > row_samples) {
    for (int y = y0; y < y_end; ++y) {
      for (int s = s0; s < min(s0 + VLANES, row_samples); ++s) {
        const int c = s % CN;
        const size_t at = (size_t)y * row_samples + s;
        dst[at] = (HAS_ALPHA && c == ALPHA)
                      ? src[at]
                      : (uchar)gaussian_sample(src, s / CN, y, c, width, height, border_kind,
                                               border_value, w);
      }
    }
    return;
  }
  int16 sums[TAPS];  // rows y - 2 .. y + 2
  for (int k = 1; k < TAPS; ++k) {
    sums[k] = vector_row_sum(src, border_index(y0 - RADIUS + k - 1, height, border_kind), s0,
                             row_samples, border_value, w);
  }
  for (int y = y0; y < y_end; ++y) {
    for (int k = 0; k < TAPS - 1; ++k) sums[k] = sums[k + 1];
    sums[TAPS - 1] = vector_row_sum(src, border_index(y + RADIUS, height, border_kind), s0,
                                    row_samples, border_value, w);
    const int16 sum =
        w[0] * sums[0] + w[1] * sums[1] + w[2] * sums[2] + w[3] * sums[3] + w[4] * sums[4];
    uchar16 out = convert_uchar16((sum + ROUNDING) >> GAUSSIAN_SHIFT);
#if HAS_ALPHA  // s0 is a multiple of 16: lanes 3, 7, 11, 15 are alpha
    const uchar16 centre = vload16(0, src + (size_t)y * row_samples + s0);
    out = select(out, centre, (uchar16)(0, 0, 0, 255, 0, 0, 0, 255, 0, 0, 0, 255, 0, 0, 0, 255));
#endif
    vstore16(out, 0, dst + (size_t)y * row_samples + s0);
  }
}

// tile (RGBA): a work item per output column streams down a strip of TILE_STRIP rows, the rows
// (strip plus apron, bordered) in local memory TILE_CHUNK rows at a time. Each input row's sums
// along the row are taken in two words of 16-bit lanes, R|B and G|A (every lane at most
// 255 * 256), kept for the TAPS rows an output needs in a ring of registers whose slots rotate
// with the row's position in its run of TAPS rows (compile-time once unrolled), and weighted
// down the column in 32 bits when the output is due.
#ifdef TILE_ITEMS
#define APRON QUAD  // words loaded either side of the strip: a whole quad, at least RADIUS
#define TILE_COLS (TILE_ITEMS + 2 * APRON)
#define LOW_BYTES 0x00FF00FFu
#define LANE_MASK 0xFFFFu
#define LANE_BITS 16
#define ALPHA_WORD_BYTE 0xFF000000u

__kernel __attribute__((reqd_work_group_size(TILE_ITEMS, 1, 1))) void gaussian_tile(
    __global const uint* restrict src, __global uint* restrict dst, int width, int height,
    int border_kind, int border_value, int8 q) {
  __local uint4 tile_quads[TILE_CHUNK * TILE_COLS / QUAD];
  __local uint* tile = (__local uint*)tile_quads;
  int w[TAPS];
  weights_of(q, w);
  const int tid = get_local_id(0);
  const int x0 = get_group_id(0) * TILE_ITEMS;
  const int y0 = get_group_id(1) * TILE_STRIP;
  const int x = x0 + tid;
  // Stream row t is image row y0 - RADIUS + t; it completes output row y0 + t - 2 RADIUS.
  const int input_rows = min(TILE_STRIP, height - y0) + 2 * RADIUS;
  uint red_blue[TAPS];  // slot t % TAPS: stream row t's sums along the row
  uint green_alpha[TAPS];
  uint centre[TAPS];  // slot t % TAPS: stream row t's own pixel (an output keeps its alpha)
  for (int q0 = 0; q0 < input_rows; q0 += TILE_CHUNK) {
    const int rows = min(TILE_CHUNK, input_rows - q0);
    barrier(CLK_LOCAL_MEM_FENCE);  // the previous chunk's rows are read
    load_word_rows(tile, src, x0 - APRON, y0 - RADIUS + q0, TILE_COLS, rows, width, height,
                   border_kind, (uint)border_value * 0x01010101u);
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int s = 0; s < rows; s += TAPS) {  // chunks hold whole runs of TAPS rows
#pragma unroll
      for (int r = 0; r < TAPS; ++r) {
        if (s + r < rows) {
          __local const uint* at = tile + (s + r) * TILE_COLS + APRON - RADIUS + tid;
          uint rb = 0;
          uint ga = 0;
#pragma unroll
          for (int i = 0; i < TAPS; ++i) {
            const uint v = at[i];
            rb += (uint)w[i] * (v & LOW_BYTES);
            ga += (uint)w[i] * ((v >> 8) & LOW_BYTES);
          }
          red_blue[r] = rb;
          green_alpha[r] = ga;
          centre[r] = at[RADIUS];
          // The output due now: rows t - 2 RADIUS .. t, its own row t - RADIUS.
          const int y = y0 + q0 + s + r - 2 * RADIUS;
          if (x < width && y >= y0) {
            uint sum[FCN] = {0, 0, 0};
#pragma unroll
            for (int j = 0; j < TAPS; ++j) {
              const int slot = (r + TAPS - 2 * RADIUS + j) % TAPS;  // stream row t - 2 RADIUS + j
              sum[0] += (uint)w[j] * (red_blue[slot] & LANE_MASK);
              sum[1] += (uint)w[j] * (green_alpha[slot] & LANE_MASK);
              sum[2] += (uint)w[j] * (red_blue[slot] >> LANE_BITS);
            }
            uint out = centre[(r + TAPS - RADIUS) % TAPS] & ALPHA_WORD_BYTE;
#pragma unroll
            for (int c = 0; c < FCN; ++c) out |= ((sum[c] + ROUNDING) >> GAUSSIAN_SHIFT) << (8 * c);
            dst[(size_t)y * width + x] = out;
          }
        }
      }
    }
  }
}
#endif
