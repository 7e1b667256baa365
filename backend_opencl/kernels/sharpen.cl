// sharpen: out = sat(5 s(x, y) - s(x, y-1) - s(x, y+1) - s(x-1, y) - s(x+1, y)) per colour
// channel, alpha copied. Three schedules of the same sum.
#define SHARPEN_CENTRE 5

inline uchar sharpen_sample(__global const uchar* src, int x, int y, int c, int width, int height,
                            int border_kind, int border_value) {
  const int centre = src[sample_at(x, y, c, width)];
  if (HAS_ALPHA && c == ALPHA) return (uchar)centre;
  const int around = bordered_sample(src, x, y - 1, c, width, height, border_kind, border_value) +
                     bordered_sample(src, x, y + 1, c, width, height, border_kind, border_value) +
                     bordered_sample(src, x - 1, y, c, width, height, border_kind, border_value) +
                     bordered_sample(src, x + 1, y, c, width, height, border_kind, border_value);
  return convert_uchar_sat(SHARPEN_CENTRE * centre - around);
}

// naive: one work item per sample (pixel and channel).
__kernel void sharpen_naive(__global const uchar* src, __global uchar* dst, int width, int height,
                            int border_kind, int border_value) {
  const int s = get_global_id(0);
  const int y = get_global_id(1);
  if (s >= width * CN || y >= height) return;
  dst[(size_t)y * width * CN + s] =
      sharpen_sample(src, s / CN, y, s % CN, width, height, border_kind, border_value);
}

// vector: four consecutive samples of a row per work item, as uchar4. Inside the image the
// neighbours are the vectors one pixel (CN samples) left and right and one row up and down;
// the lanes of an image edge and the row's tail take the scalar path.
#define LANES 4
__kernel void sharpen_vector(__global const uchar* src, __global uchar* dst, int width, int height,
                             int border_kind, int border_value) {
  const int s0 = get_global_id(0) * LANES;
  const int y = get_global_id(1);
  const int row_samples = width * CN;
  if (s0 >= row_samples || y >= height) return;
  const size_t row = (size_t)y * row_samples;
  const bool inside = s0 >= CN && s0 + LANES + CN <= row_samples && y > 0 && y + 1 < height;
  if (inside) {
    const __global uchar* at = src + row + s0;
    const int4 centre = convert_int4(vload4(0, at));
    const int4 around = convert_int4(vload4(0, at - row_samples)) +
                        convert_int4(vload4(0, at + row_samples)) +
                        convert_int4(vload4(0, at - CN)) + convert_int4(vload4(0, at + CN));
    uchar4 out = convert_uchar4_sat(SHARPEN_CENTRE * centre - around);
#if HAS_ALPHA
    out.w = (uchar)centre.w;  // s0 is a multiple of 4 = CN: lane 3 is alpha
#endif
    vstore4(out, 0, dst + row + s0);
    return;
  }
  for (int s = s0; s < min(s0 + LANES, row_samples); ++s) {
    dst[row + s] = sharpen_sample(src, s / CN, y, s % CN, width, height, border_kind, border_value);
  }
}

// local: a TILE_W x TILE_H tile of pixels and its 1-pixel apron in local memory, loaded by
// every work item of the group with consecutive (coalesced) indices, then read 5 times.
#define APRON_W (TILE_W + 2)
#define APRON_H (TILE_H + 2)
__kernel __attribute__((reqd_work_group_size(TILE_W, TILE_H, 1))) void sharpen_local(
    __global const uchar* src, __global uchar* dst, int width, int height, int border_kind,
    int border_value) {
  __local uchar tile[APRON_H * APRON_W * CN];
  load_tile(tile, src, get_group_id(0) * TILE_W - 1, get_group_id(1) * TILE_H - 1, APRON_W, APRON_H,
            width, height, border_kind, border_value);
  const int x = get_global_id(0);
  const int y = get_global_id(1);
  if (x >= width || y >= height) return;
  const int tx = get_local_id(0) + 1;
  const int ty = get_local_id(1) + 1;
  for (int c = 0; c < CN; ++c) {
    const int centre = tile[(ty * APRON_W + tx) * CN + c];
    int value = centre;
    if (!(HAS_ALPHA && c == ALPHA)) {
      value = SHARPEN_CENTRE * centre - tile[((ty - 1) * APRON_W + tx) * CN + c] -
              tile[((ty + 1) * APRON_W + tx) * CN + c] - tile[(ty * APRON_W + tx - 1) * CN + c] -
              tile[(ty * APRON_W + tx + 1) * CN + c];
    }
    dst[sample_at(x, y, c, width)] = convert_uchar_sat(value);
  }
}

