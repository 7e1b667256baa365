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
#define TILE_COLS (SPAN_ITEMS + SPAN_MAX_LEFT + SPAN_MAX_RIGHT)
#define TILE_WORDS (SPAN_CHUNK * TILE_COLS)

__kernel __attribute__((reqd_work_group_size(SPAN_ITEMS, 1, 1))) void morph_spans(
    __global const uint* restrict src, __global uint* restrict dst, int width, int height) {
  __local uint tile[TILE_WORDS];
  const int span_left[SPAN_H] = SPAN_LEFT;
  const int span_right[SPAN_H] = SPAN_RIGHT;
  const int tid = get_local_id(0);
  const int x0 = get_group_id(0) * SPAN_ITEMS;
  const int y0 = get_group_id(1) * SPAN_STRIP;
  const int x = x0 + tid;
  const bool owns_column = x < width;
  // Stream row q is image row y0 - SPAN_AY + q; it completes output row y0 + q - (SPAN_H - 1).
  const int input_rows = min(SPAN_STRIP, height - y0) + SPAN_H - 1;
  const int first_x = x0 - SPAN_MAX_LEFT;
  packed4 ring[SPAN_H];  // slot t % SPAN_H: the output completed at stream row t
#pragma unroll
  for (int k = 0; k < SPAN_H; ++k) ring[k] = packed_of(NEUTRAL_WORD);
  for (int q0 = 0; q0 < input_rows; q0 += SPAN_CHUNK) {
    const int rows = min(SPAN_CHUNK, input_rows - q0);
    const int first_y = y0 - SPAN_AY + q0;
    barrier(CLK_LOCAL_MEM_FENCE);  // the previous chunk's rows are read
    for (int i = tid; i < rows * TILE_COLS; i += SPAN_ITEMS) {
      const int r = i / TILE_COLS;
      const int sx = first_x + (i - r * TILE_COLS);
      const int sy = first_y + r;
      tile[i] = sx >= 0 && sx < width && sy >= 0 && sy < height ? src[(size_t)sy * width + sx]
                                                                : NEUTRAL_WORD;
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int s = 0; s < rows; s += SPAN_H) {  // chunks hold whole segments of SPAN_H rows
#pragma unroll
      for (int r = 0; r < SPAN_H; ++r) {
        if (s + r < rows) {
          __local const uint* at = tile + (s + r) * TILE_COLS + SPAN_MAX_LEFT + tid;
          packed4 left[SPAN_MAX_LEFT + 1];
          packed4 right[SPAN_MAX_RIGHT + 1];
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
          const int y = y0 + q0 + s + r - (SPAN_H - 1);
          if (owns_column && y >= y0) {
            const size_t pixel = (size_t)y * width + x;
            dst[pixel] = (packed_word(ring[r]) & ~ALPHA_BYTE) | (src[pixel] & ALPHA_BYTE);
          }
          ring[r] = packed_of(NEUTRAL_WORD);
        }
      }
    }
  }
}
