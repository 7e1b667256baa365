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
// (a multiple of TILE_RECT_H), TILE_STRIP output rows per group, and TILE_IN_PLACE (below).
//
// A group owns a strip of SEGMENTS x TILE_RECT_W output columns and streams down its rows, a
// chunk at a time:
//   load       - the chunk's input rows, strip plus apron, into `tile` by 16-byte loads, all of
//                a work item's loads (at most LOAD_CAP) issued before their stores, so that a
//                chunk waits for memory once; the neutral word outside the image;
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
// A work item's loads per chunk, issued together up to LOAD_CAP (16-byte registers each; the
// 31 x 31 tile takes 9, and the kernel stays within 128 registers, two 256-item groups per SM).
#define LOAD_CAP 16
#define LOAD_ALL ((TILE_CHUNK * TILE_QUADS + TILE_ITEMS - 1) / TILE_ITEMS)
#define LOAD_BATCH (LOAD_ALL < LOAD_CAP ? LOAD_ALL : LOAD_CAP)

// The tile column of output column c's own pixel is c + OWN_COLUMN (the rectangle starts
// TILE_RECT_X from it). When the rectangle holds the anchor, the horizontal results carry
// their own pixel's alpha, and an output's own row lies within the vertical pass's current
// segment or the previous one (ALPHA_DELAY rows above the row that completes it): its alpha
// comes from the ring. A combining launch keeps dst's alpha.
#define OWN_COLUMN (-TILE_RECT_X)
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
    out[i] = ALPHA_IN_RING ? alpha_from(value, segment[i + OWN_COLUMN], ALPHA_INDEX) : value;
  }
#endif
}

#if TILE_IN_PLACE
#if TILE_ITEMS < TILE_CHUNK * SEGMENTS
#error "the in-place horizontal pass takes one (row, segment) per work item"
#endif
// The in-place pass keeps its outputs' own alpha bytes in registers, four to a word: byte b of
// alpha word a belongs to output a * QUAD + b.
#define ALPHA_WORDS ((TILE_RECT_W + QUAD - 1) / QUAD)
// `pack` with byte b (zero before) set to the alpha byte of `word`.
inline uint alpha_insert(uint pack, uint word, int b) {
#if PTX_PACKED
  uint r;
  const uint selector = (0x3210u & ~(0xFu << (4 * b))) | (7u << (4 * b));
  asm("prmt.b32 %0, %1, %2, %3;" : "=r"(r) : "r"(pack), "r"(word), "r"(selector));
  return r;
#else
  return pack | (word >> ALPHA_SHIFT) << (8 * b);
#endif
}

// The horizontal pass with its results over the tile's words (`rows_start`: the first input
// column of the first row): each work item's (row, segment) reads the next segment's prefix
// extrema into registers, then, after a barrier, turns its own segment into suffix extrema
// merged with them. Output i's own alpha is that of column i + OWN_COLUMN: a word of the next
// segment (read before the barrier) or of its own (read at or before step i of the suffix).
inline void horizontal_in_place(__local uint* rows_start, int rows) {
  const int t = get_local_id(0);
  const bool active = t < rows * SEGMENTS;
  const int r = t / SEGMENTS;
  const int k = t - r * SEGMENTS;
  __local uint* segment = rows_start + r * TILE_STRIDE + k * TILE_RECT_W;
  uint prefix[TILE_RECT_W];
  uint alphas[ALPHA_WORDS];
#pragma unroll
  for (int a = 0; a < ALPHA_WORDS; ++a) alphas[a] = 0;
  if (active) {
    packed4 run = packed_of(NEUTRAL_WORD);
#pragma unroll
    for (int i = 0; i < TILE_RECT_W - 1; ++i) {
      const uint word = segment[TILE_RECT_W + i];
      run = merge_word(run, word);
      prefix[i] = packed_word(run);
      const int out = TILE_RECT_W + i - OWN_COLUMN;
      if (ALPHA_IN_RING && out < TILE_RECT_W) {
        alphas[out / QUAD] = alpha_insert(alphas[out / QUAD], word, out % QUAD);
      }
    }
  }
  barrier(CLK_LOCAL_MEM_FENCE);  // every prefix is read before any segment is overwritten
  if (active) {
    packed4 suffix = packed_of(NEUTRAL_WORD);
#pragma unroll
    for (int i = TILE_RECT_W - 1; i >= 0; --i) {
      const uint word = segment[i];
      suffix = merge_word(suffix, word);
      const int out = i - OWN_COLUMN;
      if (ALPHA_IN_RING && out >= 0) {
        alphas[out / QUAD] = alpha_insert(alphas[out / QUAD], word, out % QUAD);
      }
      const uint value = packed_word(i > 0 ? merge_word(suffix, prefix[i - 1]) : suffix);
      segment[i] = ALPHA_IN_RING ? alpha_from(value, alphas[i / QUAD], i % QUAD) : value;
    }
  }
}
#endif

