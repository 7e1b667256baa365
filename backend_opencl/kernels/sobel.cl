// sobel: gx, gy of the 3x3 Sobel operators on the gray image, output by SOBEL_MODE (one of
// SOBEL_MAGNITUDE, _L1, _DX, _DY; a program per mode, so that no pixel branches on it) as
// filter_math's sobel_value: magnitude = min(255, round(sqrt(gx^2 + gy^2))) exactly, l1, dx, dy.
// On a gray plane: one pixel per work item (scalar), 16 with vload16. From the image, the gray
// made on the fly: tile (a column per work item, rows through local memory) and quads (four
// columns per work item, rows in registers).

// Above 255^2 + 255 the rounded root is 256 or more: saturated.
#define SATURATED_SQUARE (UCHAR_MAX * UCHAR_MAX + UCHAR_MAX)

// round(sqrt(n)) for n <= SATURATED_SQUARE straight from the float root: n is exact as a float,
// sqrt(n) lies at least 1/4 / (2 * 255.5) > 4.8e-4 from any half-integer (|n - (c + 1/2)^2| >=
// 1/4), and OpenCL's sqrt is within 3 ulp (under 4.6e-5 below 256), so rounding it is exact.
// The conversions go through 2^23, where floats are the integers: for n < 2^23 (here at most
// 2 * 1020^2) n's bits under the exponent of 2^23 are n itself, and adding 2^23 to the root
// rounds it to the nearest integer (never a tie, as above) in the low bits; integer and float
// adds instead of the slower conversions.
#define INTEGER_FLOATS 8388608.0f       // 2^23
#define INTEGER_FLOATS_BITS 0x4B000000  // its bits
inline uchar sobel_value(int gx, int gy) {
#if SOBEL_MODE == SOBEL_L1
  return convert_uchar_sat(abs(gx) + abs(gy));
#elif SOBEL_MODE == SOBEL_DX
  return convert_uchar_sat(abs(gx));
#elif SOBEL_MODE == SOBEL_DY
  return convert_uchar_sat(abs(gy));
#else
  const int n = gx * gx + gy * gy;
  const float root = sqrt(as_float(n | INTEGER_FLOATS_BITS) - INTEGER_FLOATS);
  return n > SATURATED_SQUARE ? UCHAR_MAX
                              : (uchar)(as_int(root + INTEGER_FLOATS) - INTEGER_FLOATS_BITS);
#endif
}

inline uchar sobel_at(__global const uchar* gray, int x, int y, int width, int height,
                      int border_kind, int border_value) {
  int v[3][3];
  for (int j = 0; j < 3; ++j) {
    for (int i = 0; i < 3; ++i) {
      v[j][i] =
          bordered_sample(gray, x + i - 1, y + j - 1, 0, width, height, border_kind, border_value);
    }
  }
  const int gx = (v[0][2] + 2 * v[1][2] + v[2][2]) - (v[0][0] + 2 * v[1][0] + v[2][0]);
  const int gy = (v[2][0] + 2 * v[2][1] + v[2][2]) - (v[0][0] + 2 * v[0][1] + v[0][2]);
  return sobel_value(gx, gy);
}

__kernel void sobel_scalar(__global const uchar* gray, __global uchar* dst, int width, int height,
                           int border_kind, int border_value) {
  const int x = get_global_id(0);
  const int y = get_global_id(1);
  if (x >= width || y >= height) return;
  dst[(size_t)y * width + x] = sobel_at(gray, x, y, width, height, border_kind, border_value);
}

#define LANES 16

inline uchar16 sobel_values16(short16 gx, short16 gy) {
#if SOBEL_MODE == SOBEL_L1
  return convert_uchar16_sat(convert_int16(abs(gx)) + convert_int16(abs(gy)));
#elif SOBEL_MODE == SOBEL_DX
  return convert_uchar16_sat(abs(gx));
#elif SOBEL_MODE == SOBEL_DY
  return convert_uchar16_sat(abs(gy));
#else
  const int16 ax = convert_int16(abs(gx));
  const int16 ay = convert_int16(abs(gy));
  const int16 n = ax * ax + ay * ay;
  int16 k = convert_int16(sqrt(convert_float16(n)));
  k = select(k, k - 1, k * k > n);  // the float root is within one of floor(sqrt(n))
  k = select(k, k + 1, (k + 1) * (k + 1) <= n);
  return convert_uchar16_sat(select(k, k + 1, n > k * k + k));
#endif
}