// tile (RGBA): a work item per output column streams down a strip of TILE_STRIP rows, the rows
// (strip plus apron, bordered) in local memory TILE_CHUNK rows at a time. Each input row feeds
// the three output rows it belongs to (as the row above, the centre row, the row below), in two
// words of 16-bit lanes, R|B and G|A, that start at 4 * 255: every output's lanes end in
// 0 .. 9 * 255, so the words' sums are exact whatever borrows their terms pass between lanes on
// the way. The partial outputs wait in a ring of registers whose slots rotate with the row's
// position in its run of three (compile-time once unrolled).
#define LOW_BYTES 0x00FF00FFu
#define LANE_MASK 0xFFFFu
#define LANE_BITS 16
#define LANE_BIAS (4 * UCHAR_MAX)
#define ALPHA_WORD_BYTE 0xFF000000u

inline uint sharpened(uint lane) { return (uint)clamp((int)lane - LANE_BIAS, 0, UCHAR_MAX); }

#ifdef TILE_ITEMS
#define APRON QUAD  // words loaded either side of the strip: a whole quad
#define TILE_COLS (TILE_ITEMS + 2 * APRON)
#define ROWS 3

__kernel __attribute__((reqd_work_group_size(TILE_ITEMS, 1, 1))) void sharpen_tile(
    __global const uint* restrict src, __global uint* restrict dst, int width, int height,
    int border_kind, int border_value) {
  __local uint4 tile_quads[TILE_CHUNK * TILE_COLS / QUAD];
  __local uint* tile = (__local uint*)tile_quads;
  const uint bias = LANE_BIAS * 0x00010001u;
  const int tid = get_local_id(0);
  const int x0 = get_group_id(0) * TILE_ITEMS;
  const int y0 = get_group_id(1) * TILE_STRIP;
  const int x = x0 + tid;
  // Stream row t is image row y0 - 1 + t; it completes output row y0 + t - 2.
  const int input_rows = min(TILE_STRIP, height - y0) + 2;
  uint even[ROWS];  // slot t % ROWS: R|B of the output completed at stream row t
  uint odd[ROWS];   // ... and its G|A
  uint centre = 0;  // the previous stream row's own pixel: the output due now keeps its alpha
#pragma unroll
  for (int k = 0; k < ROWS; ++k) even[k] = odd[k] = bias;
  for (int q0 = 0; q0 < input_rows; q0 += TILE_CHUNK) {
    const int rows = min(TILE_CHUNK, input_rows - q0);
    barrier(CLK_LOCAL_MEM_FENCE);  // the previous chunk's rows are read
    load_word_rows(tile, src, x0 - APRON, y0 - 1 + q0, TILE_COLS, rows, width, height, border_kind,
                   (uint)border_value * 0x01010101u);
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int s = 0; s < rows; s += ROWS) {  // chunks hold whole runs of three rows
#pragma unroll
      for (int r = 0; r < ROWS; ++r) {
        if (s + r < rows) {
          __local const uint* at = tile + (s + r) * TILE_COLS + APRON + tid;
          const uint c = at[0];
          const uint c_even = c & LOW_BYTES;
          const uint c_odd = (c >> 8) & LOW_BYTES;
          const uint side_even = (at[-1] & LOW_BYTES) + (at[1] & LOW_BYTES);
          const uint side_odd = ((at[-1] >> 8) & LOW_BYTES) + ((at[1] >> 8) & LOW_BYTES);
          // As the row below (the output due now), the centre row and the row above.
          even[r] -= c_even;
          odd[r] -= c_odd;
          even[(r + 1) % ROWS] += SHARPEN_CENTRE * c_even - side_even;
          odd[(r + 1) % ROWS] += SHARPEN_CENTRE * c_odd - side_odd;
          even[(r + 2) % ROWS] -= c_even;
          odd[(r + 2) % ROWS] -= c_odd;
          const int y = y0 + q0 + s + r - 2;
          if (x < width && y >= y0) {
            dst[(size_t)y * width + x] =
                sharpened(even[r] & LANE_MASK) | sharpened(odd[r] & LANE_MASK) << 8 |
                sharpened(even[r] >> LANE_BITS) << 16 | (centre & ALPHA_WORD_BYTE);
          }
          even[r] = odd[r] = bias;
          centre = c;
        }
      }
    }
  }
}
#endif