// The quad at column `left` (a multiple of QUAD) of image row sy, the neutral word outside the
// image; `whole` when the quad lies inside a row of whole quads.
inline uint4 image_quad(__global const uint* src, int left, int sy, bool whole, int width,
                        int height) {
  if (whole) return ((__global const uint4*)src)[((size_t)sy * width + left) / QUAD];
  const bool row_inside = sy >= 0 && sy < height;
  uint w[QUAD];
#pragma unroll
  for (int c = 0; c < QUAD; ++c) {
    w[c] = row_inside && left + c >= 0 && left + c < width ? src[(size_t)sy * width + left + c]
                                                           : NEUTRAL_WORD;
  }
  return (uint4)(w[0], w[1], w[2], w[3]);
}

// A work item's walk over the chunk's quads (tile row r, quad column c of TILE_QUADS; the pad
// quads at a row's end are loaded too, so that quad i of the walk is tile slot i): it starts at
// its own id and steps TILE_ITEMS slots at a time, without a division per step.
typedef struct {
  int r, c;
} QuadWalk;
inline QuadWalk walk_start(void) {
  const int t = get_local_id(0);
  QuadWalk w = {t / TILE_QUADS, t % TILE_QUADS};
  return w;
}
inline QuadWalk walk_step(QuadWalk w) {
  w.r += TILE_ITEMS / TILE_QUADS;
  w.c += TILE_ITEMS % TILE_QUADS;
  if (w.c >= TILE_QUADS) {
    w.c -= TILE_QUADS;
    ++w.r;
  }
  return w;
}
// The quad at walk position w of the chunk whose first row is image row first_y and whose
// columns start at image column `left` (`columns_inside`: every column inside whole quads).
inline uint4 walk_quad(__global const uint* src, QuadWalk w, int left, bool columns_inside,
                       int first_y, int width, int height) {
  const int sy = first_y + w.r;
  const bool whole = columns_inside && sy >= 0 && sy < height;
  return image_quad(src, left + QUAD * w.c, sy, whole, width, height);
}

// The chunk's `rows` input rows from image row first_y, columns from first_x - lead (a
// multiple of 4), into tile rows of TILE_STRIDE words; LOAD_BATCH quads per work item issued
// before their stores.
inline void load_chunk(__local uint4* tile_quads, __global const uint* src, int first_x, int lead,
                       int first_y, int rows, int width, int height) {
  const int count = rows * TILE_QUADS;
  const int left = first_x - lead;
  const bool columns_inside = width % QUAD == 0 && left >= 0 && left + QUAD * TILE_QUADS <= width;
  QuadWalk w = walk_start();
  for (int base = get_local_id(0); base < count; base += TILE_ITEMS * LOAD_BATCH) {
    uint4 quad[LOAD_BATCH];
#pragma unroll
    for (int b = 0; b < LOAD_BATCH; ++b) {
      quad[b] = base + b * TILE_ITEMS < count
                    ? walk_quad(src, w, left, columns_inside, first_y, width, height)
                    : (uint4)(0);
      w = walk_step(w);
    }
#pragma unroll
    for (int b = 0; b < LOAD_BATCH; ++b) {
      if (base + b * TILE_ITEMS < count) tile_quads[base + b * TILE_ITEMS] = quad[b];
    }
  }
}