// vload16: pixels x0..x0+15 of row y. Inside the image, nine unaligned vload16 give the 3x3
// neighbourhoods of all 16; at an image edge and in the row's tail each pixel takes the
// scalar path.
__kernel void sobel_vload16(__global const uchar* gray, __global uchar* dst, int width, int height,
                            int border_kind, int border_value) {
  const int x0 = get_global_id(0) * LANES;
  const int y = get_global_id(1);
  if (x0 >= width || y >= height) return;
  const size_t row = (size_t)y * width;
  if (x0 >= 1 && x0 + LANES < width && y >= 1 && y + 1 < height) {
    const __global uchar* mid = gray + row + x0;
    const __global uchar* up = mid - width;
    const __global uchar* down = mid + width;
    const short16 l0 = convert_short16(vload16(0, up - 1));
    const short16 c0 = convert_short16(vload16(0, up));
    const short16 r0 = convert_short16(vload16(0, up + 1));
    const short16 l1 = convert_short16(vload16(0, mid - 1));
    const short16 r1 = convert_short16(vload16(0, mid + 1));
    const short16 l2 = convert_short16(vload16(0, down - 1));
    const short16 c2 = convert_short16(vload16(0, down));
    const short16 r2 = convert_short16(vload16(0, down + 1));
    const short16 gx = (r0 + (short)2 * r1 + r2) - (l0 + (short)2 * l1 + l2);
    const short16 gy = (l2 + (short)2 * c2 + r2) - (l0 + (short)2 * c0 + r0);
    vstore16(sobel_values16(gx, gy), 0, dst + row + x0);
    return;
  }
  for (int x = x0; x < min(x0 + LANES, width); ++x) {
    dst[row + x] = sobel_at(gray, x, y, width, height, border_kind, border_value);
  }
}

// The gray of a pixel of the image, for the kernels that make it on the fly.
inline int gray_at(__global const uchar* src, int x, int y, int width) {
#if CN == 1
  return src[(size_t)y * width + x];
#elif CN == 4
  return gray_of_word(((__global const uint*)src)[(size_t)y * width + x]);
#else
  const __global uchar* p = src + sample_at(x, y, 0, width);
  return gray_of(p[0], p[1], p[2]);
#endif
}

// tile: the gray formed on the fly from the image (any channel count; RGBA read as words). A
// work item per output column streams down a strip of TILE_STRIP rows, the gray rows (strip plus
// apron, bordered) in local memory TILE_CHUNK rows at a time. Each gray row feeds the three
// output rows it belongs to, as the row above (gx += d, gy -= m), the middle row (gx += 2 d) and
// the row below (gx += d, gy += m), with d = right - left and m = left + 2 centre + right; the
// partial gradients wait in a ring of registers whose slots rotate with the row's position in
// its run of three (compile-time once unrolled).
#ifdef TILE_ITEMS
#define APRON QUAD  // gray samples loaded either side of the strip: a whole quad
#define TILE_COLS (TILE_ITEMS + 2 * APRON)
#define ROWS 3

