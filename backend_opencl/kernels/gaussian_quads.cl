// gaussian's quads schedule (RGBA; kernels/gaussian.cl has the others): a work item owns a quad
// of output pixels and a strip of QUAD_STRIP rows. It needs QUAD_STRIP + 4 rows of eight pixel
// words (its quad and two either side); inside the image each row is one 16-byte load and two
// 8-byte ones, which the neighbouring items load too (from the L1 cache), all issued before any
// arithmetic, as sobel's quads. Each row's sums along the row go in two words of 16-bit lanes,
// R|B and G|A (every lane at most 255 * 256), weighted down the columns in 32 bits, as
// gaussian_tile does: out = (sum_j q_j sum_i q_i s(x + i, y + j) + 32768) >> 16, alpha copied.
#define RADIUS GAUSSIAN_RADIUS
#define TAPS (2 * RADIUS + 1)
#define ROUNDING (1 << (GAUSSIAN_SHIFT - 1))
#define QUAD_SPAN (QUAD + 2 * RADIUS)  // pixel columns x - RADIUS .. x + 3 + RADIUS
#define QUAD_ROWS (QUAD_STRIP + 2 * RADIUS)
#define LOW_BYTES 0x00FF00FFu
#define LANE_MASK 0xFFFFu
#define LANE_BITS 16
#define ALPHA_WORD_BYTE 0xFF000000u
#define PAIR 2  // words per uint2: the RADIUS words either side of a quad are one load
#if RADIUS != PAIR
#error "gaussian_quads loads RADIUS words either side of a quad as one uint2"
#endif

// With PTX_PACKED and every weight below 256 (BYTE_WEIGHTS), the column pass takes two rows
// at a time: one channel's row sums of rows t and t + 1 joined into 16-bit lanes by a byte
// permute, times the weights' bytes by one dp2a, as CUDA's kernel does along the row.
#if PTX_PACKED && BYTE_WEIGHTS
#define LANES_LOW 0x5410   // prmt: the low 16-bit lanes of two words
#define LANES_HIGH 0x7632  // prmt: their high lanes
inline uint join_lanes(uint a, uint b, uint selector) {
  uint r;
  asm("prmt.b32 %0, %1, %2, %3;" : "=r"(r) : "r"(a), "r"(b), "r"(selector));
  return r;
}
// acc + w[first] * lane 0 + w[first + 1] * lane 1 of `pair`; `weights` holds w[0..3] as bytes
// (dp2a.lo takes bytes 0 and 1, dp2a.hi bytes 2 and 3).
inline uint dot_lo(uint pair, uint weights, uint acc) {
  uint r;
  asm("dp2a.lo.u32.u32 %0, %1, %2, %3;" : "=r"(r) : "r"(pair), "r"(weights), "r"(acc));
  return r;
}
inline uint dot_hi(uint pair, uint weights, uint acc) {
  uint r;
  asm("dp2a.hi.u32.u32 %0, %1, %2, %3;" : "=r"(r) : "r"(pair), "r"(weights), "r"(acc));
  return r;
}
// One channel of an output down the column: the lane `selector` picks from the row sums
// of rows t .. t + 3 of one pixel, and the lane of row t + 4 (`single`).
#define COLUMN_DOT(s0, s1, s2, s3, selector, single)               \
  (dot_hi(join_lanes(s2, s3, selector), weight_bytes,              \
          dot_lo(join_lanes(s0, s1, selector), weight_bytes, 0)) + \
   (uint)w[4] * (single))
#endif

