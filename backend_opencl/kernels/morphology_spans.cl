// One erosion (OP_ERODE=1) or dilation (OP_ERODE=0) of an RGBA image with a small element
// whose row spans all hold the anchor column (rect, cross, ellipse: closed toward the anchor),
// each output pixel straight from its element rows. Pixels outside the image are the neutral
// value (docs/FILTERS.md, erode); alpha is the input pixel's own.
//
// Compile-time: the element's SPAN_H rows, and for each, how far its span reaches left and
// right of the anchor column (SPAN_LEFT, SPAN_RIGHT: brace lists, -1 for an empty row), their
// maxima SPAN_MAX_LEFT and SPAN_MAX_RIGHT (at most SPAN_MAX_REACH), the anchor row SPAN_AY;
// SPAN_ITEMS work items (output columns) per group, SPAN_CHUNK input rows per pass through local
// memory (a multiple of SPAN_H) and SPAN_STRIP output rows per group.
//
// A group streams down its strip a chunk of rows at a time, the rows (strip plus apron) in
// local memory. For each input row a work item takes its column's running extrema outward,
// left (`left[d]`: columns x - d .. x) and right (`right[d]`: x .. x + d); element row j's span
// is then one more extremum of the two. Row q feeds, through element row j, the output row that
// completes SPAN_H - 1 - j rows later: the partial outputs wait in a ring of registers whose
// slots rotate with the row's position in its segment of SPAN_H rows (compile-time once
// unrolled), and a completed output leaves its slot neutral for the next.
#ifdef SPAN_ITEMS
#define APRON (2 * QUAD)  // words loaded either side of the strip: at least SPAN_MAX_REACH
#define TILE_COLS (SPAN_ITEMS + 2 * APRON)

__kernel __attribute__((reqd_work_group_size(SPAN_ITEMS, 1, 1))) void morph_spans(
    __global const uint* restrict src, __global uint* restrict dst, int width, int height) {
  __local uint4 tile_quads[SPAN_CHUNK * TILE_COLS / QUAD];
  __local uint* tile = (__local uint*)tile_quads;
  const int span_left[SPAN_H] = SPAN_LEFT;
  const int span_right[SPAN_H] = SPAN_RIGHT;
  const int tid = get_local_id(0);
  const int x0 = get_group_id(0) * SPAN_ITEMS;
  const int y0 = get_group_id(1) * SPAN_STRIP;
  const int x = x0 + tid;
  // Stream row q is image row y0 - SPAN_AY + q; it completes output row y0 + q - (SPAN_H - 1).
  const int input_rows = min(SPAN_STRIP, height - y0) + SPAN_H - 1;
  packed4 ring[SPAN_H];  // slot t % SPAN_H: the output completed at stream row t
  uint centre[SPAN_H];   // slot t % SPAN_H: stream row t's own pixel (an output keeps its alpha)
#pragma unroll
  for (int k = 0; k < SPAN_H; ++k) ring[k] = packed_of(NEUTRAL_WORD);
  for (int q0 = 0; q0 < input_rows; q0 += SPAN_CHUNK) {
    const int rows = min(SPAN_CHUNK, input_rows - q0);
    barrier(CLK_LOCAL_MEM_FENCE);  // the previous chunk's rows are read
    load_word_rows(tile, src, x0 - APRON, y0 - SPAN_AY + q0, TILE_COLS, rows, width, height,
                   BORDER_CONSTANT, NEUTRAL_WORD);
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int s = 0; s < rows; s += SPAN_H) {  // chunks hold whole segments of SPAN_H rows
#pragma unroll
      for (int r = 0; r < SPAN_H; ++r) {
        if (s + r < rows) {
          __local const uint* at = tile + (s + r) * TILE_COLS + APRON + tid;
          packed4 left[SPAN_MAX_LEFT + 1];
          packed4 right[SPAN_MAX_RIGHT + 1];
          centre[r] = at[0];
          left[0] = packed_of(at[0]);
          right[0] = left[0];
#pragma unroll
          for (int d = 1; d <= SPAN_MAX_LEFT; ++d) left[d] = merge_word(left[d - 1], at[-d]);
#pragma unroll
          for (int d = 1; d <= SPAN_MAX_RIGHT; ++d) right[d] = merge_word(right[d - 1], at[d]);
#pragma unroll
          for (int j = 0; j < SPAN_H; ++j) {
            if (span_left[j] >= 0) {
              const int slot = (r + SPAN_H - 1 - j) % SPAN_H;
              ring[slot] = PACKED_COMBINE(ring[slot],
                                          PACKED_COMBINE(left[span_left[j]], right[span_right[j]]));
            }
          }
          // The output due now; its own row is SPAN_H - 1 - SPAN_AY stream rows back.
          const int y = y0 + q0 + s + r - (SPAN_H - 1);
          if (x < width && y >= y0) {
            dst[(size_t)y * width + x] =
                alpha_from(packed_word(ring[r]), centre[(r + 1 + SPAN_AY) % SPAN_H], ALPHA_INDEX);
          }
          ring[r] = packed_of(NEUTRAL_WORD);
        }
      }
    }
  }
}
#endif

