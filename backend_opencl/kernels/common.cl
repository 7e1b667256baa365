// Helpers every program starts with (the host prepends this file).
//
// The host defines the spec's constants from its own headers (GRAY_R, GRAY_G, GRAY_B,
// GRAY_SHIFT, BINS, BORDER_*, SOBEL_*, the YCrCb constants) and, per program, CN: the image's
// channel count.
#ifndef CN
#define CN 1
#endif
// Channels the colour filters touch: R, G, B; a 4th (alpha) is copied.
#define FCN (CN > 3 ? 3 : CN)
#define HAS_ALPHA (CN == 4)
#define ALPHA 3

// The index that coordinate i outside [0, n) reads (OpenCV's borderInterpolate), or -1 for
// BORDER_CONSTANT, meaning "the border value". docs/FILTERS.md, Borders.
inline int border_index(int i, int n, int kind) {
  if (i >= 0 && i < n) return i;
  if (kind == BORDER_REPLICATE) return i < 0 ? 0 : n - 1;
  if (kind == BORDER_REFLECT101) {
    if (n == 1) return 0;
    while (i < 0 || i >= n) i = i < 0 ? -i : 2 * n - 2 - i;
    return i;
  }
  return -1;
}

// The pixel word at (x, y) of an RGBA image, through the border outside it (border_word: the
// border value in every byte).
inline uint bordered_word(__global const uint* src, int x, int y, int width, int height,
                          int border_kind, uint border_word) {
  const int bx = border_index(x, width, border_kind);
  const int by = border_index(y, height, border_kind);
  return bx < 0 || by < 0 ? border_word : src[(size_t)by * width + bx];
}

// Four samples in one 32-bit word, their extrema byte by byte (the RGBA morphology kernels'
// pixel words). With PTX_PACKED (an NVIDIA device whose compiler takes this inline PTX, which
// the host probes) a word is worked on as two halves in 16-bit lanes: the word shifted up a
// byte (bytes 0 and 2 high in their lanes) and the word as it is (bytes 1 and 3), one
// min.u16x2 or max.u16x2 each; a lane's high byte decides its order, so the high byte of the
// lanes' extremum is the bytes' extremum. NVIDIA's compiler otherwise takes uchar4 apart byte
// by byte. Everywhere else a word is a uchar4.
#if PTX_PACKED
typedef uint2 packed4;
inline uint ptx_min_u16x2(uint a, uint b) {
  uint r;
  asm("min.u16x2 %0, %1, %2;" : "=r"(r) : "r"(a), "r"(b));
  return r;
}
inline uint ptx_max_u16x2(uint a, uint b) {
  uint r;
  asm("max.u16x2 %0, %1, %2;" : "=r"(r) : "r"(a), "r"(b));
  return r;
}
// Bytes 1 and 3 of the shifted half, then of the word half: the four extrema in order.
#define PACKED_JOIN_SELECTOR 0x7351
inline packed4 packed_of(uint word) { return (uint2)(word << 8, word); }
inline uint packed_word(packed4 p) {
  uint r;
  asm("prmt.b32 %0, %1, %2, %3;" : "=r"(r) : "r"(p.x), "r"(p.y), "r"(PACKED_JOIN_SELECTOR));
  return r;
}
inline packed4 packed_min(packed4 a, packed4 b) {
  return (uint2)(ptx_min_u16x2(a.x, b.x), ptx_min_u16x2(a.y, b.y));
}
inline packed4 packed_max(packed4 a, packed4 b) {
  return (uint2)(ptx_max_u16x2(a.x, b.x), ptx_max_u16x2(a.y, b.y));
}
#else
typedef uchar4 packed4;
inline packed4 packed_of(uint word) { return as_uchar4(word); }
inline uint packed_word(packed4 p) { return as_uint(p); }
inline packed4 packed_min(packed4 a, packed4 b) { return min(a, b); }
inline packed4 packed_max(packed4 a, packed4 b) { return max(a, b); }
#endif