// quads (RGBA): a work item owns a quad of output pixels and a strip of QUAD_STRIP rows. It needs
// QUAD_STRIP + 2 rows of six pixel words (its quad and one either side); inside the image each
// row is one 16-byte load and two words, which the neighbouring items load too (from the L1
// cache), all issued before any arithmetic, as sobel's quads. The lanes are tile's.
#ifdef QUAD_STRIP
#define QUAD_SPAN (QUAD + 2)  // pixel columns x - 1 .. x + 4
#define QUAD_ROWS (QUAD_STRIP + 2)

// Output pixel `centre` from its four neighbours' words.
inline uint sharpen_word(uint centre, uint up, uint down, uint left, uint right) {
  const uint bias = LANE_BIAS * 0x00010001u;
  const uint even = bias + SHARPEN_CENTRE * (centre & LOW_BYTES) - (up & LOW_BYTES) -
                    (down & LOW_BYTES) - (left & LOW_BYTES) - (right & LOW_BYTES);
  const uint odd = bias + SHARPEN_CENTRE * ((centre >> 8) & LOW_BYTES) - ((up >> 8) & LOW_BYTES) -
                   ((down >> 8) & LOW_BYTES) - ((left >> 8) & LOW_BYTES) -
                   ((right >> 8) & LOW_BYTES);
  return sharpened(even & LANE_MASK) | sharpened(odd & LANE_MASK) << 8 |
         sharpened(even >> LANE_BITS) << 16 | (centre & ALPHA_WORD_BYTE);
}

__kernel void sharpen_quads(__global const uint* restrict src, __global uint* restrict dst,
                            int width, int height, int border_kind, int border_value) {
  const int x = get_global_id(0) * QUAD;
  const int y0 = get_global_id(1) * QUAD_STRIP;
  if (x >= width || y0 >= height) return;
  uint w[QUAD_ROWS][QUAD_SPAN];  // rows y0 - 1 .. y0 + QUAD_STRIP, columns x - 1 .. x + 4
  if (width % QUAD == 0 && x >= QUAD && x + QUAD < width && y0 >= 1 && y0 + QUAD_STRIP < height) {
#pragma unroll
    for (int t = 0; t < QUAD_ROWS; ++t) {
      load_quad_and_sides(src, (size_t)(y0 - 1 + t) * width + x, w[t]);
    }
  } else {
    const uint border_word = (uint)border_value * 0x01010101u;
#pragma unroll  // constant indices keep w in registers
    for (int t = 0; t < QUAD_ROWS; ++t) {
      load_bordered_words(src, x - 1, y0 - 1 + t, QUAD_SPAN, width, height, border_kind,
                          border_word, w[t]);
    }
  }
#pragma unroll
  for (int t = 1; t <= QUAD_STRIP; ++t) {
    const int y = y0 + t - 1;
    if (y < height) {
      uint out[QUAD];
#pragma unroll
      for (int i = 0; i < QUAD; ++i) {
        out[i] = sharpen_word(w[t][i + 1], w[t - 1][i + 1], w[t + 1][i + 1], w[t][i], w[t][i + 2]);
      }
      store_word_quad(dst, x, y, width, (uint4)(out[0], out[1], out[2], out[3]));
    }
  }
}
#endif