// quads: the same elements when they reach at most one pixel either side of the anchor (and so
// have at most three rows: 3x3 and smaller). A work item owns a quad of output pixels and a
// strip of QUAD_STRIP rows; inside the image each input row is one 16-byte load and the two
// words either side, which the neighbouring items load too (from the L1 cache), all issued
// before any arithmetic, as sobel's quads.
#ifdef QUAD_STRIP
#define QUAD_SPAN (QUAD + 2)  // pixel columns x - 1 .. x + 4
#define QUAD_ROWS (QUAD_STRIP + SPAN_H - 1)

__kernel void morph_quads(__global const uint* restrict src, __global uint* restrict dst, int width,
                          int height) {
  const int span_left[SPAN_H] = SPAN_LEFT;
  const int span_right[SPAN_H] = SPAN_RIGHT;
  const int x = get_global_id(0) * QUAD;
  const int y0 = get_global_id(1) * QUAD_STRIP;
  if (x >= width || y0 >= height) return;
  const int first_row = y0 - SPAN_AY;
  uint w[QUAD_ROWS][QUAD_SPAN];  // rows first_row .., columns x - 1 .. x + 4
  if (width % QUAD == 0 && x >= QUAD && x + QUAD < width && first_row >= 0 &&
      first_row + QUAD_ROWS <= height) {
#pragma unroll
    for (int t = 0; t < QUAD_ROWS; ++t) {
      load_quad_and_sides(src, (size_t)(first_row + t) * width + x, w[t]);
    }
  } else {      // outside the image the neutral value
#pragma unroll  // constant indices keep w in registers
    for (int t = 0; t < QUAD_ROWS; ++t) {
      load_bordered_words(src, x - 1, first_row + t, QUAD_SPAN, width, height, BORDER_CONSTANT,
                          NEUTRAL_WORD, w[t]);
    }
  }
#pragma unroll
  for (int t = 0; t < QUAD_STRIP; ++t) {
    const int y = y0 + t;
    if (y < height) {
      uint out[QUAD];
#pragma unroll
      for (int i = 0; i < QUAD; ++i) {
        packed4 acc = packed_of(NEUTRAL_WORD);
#pragma unroll
        for (int j = 0; j < SPAN_H; ++j) {
#pragma unroll
          for (int d = -1; d <= 1; ++d) {
            if (span_left[j] >= -d && span_right[j] >= d)
              acc = merge_word(acc, w[t + j][i + 1 + d]);
          }
        }
        out[i] = alpha_from(packed_word(acc), w[t + SPAN_AY][i + 1], ALPHA_INDEX);
      }
      store_word_quad(dst, x, y, width, (uint4)(out[0], out[1], out[2], out[3]));
    }
  }
}
#endif