// The morphology programs' step (OP_ERODE=1: min, 0: max) on pixel words.
#ifdef OP_ERODE
#if OP_ERODE
#define PACKED_COMBINE packed_min
#define NEUTRAL_WORD 0xFFFFFFFFu
#else
#define PACKED_COMBINE packed_max
#define NEUTRAL_WORD 0u
#endif
#define ALPHA_BYTE 0xFF000000u
#define ALPHA_INDEX 3  // ALPHA_BYTE's byte in a pixel word
#define ALPHA_SHIFT (8 * ALPHA_INDEX)
inline packed4 merge_word(packed4 acc, uint word) { return PACKED_COMBINE(acc, packed_of(word)); }
// `value` with its alpha byte replaced by byte b of `pack`.
inline uint alpha_from(uint value, uint pack, int b) {
#if PTX_PACKED
  uint r;
  // Bytes 0-2 of value, then byte b of pack (prmt numbers the second word's bytes 4-7).
  const uint selector = 0x0210u | (uint)(4 + b) << 12;
  asm("prmt.b32 %0, %1, %2, %3;" : "=r"(r) : "r"(value), "r"(pack), "r"(selector));
  return r;
#else
  return (value & ~ALPHA_BYTE) | (pack >> (8 * b)) << ALPHA_SHIFT;
#endif
}
#endif

// Offset of sample c of pixel (x, y) in an image of `width` pixels with CN channels.
inline size_t sample_at(int x, int y, int c, int width) {
  return ((size_t)y * (size_t)width + (size_t)x) * CN + (size_t)c;
}

// Sample c of the pixel at (bx, by), mapped coordinates from border_index (-1: the value).
inline int mapped_sample(__global const uchar* src, int bx, int by, int c, int width,
                         int border_value) {
  return (bx < 0 || by < 0) ? border_value : src[sample_at(bx, by, c, width)];
}

// Sample c at (x, y), which may lie outside the image.
inline int bordered_sample(__global const uchar* src, int x, int y, int c, int width, int height,
                           int border_kind, int border_value) {
  return mapped_sample(src, border_index(x, width, border_kind),
                       border_index(y, height, border_kind), c, width, border_value);
}

#define QUAD 4  // pixels (words) in a quad

// Four output pixel words from column x of row y (the quads kernels): one 16-byte store where
// the row is whole quads, else word by word within the row.
inline void store_word_quad(__global uint* dst, int x, int y, int width, uint4 out) {
  const size_t at = (size_t)y * width + x;
  if (x + QUAD <= width && width % QUAD == 0) {
    ((__global uint4*)dst)[at / QUAD] = out;
    return;
  }
  dst[at] = out.s0;  // x < width: the work item has a pixel
  if (x + 1 < width) dst[at + 1] = out.s1;
  if (x + 2 < width) dst[at + 2] = out.s2;
  if (x + 3 < width) dst[at + 3] = out.s3;
}

// The quads kernels' rows in registers (the callers' loops over rows are unrolled, so `row`'s
// indices are constants). Pixel words x - 1 .. x + 4 of the row whose word x is at `at`, all
// inside the image, x a multiple of 4: the quad in one 16-byte load and the word either side.
inline void load_quad_and_sides(__global const uint* src, size_t at, uint* row) {
  const uint4 quad = ((__global const uint4*)src)[at / QUAD];
  row[0] = src[at - 1];
  row[1] = quad.s0;
  row[2] = quad.s1;
  row[3] = quad.s2;
  row[4] = quad.s3;
  row[QUAD + 1] = src[at + QUAD];
}

// Pixel words x0 .. x0 + span - 1 of row y, through the border outside the image.
inline void load_bordered_words(__global const uint* src, int x0, int y, int span, int width,
                                int height, int border_kind, uint border_word, uint* row) {
#pragma unroll
  for (int i = 0; i < span; ++i) {
    row[i] = bordered_word(src, x0 + i, y, width, height, border_kind, border_word);
  }
}