// The gray of `rows` rows of TILE_COLS pixels from image column x0, row y0 into `tile`, every
// work item of the group taking part; coordinates outside the image are mapped by the border
// (which applies to the gray image: border_value is a gray sample). RGBA rows wholly inside the
// image go a quad of pixels per 16-byte load, as load_word_rows does for words.
inline void load_gray_rows(__local int4* tile_quads, __global const uchar* src, int x0, int y0,
                           int rows, int width, int height, int border_kind, int border_value) {
  __local int* tile = (__local int*)tile_quads;
  const int tid = get_local_id(0);
  const bool inside = x0 >= 0 && y0 >= 0 && x0 + TILE_COLS <= width && y0 + rows <= height;
  // Two loops in sequence, each empty when the other runs (see load_word_rows).
  const bool by_quads = CN == 4 && inside && width % QUAD == 0;
  __global const uint4* from = (__global const uint4*)src;
  const int quad_count = by_quads ? rows * (TILE_COLS / QUAD) : 0;
  for (int i = tid; i < quad_count; i += TILE_ITEMS) {
    const int r = i / (TILE_COLS / QUAD);
    const uint4 v = from[((size_t)(y0 + r) * width + x0) / QUAD + (i - r * (TILE_COLS / QUAD))];
    tile_quads[i] =
        (int4)(gray_of_word(v.s0), gray_of_word(v.s1), gray_of_word(v.s2), gray_of_word(v.s3));
  }
  const int word_count = by_quads ? 0 : rows * TILE_COLS;
  for (int i = tid; i < word_count; i += TILE_ITEMS) {
    const int r = i / TILE_COLS;
    const int sx = x0 + (i - r * TILE_COLS);
    const int sy = y0 + r;
    if (inside) {
      tile[i] = gray_at(src, sx, sy, width);
    } else {
      const int bx = border_index(sx, width, border_kind);
      const int by = border_index(sy, height, border_kind);
      tile[i] = bx < 0 || by < 0 ? border_value : gray_at(src, bx, by, width);
    }
  }
}

__kernel __attribute__((reqd_work_group_size(TILE_ITEMS, 1, 1))) void sobel_tile(
    __global const uchar* restrict src, __global uchar* restrict dst, int width, int height,
    int border_kind, int border_value) {
  __local int4 tile_quads[TILE_CHUNK * TILE_COLS / QUAD];
  __local int* tile = (__local int*)tile_quads;
  const int tid = get_local_id(0);
  const int x0 = get_group_id(0) * TILE_ITEMS;
  const int y0 = get_group_id(1) * TILE_STRIP;
  const int x = x0 + tid;
  // Stream row t is gray row y0 - 1 + t; it completes output row y0 + t - 2.
  const int input_rows = min(TILE_STRIP, height - y0) + 2;
  int gx[ROWS];  // slot t % ROWS: the output completed at stream row t
  int gy[ROWS];
#pragma unroll
  for (int k = 0; k < ROWS; ++k) gx[k] = gy[k] = 0;
  for (int q0 = 0; q0 < input_rows; q0 += TILE_CHUNK) {
    const int rows = min(TILE_CHUNK, input_rows - q0);
    barrier(CLK_LOCAL_MEM_FENCE);  // the previous chunk's rows are read
    load_gray_rows(tile_quads, src, x0 - APRON, y0 - 1 + q0, rows, width, height, border_kind,
                   border_value);
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int s = 0; s < rows; s += ROWS) {  // chunks hold whole runs of three rows
#pragma unroll
      for (int r = 0; r < ROWS; ++r) {
        if (s + r < rows) {
          __local const int* at = tile + (s + r) * TILE_COLS + APRON + tid;
          const int d = at[1] - at[-1];
          const int m = at[-1] + 2 * at[0] + at[1];
          gx[r] += d;  // as the row below the output due now
          gy[r] += m;
          gx[(r + 1) % ROWS] += 2 * d;  // as the middle row
          gx[(r + 2) % ROWS] += d;      // as the row above
          gy[(r + 2) % ROWS] -= m;
          const int y = y0 + q0 + s + r - 2;
          if (x < width && y >= y0) dst[(size_t)y * width + x] = sobel_value(gx[r], gy[r]);
          gx[r] = gy[r] = 0;
        }
      }
    }
  }
}
#endif

// quads: a work item owns a quad of output columns and a strip of QUAD_STRIP rows. It needs the
// gray of QUAD_STRIP + 2 rows of six columns (its quad and one either side); inside the image
// each row is one 16-byte load (RGBA) or a word (gray) and two single pixels, which the
// neighbouring items load too (from the L1 cache), all issued before any arithmetic: no local
// memory, no barrier. Short strips keep many items in flight, which the loads need. The four
// outputs leave as one word.
#ifdef QUAD_STRIP
#define QUAD_SPAN (QUAD + 2)  // gray columns x - 1 .. x + 4
#define QUAD_ROWS (QUAD_STRIP + 2)

