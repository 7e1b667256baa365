// One erosion (OP_ERODE=1) or dilation (OP_ERODE=0) of an RGBA image with an element made of
// levels: its rows dy and -dy span the same columns, centred on the anchor, and a row nearer the
// anchor reaches at least as far (square ellipses, crosses, rects). Pixels outside the image are
// the neutral value (docs/FILTERS.md, erode); alpha is the input pixel's own.
//
// Compile-time: LEVELS_M (the element has 2 LEVELS_M + 1 rows, anchor in the middle),
// LEVELS_REACH (a brace list: the columns level m = |dy| reaches each side, m = 0..LEVELS_M,
// not growing with m, at most APRON), LEVELS_ITEMS work items (output columns) per group and
// LEVELS_STRIP output rows per group (the strip plus 2 LEVELS_M rows fill whole chunks).
//
// A group streams down its strip RING input rows at a time through local memory. For each input
// row a work item takes its column's extremum over level M's span and widens it level by level,
// each new column pair read once (one three-way extremum per step). Rows go in pairs: each
// output in flight folds in what it sees of both rows in one three-way extremum (row r at level
// |r - y|, row r + 1 at level |r + 1 - y|). The outputs in flight are a ring of RING
// accumulators in registers whose slots are compile-time constants once the pair loop is
// unrolled; each output's own pixel (its alpha) waits in a second ring.
#ifdef LEVELS_M
#define M LEVELS_M
#define RING (2 * M + 2)  // outputs a pair of rows reaches; input rows per chunk
#define APRON (2 * QUAD)  // words loaded either side of the strip: at least the reach
#define LINE (LEVELS_ITEMS + 2 * APRON)
#define SLOT(s, d) ((((s) + (d)) % RING + RING) % RING)  // output r + d of chunk row s

// The extremum of three packed words: on NVIDIA two min.u16x2 (or max) in one statement, which
// ptxas fuses into one three-way instruction per half.
#if PTX_PACKED
inline uint ptx_combine3(uint a, uint b, uint c) {
  uint r;
#if OP_ERODE
  asm("{.reg .b32 t; min.u16x2 t, %1, %2; min.u16x2 %0, t, %3;}"
      : "=r"(r)
      : "r"(a), "r"(b), "r"(c));
#else
  asm("{.reg .b32 t; max.u16x2 t, %1, %2; max.u16x2 %0, t, %3;}"
      : "=r"(r)
      : "r"(a), "r"(b), "r"(c));
#endif
  return r;
}
inline packed4 packed_combine3(packed4 a, packed4 b, packed4 c) {
  return (uint2)(ptx_combine3(a.x, b.x, c.x), ptx_combine3(a.y, b.y, c.y));
}
#else
inline packed4 packed_combine3(packed4 a, packed4 b, packed4 c) {
  return PACKED_COMBINE(PACKED_COMBINE(a, b), c);
}
#endif

// The row's extremum at this item's column (`row`) over every level's span: at[m] over level
// m's, widened from level M's inward.
inline void level_extrema(__local const uint* row, packed4* at) {
  const int reach[M + 1] = LEVELS_REACH;
  packed4 v = packed_of(row[0]);
#pragma unroll
  for (int m = M; m >= 0; --m) {
    const int from = m == M ? 0 : reach[m + 1];
#pragma unroll
    for (int c = from; c < reach[m]; ++c) {
      v = packed_combine3(v, packed_of(row[-c - 1]), packed_of(row[c + 1]));
    }
    at[m] = v;
  }
}

// Output row y from slot k, with its own pixel's alpha, if it is this group's; the slot is left
// neutral for the output RING rows on.
inline void emit(packed4* acc, const uint* own, int k, int y, int y0, int y_end, int x, int width,
                 __global uint* dst) {
  if (y >= y0 && y < y_end && x < width) {
    dst[(size_t)y * width + x] = alpha_from(packed_word(acc[k]), own[k], ALPHA_INDEX);
  }
  acc[k] = packed_of(NEUTRAL_WORD);
}

__kernel __attribute__((reqd_work_group_size(LEVELS_ITEMS, 1, 1))) void morph_levels(
    __global const uint* restrict src, __global uint* restrict dst, int width, int height) {
  __local uint4 tile_quads[RING * LINE / QUAD];
  __local uint* tile = (__local uint*)tile_quads;
  const int tid = get_local_id(0);
  const int x0 = get_group_id(0) * LEVELS_ITEMS;
  const int y0 = get_group_id(1) * LEVELS_STRIP;
  const int x = x0 + tid;
  const int y_end = min(y0 + LEVELS_STRIP, height);
  packed4 acc[RING];
  uint own[RING];  // slot k: the pixel of the output in slot k (its alpha)
#pragma unroll
  for (int k = 0; k < RING; ++k) {
    acc[k] = packed_of(NEUTRAL_WORD);
    own[k] = 0;
  }
  // Input row r0 + s is chunk row s; output y sits in slot (y - y0 + M) mod RING, which is
  // SLOT(s, d) for output r0 + s + d, since r0 - (y0 - M) is a multiple of RING.
  for (int r0 = y0 - M; r0 < y_end + M; r0 += RING) {
    barrier(CLK_LOCAL_MEM_FENCE);  // every item is done with the previous rows
    load_word_rows(tile, src, x0 - APRON, r0, LINE, RING, width, height, BORDER_CONSTANT,
                   NEUTRAL_WORD);
    barrier(CLK_LOCAL_MEM_FENCE);
#pragma unroll
    for (int s = 0; s < RING; s += 2) {
      const int r = r0 + s;  // rows r and r + 1
      if (r >= y_end + M) break;
      __local const uint* first_row = tile + s * LINE + APRON + tid;
      __local const uint* second_row = first_row + LINE;
      packed4 first[M + 1];
      packed4 second[M + 1];
      level_extrema(first_row, first);
      level_extrema(second_row, second);
      own[SLOT(s, 0)] = first_row[0];
      own[SLOT(s, 1)] = second_row[0];
      // Output r - M sees row r only (row r + 1 lies below its element) and is then complete;
      // output r + M + 1 sees row r + 1 only. Each emitted slot takes an output of the next pair.
      acc[SLOT(s, -M)] = PACKED_COMBINE(acc[SLOT(s, -M)], first[M]);
      emit(acc, own, SLOT(s, -M), r - M, y0, y_end, x, width, dst);
      acc[SLOT(s, M + 1)] = PACKED_COMBINE(acc[SLOT(s, M + 1)], second[M]);
#pragma unroll
      for (int d = 1 - M; d <= M; ++d) {  // output r + d: row r at dy = -d, r + 1 at 1 - d
        acc[SLOT(s, d)] =
            packed_combine3(acc[SLOT(s, d)], first[d < 0 ? -d : d], second[d > 1 ? d - 1 : 1 - d]);
      }
      emit(acc, own, SLOT(s, 1 - M), r + 1 - M, y0, y_end, x, width, dst);
    }
  }
}
#endif
