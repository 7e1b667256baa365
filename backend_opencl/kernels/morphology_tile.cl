// One rectangle of a structuring element on an RGBA image (erosion with OP_ERODE=1: min;
// dilation with OP_ERODE=0: max), by van Herk/Gil-Werman in local memory and registers: about
// six byte-wise extrema per pixel word whatever the rectangle's size. The element's other
// rectangles (an ellipse or a cross is a union of a few) run as further launches with
// TILE_COMBINE=1, which merge into what dst holds. Pixels outside the image are the neutral
// value (docs/FILTERS.md, erode); alpha is the input pixel's own.
//
// Compile-time: the rectangle TILE_RECT_W x TILE_RECT_H (each at most 32) whose top-left
// corner lies at (TILE_RECT_X, TILE_RECT_Y) from the output pixel, TILE_ITEMS work items per
// group, TILE_STRIDE words per tile row, TILE_CHUNK input rows per pass through local memory
// (a multiple of TILE_RECT_H),
// TILE_STRIP output rows per group, and TILE_IN_PLACE (below).
//
// A group owns a strip of SEGMENTS x TILE_RECT_W output columns and streams down its rows, a
// chunk at a time:
//   load       - the chunk's input rows, strip plus apron, into `tile` by 16-byte loads
//                (LOAD_BATCH of them issued before their stores; the neutral word outside the
//                image);
//   horizontal - a work item per (row, segment of TILE_RECT_W columns): the next segment's
//                running prefix into registers, then its own segment's running suffix, merged
//                with the prefix entry that completes each window. The results go to their own
//                rows (`across_rows`), or with TILE_IN_PLACE over the tile's words: a third less
//                local memory (a device's 48 KB then holds 256 work items' strip at 31 x 31)
//                for two more barriers per chunk;
//   vertical   - a work item per column streams down with the same recurrences: the current
//                segment of rows' prefix in registers, the previous segment's suffix extrema in
//                a ring of registers (indexed by compile-time positions once unrolled), turned
//                into suffix extrema in place when a segment completes.
#define SEGMENTS (TILE_ITEMS / TILE_RECT_W)
#define STRIP_COLS (SEGMENTS * TILE_RECT_W)
#define TILE_COLS (STRIP_COLS + TILE_RECT_W - 1)
// A tile row (TILE_STRIDE words, from the host's rect_tile_stride) starts at the 16-byte
// boundary at or before its first input column (`lead` < QUAD words before it) and holds whole
// quads.
#if TILE_STRIDE % QUAD != 0 || TILE_STRIDE < TILE_COLS + QUAD - 1
#error "a tile row must hold its columns after a lead of up to 3 words, in whole quads"
#endif
#define TILE_QUADS (TILE_STRIDE / QUAD)
#define LOAD_BATCH 8

// The tile column of output column c's own pixel is c + OWN_COLUMN (the rectangle starts
// TILE_RECT_X from it). When the rectangle holds the anchor, the horizontal results carry
// their own pixel's alpha, and an output's own row lies within the vertical pass's current
// segment or the previous one (ALPHA_DELAY rows above the row that completes it): its alpha
// comes from the ring. A combining launch keeps dst's alpha.
#define OWN_COLUMN (-TILE_RECT_X)
#define ALPHA_SHIFT 24  // ALPHA_BYTE's place in a pixel word
#define ALPHA_DELAY (TILE_RECT_H - 1 + TILE_RECT_Y)
#define ALPHA_IN_RING                                                                   \
  (!TILE_COMBINE && ALPHA_DELAY >= 0 && ALPHA_DELAY < TILE_RECT_H && OWN_COLUMN >= 0 && \
   OWN_COLUMN < TILE_RECT_W)

// Output columns k w .. k w + w - 1 of one row (w = TILE_RECT_W) into `out`: column k w + i is
// the extremum of `segment` from i up and of `next` (the following w words) below i.
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
    const uint value = packed_word(i > 0 ? merge_word(suffix, prefix[i - 1]) : suffix);
    out[i] = ALPHA_IN_RING ? (value & ~ALPHA_BYTE) | (segment[i + OWN_COLUMN] & ALPHA_BYTE) : value;
  }
#endif
}