// Output row y's quad from the gray rows above, at and below it.
inline uint sobel_quad(const int* up, const int* mid, const int* down) {
  uint out = 0;
#pragma unroll
  for (int i = 0; i < QUAD; ++i) {
    const int gx = (up[i + 2] + 2 * mid[i + 2] + down[i + 2]) - (up[i] + 2 * mid[i] + down[i]);
    const int gy = (down[i] + 2 * down[i + 1] + down[i + 2]) - (up[i] + 2 * up[i + 1] + up[i + 2]);
    out |= (uint)sobel_value(gx, gy) << (8 * i);
  }
  return out;
}

inline void store_quad(__global uchar* dst, int x, int y, int width, uint out) {
  if (x + QUAD <= width && width % QUAD == 0) {
    ((__global uint*)dst)[((size_t)y * width + x) / QUAD] = out;
  } else {
    for (int i = 0; i < QUAD && x + i < width; ++i) {
      dst[(size_t)y * width + x + i] = (uchar)(out >> (8 * i));
    }
  }
}

// Gray row y, columns x - 1 .. x + 4, through the border where it leaves the image.
inline void bordered_gray_span(__global const uchar* src, int x, int y, int width, int height,
                               int border_kind, int border_value, int* g) {
  const int by = border_index(y, height, border_kind);
#pragma unroll
  for (int i = 0; i < QUAD_SPAN; ++i) {
    const int bx = border_index(x - 1 + i, width, border_kind);
    g[i] = bx < 0 || by < 0 ? border_value : gray_at(src, bx, by, width);
  }
}

__kernel void sobel_quads(__global const uchar* restrict src, __global uchar* restrict dst,
                          int width, int height, int border_kind, int border_value) {
  const int x = get_global_id(0) * QUAD;
  const int y0 = get_global_id(1) * QUAD_STRIP;
  if (x >= width || y0 >= height) return;
  int g[QUAD_ROWS][QUAD_SPAN];  // gray rows y0 - 1 .. y0 + QUAD_STRIP
  if (CN != 3 && width % QUAD == 0 && x >= QUAD && x + QUAD < width && y0 >= 1 &&
      y0 + QUAD_STRIP < height) {
#if CN == 4
    __global const uint* words = (__global const uint*)src;
    uint4 quad[QUAD_ROWS];
    uint left[QUAD_ROWS];
    uint right[QUAD_ROWS];
#pragma unroll
    for (int t = 0; t < QUAD_ROWS; ++t) {
      const size_t at = (size_t)(y0 - 1 + t) * width + x;
      quad[t] = ((__global const uint4*)src)[at / QUAD];
      left[t] = words[at - 1];
      right[t] = words[at + QUAD];
    }
#pragma unroll
    for (int t = 0; t < QUAD_ROWS; ++t) {
      g[t][0] = gray_of_word(left[t]);
      g[t][1] = gray_of_word(quad[t].s0);
      g[t][2] = gray_of_word(quad[t].s1);
      g[t][3] = gray_of_word(quad[t].s2);
      g[t][4] = gray_of_word(quad[t].s3);
      g[t][QUAD_SPAN - 1] = gray_of_word(right[t]);
    }
#else
    uint quad[QUAD_ROWS];
    uchar left[QUAD_ROWS];
    uchar right[QUAD_ROWS];
#pragma unroll
    for (int t = 0; t < QUAD_ROWS; ++t) {
      const size_t at = (size_t)(y0 - 1 + t) * width + x;
      quad[t] = ((__global const uint*)src)[at / QUAD];
      left[t] = src[at - 1];
      right[t] = src[at + QUAD];
    }
#pragma unroll
    for (int t = 0; t < QUAD_ROWS; ++t) {
      g[t][0] = left[t];
#pragma unroll
      for (int i = 0; i < QUAD; ++i) g[t][i + 1] = (quad[t] >> (8 * i)) & UCHAR_MAX;
      g[t][QUAD_SPAN - 1] = right[t];
    }
#endif
  } else {
#pragma unroll  // constant indices keep g in registers
    for (int t = 0; t < QUAD_ROWS; ++t) {
      bordered_gray_span(src, x, y0 - 1 + t, width, height, border_kind, border_value, g[t]);
    }
  }
#pragma unroll
  for (int t = 1; t <= QUAD_STRIP; ++t) {
    if (y0 + t - 1 < height)
      store_quad(dst, x, y0 + t - 1, width, sobel_quad(g[t - 1], g[t], g[t + 1]));
  }
}
#endif