// Copies `rows` rows of `cols` pixel words from image column x0, row y0 into `tile` (rows of
// `cols` words, 16-byte aligned), every work item of the 1-D group taking part; coordinates
// outside the image are mapped by the border, `constant_word` where it says "the border value".
// Rows wholly inside the image go by 16-byte copies where they start on a 16-byte boundary.
inline void load_word_rows(__local uint* tile, __global const uint* src, int x0, int y0, int cols,
                           int rows, int width, int height, int border_kind, uint constant_word) {
  const bool inside = x0 >= 0 && y0 >= 0 && x0 + cols <= width && y0 + rows <= height;
  // Two loops in sequence, each empty when the other runs: a branch between two loops, right
  // after a barrier, fails PoCL 5.0's work-group compiler (an assertion in its region former).
  const bool by_quads = inside && x0 % QUAD == 0 && cols % QUAD == 0 && width % QUAD == 0;
  const int quads = cols / QUAD;
  __global const uint4* from = (__global const uint4*)src;
  __local uint4* to = (__local uint4*)tile;
  const int quad_count = by_quads ? rows * quads : 0;
  for (int i = get_local_id(0); i < quad_count; i += get_local_size(0)) {
    const int r = i / quads;
    to[i] = from[((size_t)(y0 + r) * width + x0) / QUAD + (i - r * quads)];
  }
  const int word_count = by_quads ? 0 : rows * cols;
  for (int i = get_local_id(0); i < word_count; i += get_local_size(0)) {
    const int r = i / cols;
    const int c = i - r * cols;
    if (inside) {
      tile[i] = src[(size_t)(y0 + r) * width + x0 + c];
    } else {
      const int bx = border_index(x0 + c, width, border_kind);
      const int by = border_index(y0 + r, height, border_kind);
      tile[i] = bx < 0 || by < 0 ? constant_word : src[(size_t)by * width + bx];
    }
  }
}

// The Q15 BT.601 luma of docs/FILTERS.md (filter_math's gray_of).
inline uchar gray_of(int r, int g, int b) {
  return (uchar)((GRAY_R * r + GRAY_G * g + GRAY_B * b + (1 << (GRAY_SHIFT - 1))) >> GRAY_SHIFT);
}

// gray_of of an RGBA pixel word. With PTX_PACKED two dot products of 16-bit weights and bytes
// (R and G, then B), as CUDA's kernels do; the sums are those of gray_of.
#if PTX_PACKED
inline int gray_of_word(uint v) {
  uint sum;
  asm("dp2a.lo.u32.u32 %0, %1, %2, %3;"
      : "=r"(sum)
      : "r"((uint)GRAY_R | (uint)GRAY_G << 16), "r"(v), "r"(1u << (GRAY_SHIFT - 1)));
  asm("dp2a.hi.u32.u32 %0, %1, %2, %3;" : "=r"(sum) : "r"((uint)GRAY_B), "r"(v), "r"(sum));
  return sum >> GRAY_SHIFT;
}
#else
inline int gray_of_word(uint v) { return gray_of(v & 0xFF, (v >> 8) & 0xFF, (v >> 16) & 0xFF); }
#endif

// Loads the tile_w x tile_h pixels from (x0, y0) into `tile` (rows of tile_w * CN samples),
// with border samples where they lie outside the image. Every work item of the group takes
// part, consecutive items reading consecutive samples; a tile wholly inside the image (most
// of them) skips the border mapping.
inline void load_tile(__local uchar* tile, __global const uchar* src, int x0, int y0, int tile_w,
                      int tile_h, int width, int height, int border_kind, int border_value) {
  const int lid = get_local_id(1) * get_local_size(0) + get_local_id(0);
  const int group = get_local_size(0) * get_local_size(1);
  const int row_samples = tile_w * CN;
  const bool inside = x0 >= 0 && y0 >= 0 && x0 + tile_w <= width && y0 + tile_h <= height;
  for (int i = lid; i < tile_h * row_samples; i += group) {
    const int ty = i / row_samples;
    const int ts = i - ty * row_samples;
    tile[i] = inside ? src[sample_at(x0, y0 + ty, 0, width) + ts]
                     : (uchar)bordered_sample(src, x0 + ts / CN, y0 + ty, ts % CN, width, height,
                                              border_kind, border_value);
  }
  barrier(CLK_LOCAL_MEM_FENCE);
}