#if TILE_IN_PLACE
#if TILE_ITEMS < TILE_CHUNK * SEGMENTS
#error "the in-place horizontal pass takes one (row, segment) per work item"
#endif
// The horizontal pass with its results over the tile's words (`rows_start`: the first input
// column of the first row): each work item's (row, segment) reads the next segment's prefix
// extrema into registers and sets its outputs' own alpha aside, then, after a barrier, turns
// its own segment into suffix extrema merged with them.
inline void horizontal_in_place(__local uint* rows_start, __local uchar* own_alpha, int rows) {
  const int t = get_local_id(0);
  const bool active = t < rows * SEGMENTS;
  const int r = t / SEGMENTS;
  const int k = t - r * SEGMENTS;
  __local uint* segment = rows_start + r * TILE_STRIDE + k * TILE_RECT_W;
  __local uchar* alpha = own_alpha + r * STRIP_COLS + k * TILE_RECT_W;
  uint prefix[TILE_RECT_W];
  if (active) {
    packed4 run = packed_of(NEUTRAL_WORD);
#pragma unroll
    for (int i = 0; i < TILE_RECT_W - 1; ++i) {
      run = merge_word(run, segment[TILE_RECT_W + i]);
      prefix[i] = packed_word(run);
    }
#if ALPHA_IN_RING
#pragma unroll
    for (int i = 0; i < TILE_RECT_W; ++i)
      alpha[i] = (uchar)(segment[i + OWN_COLUMN] >> ALPHA_SHIFT);
#endif
  }
  barrier(CLK_LOCAL_MEM_FENCE);  // every prefix is read before any segment is overwritten
  if (active) {
    packed4 suffix = packed_of(NEUTRAL_WORD);
#pragma unroll
    for (int i = TILE_RECT_W - 1; i >= 0; --i) {
      suffix = merge_word(suffix, segment[i]);
      const uint value = packed_word(i > 0 ? merge_word(suffix, prefix[i - 1]) : suffix);
      segment[i] = ALPHA_IN_RING ? (value & ~ALPHA_BYTE) | (uint)alpha[i] << ALPHA_SHIFT : value;
    }
  }
}
#endif

// The chunk's `rows` input rows from image row first_y, columns from first_x - lead (a
// multiple of 4), into tile rows of TILE_STRIDE words.
inline void load_chunk(__local uint4* tile_quads, __global const uint* src, int first_x, int lead,
                       int first_y, int rows, int width, int height) {
  const int count = rows * TILE_QUADS;
  for (int base = get_local_id(0); base < count; base += TILE_ITEMS * LOAD_BATCH) {
    uint4 quad[LOAD_BATCH];
#pragma unroll
    for (int b = 0; b < LOAD_BATCH; ++b) {
      const int i = base + b * TILE_ITEMS;
      const int r = i / TILE_QUADS;
      const int sx = first_x - lead + QUAD * (i - r * TILE_QUADS);
      const int sy = first_y + r;
      const bool row_inside = i < count && sy >= 0 && sy < height;
      if (row_inside && width % QUAD == 0 && sx >= 0 && sx + QUAD <= width) {
        quad[b] = ((__global const uint4*)src)[((size_t)sy * width + sx) / QUAD];
      } else {
        uint w[QUAD];
#pragma unroll
        for (int c = 0; c < QUAD; ++c) {
          w[c] = row_inside && sx + c >= 0 && sx + c < width ? src[(size_t)sy * width + sx + c]
                                                             : NEUTRAL_WORD;
        }
        quad[b] = (uint4)(w[0], w[1], w[2], w[3]);
      }
    }
#pragma unroll
    for (int b = 0; b < LOAD_BATCH; ++b) {
      if (base + b * TILE_ITEMS < count) tile_quads[base + b * TILE_ITEMS] = quad[b];
    }
  }
}

// dst at `at` = value, its alpha the pixel's own (`own`'s, src's, or dst's when combining).
inline void store_word(__global const uint* src, __global uint* dst, size_t at, uint value,
                       uint own) {
#if TILE_COMBINE
  own = dst[at];
  value = packed_word(merge_word(packed_of(value), own));
#elif !ALPHA_IN_RING
  own = src[at];
#endif
  dst[at] = (value & ~ALPHA_BYTE) | (own & ALPHA_BYTE);
}