__kernel void gaussian_quads(__global const uint* restrict src, __global uint* restrict dst,
                             int width, int height, int border_kind, int border_value, int8 q) {
  const int w[TAPS] = {q.s0, q.s1, q.s2, q.s3, q.s4};
#if PTX_PACKED && BYTE_WEIGHTS
  const uint weight_bytes = (uint)q.s0 | (uint)q.s1 << 8 | (uint)q.s2 << 16 | (uint)q.s3 << 24;
#endif
  const int x = get_global_id(0) * QUAD;
  const int y0 = get_global_id(1) * QUAD_STRIP;
  if (x >= width || y0 >= height) return;
  uint p[QUAD_ROWS][QUAD_SPAN];  // rows y0 - RADIUS .., columns x - RADIUS ..
  if (width % QUAD == 0 && x >= QUAD && x + QUAD + RADIUS <= width && y0 >= RADIUS &&
      y0 + QUAD_STRIP + RADIUS <= height) {
#pragma unroll
    for (int t = 0; t < QUAD_ROWS; ++t) {
      const size_t at = (size_t)(y0 - RADIUS + t) * width + x;  // a multiple of 4
      const uint2 left = ((__global const uint2*)src)[(at - PAIR) / PAIR];
      const uint4 quad = ((__global const uint4*)src)[at / QUAD];
      const uint2 right = ((__global const uint2*)src)[(at + QUAD) / PAIR];
      p[t][0] = left.x;
      p[t][1] = left.y;
      p[t][2] = quad.s0;
      p[t][3] = quad.s1;
      p[t][4] = quad.s2;
      p[t][5] = quad.s3;
      p[t][6] = right.x;
      p[t][7] = right.y;
    }
  } else {
    const uint border_word = (uint)border_value * 0x01010101u;
#pragma unroll  // constant indices keep p in registers
    for (int t = 0; t < QUAD_ROWS; ++t) {
      load_bordered_words(src, x - RADIUS, y0 - RADIUS + t, QUAD_SPAN, width, height, border_kind,
                          border_word, p[t]);
    }
  }
  uint red_blue[QUAD_ROWS][QUAD];  // each row's sums along the row
  uint green_alpha[QUAD_ROWS][QUAD];
#pragma unroll
  for (int t = 0; t < QUAD_ROWS; ++t) {
#pragma unroll
    for (int i = 0; i < QUAD; ++i) {
      uint rb = 0;
      uint ga = 0;
#pragma unroll
      for (int k = 0; k < TAPS; ++k) {
        rb += (uint)w[k] * (p[t][i + k] & LOW_BYTES);
        ga += (uint)w[k] * ((p[t][i + k] >> 8) & LOW_BYTES);
      }
      red_blue[t][i] = rb;
      green_alpha[t][i] = ga;
    }
  }
#pragma unroll
  for (int t = 0; t < QUAD_STRIP; ++t) {
    const int y = y0 + t;
    if (y < height) {
      uint out[QUAD];
#pragma unroll
      for (int i = 0; i < QUAD; ++i) {
#if PTX_PACKED && BYTE_WEIGHTS
        const uint red = COLUMN_DOT(red_blue[t][i], red_blue[t + 1][i], red_blue[t + 2][i],
                                    red_blue[t + 3][i], LANES_LOW, red_blue[t + 4][i] & LANE_MASK);
        const uint green =
            COLUMN_DOT(green_alpha[t][i], green_alpha[t + 1][i], green_alpha[t + 2][i],
                       green_alpha[t + 3][i], LANES_LOW, green_alpha[t + 4][i] & LANE_MASK);
        const uint blue =
            COLUMN_DOT(red_blue[t][i], red_blue[t + 1][i], red_blue[t + 2][i], red_blue[t + 3][i],
                       LANES_HIGH, red_blue[t + 4][i] >> LANE_BITS);
#else
        uint red = 0;
        uint green = 0;
        uint blue = 0;
#pragma unroll
        for (int j = 0; j < TAPS; ++j) {
          red += (uint)w[j] * (red_blue[t + j][i] & LANE_MASK);
          green += (uint)w[j] * (green_alpha[t + j][i] & LANE_MASK);
          blue += (uint)w[j] * (red_blue[t + j][i] >> LANE_BITS);
        }
#endif
        out[i] = (p[t + RADIUS][i + RADIUS] & ALPHA_WORD_BYTE) |
                 (red + ROUNDING) >> GAUSSIAN_SHIFT | ((green + ROUNDING) >> GAUSSIAN_SHIFT) << 8 |
                 ((blue + ROUNDING) >> GAUSSIAN_SHIFT) << 16;
      }
      store_word_quad(dst, x, y, width, (uint4)(out[0], out[1], out[2], out[3]));
    }
  }
}
