// One rectangle of a structuring element on an RGBA image (erosion with OP_ERODE=1: min;
// dilation with OP_ERODE=0: max), by van Herk/Gil-Werman in local memory and registers: about
// six byte-wise extrema per pixel word whatever the rectangle's size. The element's other
// rectangles (an ellipse or a cross is a union of a few) run as further launches with
// TILE_COMBINE=1, which merge into what dst holds. Pixels outside the image are the neutral
// value (docs/FILTERS.md, erode); alpha is the input pixel's own.
//
// Compile-time: the rectangle TILE_RECT_W x TILE_RECT_H (each at most 32) whose top-left
// corner lies at (TILE_RECT_X, TILE_RECT_Y) from the output pixel, TILE_ITEMS work items per
// group, TILE_CHUNK input rows per pass through local memory (a multiple of TILE_RECT_H) and
// TILE_STRIP output rows per group.
//
// A group owns a strip of SEGMENTS x TILE_RECT_W output columns and streams down its rows, a
// chunk at a time:
//   load       - the chunk's input rows, strip plus apron, into `tile` (the neutral word
//                outside the image);
//   horizontal - a work item per (row, segment of TILE_RECT_W columns): the next segment's
//                running prefix into registers, then its own segment's running suffix, merged
//                with the prefix entry that completes each window;
//   vertical   - a work item per column streams down with the same recurrences: the current
//                segment of rows' prefix in registers, the previous segment's suffix extrema in
//                a ring of registers (indexed by compile-time positions once unrolled), turned
//                into suffix extrema in place when a segment completes.
#define SEGMENTS (TILE_ITEMS / TILE_RECT_W)
#define STRIP_COLS (SEGMENTS * TILE_RECT_W)
#define TILE_COLS (STRIP_COLS + TILE_RECT_W - 1)

// Output columns k w .. k w + w - 1 of one row (w = TILE_RECT_W): column k w + i is the
// extremum of `segment` from i up and of `next` (the following w words) below i.
inline void horizontal_segment(__local const uint* segment, __local uint* out) {
#if TILE_RECT_W == 1
  out[0] = segment[0];
#else
  __local const uint* next = segment + TILE_RECT_W;
  uint prefix[TILE_RECT_W - 1];
  packed4 run = packed_of(NEUTRAL_WORD);
#pragma unroll
  for (int i = 0; i < TILE_RECT_W - 1; ++i) {
    run = merge_word(run, next[i]);
    prefix[i] = packed_word(run);
  }
  packed4 suffix = packed_of(NEUTRAL_WORD);
#pragma unroll
  for (int i = TILE_RECT_W - 1; i >= 0; --i) {
    suffix = merge_word(suffix, segment[i]);
    out[i] = packed_word(i > 0 ? merge_word(suffix, prefix[i - 1]) : suffix);
  }
#endif
}

inline void store_word(__global const uint* src, __global uint* dst, size_t at, uint value) {
#if TILE_COMBINE
  value = packed_word(merge_word(packed_of(value), dst[at]));
#endif
  dst[at] = (value & ~ALPHA_BYTE) | (src[at] & ALPHA_BYTE);
}

__kernel __attribute__((reqd_work_group_size(TILE_ITEMS, 1, 1))) void morph_rect_tile(
    __global const uint* restrict src, __global uint* restrict dst, int width, int height) {
  __local uint tile[TILE_CHUNK * TILE_COLS];
  __local uint across[TILE_CHUNK * STRIP_COLS];
  const int tid = get_local_id(0);
  const int x0 = get_group_id(0) * STRIP_COLS;
  const int y0 = get_group_id(1) * TILE_STRIP;
  // Stream row q is image row y0 + TILE_RECT_Y + q; it completes output row
  // y0 + q - (TILE_RECT_H - 1).
  const int input_rows = min(TILE_STRIP, height - y0) + TILE_RECT_H - 1;
  const int first_x = x0 + TILE_RECT_X;
  const int x = x0 + tid;  // this item's column in the vertical pass
  const bool owns_column = tid < STRIP_COLS && x < width;
  // ring[j]: the previous segment's suffix extremum from its row j; ring[TILE_RECT_H] stays
  // neutral, so the last row of a segment needs no test.
  uint ring[TILE_RECT_H + 1];
#pragma unroll
  for (int j = 0; j <= TILE_RECT_H; ++j) ring[j] = NEUTRAL_WORD;
  for (int q0 = 0; q0 < input_rows; q0 += TILE_CHUNK) {
    const int rows = min(TILE_CHUNK, input_rows - q0);
    const int first_y = y0 + TILE_RECT_Y + q0;
    for (int i = tid; i < rows * TILE_COLS; i += TILE_ITEMS) {
      const int r = i / TILE_COLS;
      const int sx = first_x + (i - r * TILE_COLS);
      const int sy = first_y + r;
      tile[i] = sx >= 0 && sx < width && sy >= 0 && sy < height ? src[(size_t)sy * width + sx]
                                                                : NEUTRAL_WORD;
    }
    barrier(CLK_LOCAL_MEM_FENCE);  // the tile is complete; the last vertical pass is done
    for (int t = tid; t < rows * SEGMENTS; t += TILE_ITEMS) {
      const int r = t / SEGMENTS;
      const int k = t - r * SEGMENTS;
      horizontal_segment(tile + r * TILE_COLS + k * TILE_RECT_W,
                         across + r * STRIP_COLS + k * TILE_RECT_W);
    }
    barrier(CLK_LOCAL_MEM_FENCE);  // `across` is complete; the tile is free again
    if (tid >= STRIP_COLS) continue;
    for (int s = 0; s < rows; s += TILE_RECT_H) {  // chunks hold whole segments of rows
      packed4 prefix = packed_of(NEUTRAL_WORD);
      const int q = q0 + s;
#pragma unroll
      for (int j = 0; j < TILE_RECT_H; ++j) {
        if (s + j < rows) {
          const uint word = across[(s + j) * STRIP_COLS + tid];
          prefix = merge_word(prefix, word);
          const int y = y0 + q + j - (TILE_RECT_H - 1);
          if (owns_column && y >= y0) {
            store_word(src, dst, (size_t)y * width + x,
                       packed_word(merge_word(prefix, ring[j + 1])));
          }
          ring[j] = word;
        }
      }
      if (s + TILE_RECT_H <= rows) {  // the segment is complete: its suffix extrema, in place
        packed4 suffix = packed_of(NEUTRAL_WORD);
#pragma unroll
        for (int k = TILE_RECT_H - 1; k >= 0; --k) {
          suffix = merge_word(suffix, ring[k]);
          ring[k] = packed_word(suffix);
        }
      }
    }
  }
}