__kernel __attribute__((reqd_work_group_size(TILE_ITEMS, 1, 1))) void morph_rect_tile(
    __global const uint* restrict src, __global uint* restrict dst, int width, int height) {
  __local uint4 tile_quads[TILE_CHUNK * TILE_QUADS];
  __local uint* tile = (__local uint*)tile_quads;
#if TILE_IN_PLACE
  __local uchar own_alpha[TILE_CHUNK * STRIP_COLS];
#define ACROSS_STRIDE TILE_STRIDE
#else
  __local uint across_rows[TILE_CHUNK * STRIP_COLS];
#define ACROSS_STRIDE STRIP_COLS
#endif
  const int tid = get_local_id(0);
  const int x0 = get_group_id(0) * STRIP_COLS;
  const int y0 = get_group_id(1) * TILE_STRIP;
  // Stream row q is image row y0 + TILE_RECT_Y + q; it completes output row
  // y0 + q - (TILE_RECT_H - 1).
  const int input_rows = min(TILE_STRIP, height - y0) + TILE_RECT_H - 1;
  const int first_x = x0 + TILE_RECT_X;
  const int lead = first_x & (QUAD - 1);  // first_x's place in its quad (it may be negative)
  const int x = x0 + tid;                 // this item's column in the vertical pass
  const bool owns_column = tid < STRIP_COLS && x < width;
  // ring[j]: the previous segment's suffix extremum from its row j; ring[TILE_RECT_H] stays
  // neutral, so the last row of a segment needs no test.
  uint ring[TILE_RECT_H + 1];
#pragma unroll
  for (int j = 0; j <= TILE_RECT_H; ++j) ring[j] = NEUTRAL_WORD;
  for (int q0 = 0; q0 < input_rows; q0 += TILE_CHUNK) {
    const int rows = min(TILE_CHUNK, input_rows - q0);
    load_chunk(tile_quads, src, first_x, lead, y0 + TILE_RECT_Y + q0, rows, width, height);
    barrier(CLK_LOCAL_MEM_FENCE);  // the tile is complete; the last vertical pass is done
#if TILE_IN_PLACE
    horizontal_in_place(tile + lead, own_alpha, rows);
    __local const uint* across = tile + lead;
#else
    for (int t = tid; t < rows * SEGMENTS; t += TILE_ITEMS) {
      const int r = t / SEGMENTS;
      const int k = t - r * SEGMENTS;
      horizontal_segment(tile + r * TILE_STRIDE + lead + k * TILE_RECT_W,
                         across_rows + r * STRIP_COLS + k * TILE_RECT_W);
    }
    __local const uint* across = across_rows;
#endif
    barrier(CLK_LOCAL_MEM_FENCE);  // the horizontal results are complete
    for (int s = 0; s < rows && tid < STRIP_COLS; s += TILE_RECT_H) {  // whole segments
      packed4 prefix = packed_of(NEUTRAL_WORD);
      const int q = q0 + s;
#pragma unroll
      for (int j = 0; j < TILE_RECT_H; ++j) {
        if (s + j < rows) {
          const uint word = across[(s + j) * ACROSS_STRIDE + tid];
          prefix = merge_word(prefix, word);
          const int y = y0 + q + j - (TILE_RECT_H - 1);
          if (owns_column && y >= y0) {
#if ALPHA_IN_RING
            // The output's own row: this segment's row j - ALPHA_DELAY (its word), else the
            // previous segment's (its suffix word kept that row's alpha).
            const uint own = ALPHA_DELAY == 0   ? word
                             : j >= ALPHA_DELAY ? ring[j - ALPHA_DELAY]
                                                : ring[j - ALPHA_DELAY + TILE_RECT_H];
#else
            const uint own = 0;
#endif
            store_word(src, dst, (size_t)y * width + x,
                       packed_word(merge_word(prefix, ring[j + 1])), own);
          }
          ring[j] = word;
        }
      }
      if (s + TILE_RECT_H <= rows) {  // the segment is complete: its suffix extrema, in place
        packed4 suffix = packed_of(NEUTRAL_WORD);
#pragma unroll
        for (int k = TILE_RECT_H - 1; k >= 0; --k) {
          suffix = merge_word(suffix, ring[k]);
          ring[k] = ALPHA_IN_RING ? (packed_word(suffix) & ~ALPHA_BYTE) | (ring[k] & ALPHA_BYTE)
                                  : packed_word(suffix);
        }
      }
    }
#if TILE_IN_PLACE
    barrier(CLK_LOCAL_MEM_FENCE);  // the vertical pass is done with the tile
#endif
  }
}