// dst at `at` = value, its alpha the pixel's own (`own`'s, src's, or dst's when combining:
// then `own` is dst's word there, merged with value).
inline void store_word(__global const uint* src, __global uint* dst, size_t at, uint value,
                       uint own) {
#if TILE_COMBINE
  value = packed_word(merge_word(packed_of(value), own));
#elif !ALPHA_IN_RING
  own = src[at];
#endif
  dst[at] = alpha_from(value, own, ALPHA_INDEX);
}

#if TILE_IN_PLACE
#define ACROSS_STRIDE TILE_STRIDE  // the horizontal results' row stride
#else
#define ACROSS_STRIDE STRIP_COLS
#endif

// The vertical pass over one segment of the chunk (stream rows q.., `rows` of them left in the
// chunk; `column`: its first horizontal result in this item's column): the segment's running
// prefix merged with the previous segment's suffix extrema (`ring`), one output row per stream
// row once the stream is past its first TILE_RECT_H - 1 rows.
inline void vertical_segment(uint* ring, __local const uint* column, __global const uint* src,
                             __global uint* dst, int width, int x, int y0, int q, int rows,
                             bool owns_column) {
  packed4 prefix = packed_of(NEUTRAL_WORD);
  // Output row y0 + q + j - (TILE_RECT_H - 1); below y0 while the stream warms up (unused).
  size_t at = (size_t)(y0 + q - (TILE_RECT_H - 1)) * width + x;
#if TILE_COMBINE
  // The words this segment merges into, all loaded before its first store: the compiler cannot
  // tell that a store and the next output's load never alias, and would wait for each load.
  uint prior[TILE_RECT_H];
#pragma unroll
  for (int j = 0; j < TILE_RECT_H; ++j) {
    const bool output = j < rows && owns_column && q + j >= TILE_RECT_H - 1;
    prior[j] = output ? dst[at + (size_t)j * width] : 0;
  }
#endif
#pragma unroll
  for (int j = 0; j < TILE_RECT_H; ++j) {
    if (j < rows) {
      const uint word = column[j * ACROSS_STRIDE];
      prefix = merge_word(prefix, word);
      if (owns_column && q + j >= TILE_RECT_H - 1) {
#if ALPHA_IN_RING
        // The output's own row: this segment's row j - ALPHA_DELAY (its word), else the
        // previous segment's (its suffix word kept that row's alpha).
        const uint own = ALPHA_DELAY == 0   ? word
                         : j >= ALPHA_DELAY ? ring[j - ALPHA_DELAY]
                                            : ring[j - ALPHA_DELAY + TILE_RECT_H];
#elif TILE_COMBINE
        const uint own = prior[j];
#else
        const uint own = 0;
#endif
        store_word(src, dst, at, packed_word(merge_word(prefix, ring[j + 1])), own);
      }
      ring[j] = word;
    }
    at += width;
  }
  if (rows >= TILE_RECT_H) {  // the segment is complete: its suffix extrema, in place
    packed4 suffix = packed_of(NEUTRAL_WORD);
#pragma unroll
    for (int k = TILE_RECT_H - 1; k >= 0; --k) {
      suffix = merge_word(suffix, ring[k]);
      ring[k] = ALPHA_IN_RING ? alpha_from(packed_word(suffix), ring[k], ALPHA_INDEX)
                              : packed_word(suffix);
    }
  }
}

__kernel __attribute__((reqd_work_group_size(TILE_ITEMS, 1, 1))) void morph_rect_tile(
    __global const uint* restrict src, __global uint* restrict dst, int width, int height) {
  __local uint4 tile_quads[TILE_CHUNK * TILE_QUADS];
  __local uint* tile = (__local uint*)tile_quads;
#if !TILE_IN_PLACE
  __local uint across_rows[TILE_CHUNK * STRIP_COLS];
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
    horizontal_in_place(tile + lead, rows);
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
      vertical_segment(ring, across + s * ACROSS_STRIDE + tid, src, dst, width, x, y0, q0 + s,
                       rows - s, owns_column);
    }
#if TILE_IN_PLACE
    barrier(CLK_LOCAL_MEM_FENCE);  // the vertical pass is done with the tile
#endif
  }
}
