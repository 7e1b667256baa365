// One erosion (OP_ERODE=1: min) or dilation (OP_ERODE=0: max) with a structuring element,
// per colour channel, alpha copied; pixels outside the image are ignored, i.e. they are the
// operation's neutral value (docs/FILTERS.md, erode). The element comes from the host's
// make_structuring_element as row spans [x0, x1) (spans[j] = (x0, x1)) and an anchor.
#if OP_ERODE
#define COMBINE min
#define NEUTRAL UCHAR_MAX
#else
#define COMBINE max
#define NEUTRAL 0
#endif

inline void store_pixel(__global const uchar* src, __global uchar* dst, int x, int y, int width,
                        const uchar* acc) {
  for (int c = 0; c < FCN; ++c) dst[sample_at(x, y, c, width)] = acc[c];
#if HAS_ALPHA
  dst[sample_at(x, y, ALPHA, width)] = src[sample_at(x, y, ALPHA, width)];
#endif
}

// naive: one pixel per work item, every set element pixel over the image.
__kernel void morph_naive(__global const uchar* src, __global uchar* dst, int width, int height,
                          __constant int2* spans, int se_width, int se_height, int anchor_x,
                          int anchor_y) {
  const int x = get_global_id(0);
  const int y = get_global_id(1);
  if (x >= width || y >= height) return;
  uchar acc[FCN];
  for (int c = 0; c < FCN; ++c) acc[c] = NEUTRAL;
  // Away from the edges every pixel runs the same loops (no clipping), which vectorizes.
  const bool inside = x >= anchor_x && y >= anchor_y && x + se_width - anchor_x <= width &&
                      y + se_height - anchor_y <= height;
  for (int j = 0; j < se_height; ++j) {
    const int sy = y + j - anchor_y;
    if (!inside && (sy < 0 || sy >= height)) continue;
    int lo = x + spans[j].x - anchor_x;
    int hi = x + spans[j].y - anchor_x;
    if (!inside) {
      lo = max(0, lo);
      hi = min(width, hi);
    }
    for (int sx = lo; sx < hi; ++sx) {
      for (int c = 0; c < FCN; ++c) acc[c] = COMBINE(acc[c], src[sample_at(sx, sy, c, width)]);
    }
  }
  store_pixel(src, dst, x, y, width, acc);
}

// vector: the naive loop on 16 consecutive samples of a row at once, min/max of uchar16 read
// with unaligned vload16 (the channels interleaved: a pixel's neighbours are CN samples away).
// Samples whose footprint crosses the left or right edge, and the row's tail, take a
// per-sample loop; rows outside the image are skipped for all lanes alike.
#define VLANES 16

inline uchar morph_sample(__global const uchar* src, int x, int y, int c, int width, int height,
                          __constant int2* spans, int se_height, int anchor_x, int anchor_y) {
  uchar acc = NEUTRAL;
  for (int j = 0; j < se_height; ++j) {
    const int sy = y + j - anchor_y;
    if (sy < 0 || sy >= height) continue;
    const int hi = min(width, x + spans[j].y - anchor_x);
    for (int sx = max(0, x + spans[j].x - anchor_x); sx < hi; ++sx) {
      acc = COMBINE(acc, src[sample_at(sx, sy, c, width)]);
    }
  }
  return acc;
}

__kernel void morph_vector(__global const uchar* src, __global uchar* dst, int width, int height,
                           __constant int2* spans, int se_width, int se_height, int anchor_x,
                           int anchor_y) {
  const int s0 = get_global_id(0) * VLANES;
  const int y = get_global_id(1);
  const int row_samples = width * CN;
  if (s0 >= row_samples || y >= height) return;
  const size_t row = (size_t)y * row_samples;
  if (s0 < anchor_x * CN || s0 + VLANES + (se_width - 1 - anchor_x) * CN > row_samples) {
    for (int s = s0; s < min(s0 + VLANES, row_samples); ++s) {
      const int c = s % CN;
      dst[row + s] = (HAS_ALPHA && c == ALPHA) ? src[row + s]
                                               : morph_sample(src, s / CN, y, c, width, height,
                                                              spans, se_height, anchor_x, anchor_y);
    }
    return;
  }
  uchar16 acc = (uchar16)(NEUTRAL);
  for (int j = 0; j < se_height; ++j) {
    const int sy = y + j - anchor_y;
    if (sy < 0 || sy >= height) continue;
    const __global uchar* line = src + (size_t)sy * row_samples + s0 - anchor_x * CN;
    for (int i = spans[j].x; i < spans[j].y; ++i) acc = COMBINE(acc, vload16(0, line + i * CN));
  }
#if HAS_ALPHA  // s0 is a multiple of 16: lanes 3, 7, 11, 15 are alpha
  acc = select(acc, vload16(0, src + row + s0),
               (uchar16)(0, 0, 0, 255, 0, 0, 0, 255, 0, 0, 0, 255, 0, 0, 0, 255));
#endif
  vstore16(acc, 0, dst + row + s0);
}

// columns: the element split into column groups, each a set of element columns whose set rows
// are the same run [y0, y1). For each group, the work-group first computes in local memory
// the min/max over that run of every image column its tile reads (TILE_W + element width - 1
// columns per row of the tile), then each pixel combines the group's columns from there.
// groups[g] = (y0, y1, first column index in `columns`, column count); a group whose run
// contains the previous group's (the host sorts nested runs innermost first) only adds the
// rows outside the previous run to the local minima instead of recomputing them.
__kernel __attribute__((reqd_work_group_size(TILE_W, TILE_H, 1))) void morph_columns(
    __global const uchar* src, __global uchar* dst, int width, int height, __constant int4* groups,
    int group_count, __constant int* columns, int se_width, int anchor_x, int anchor_y) {
  __local uchar column_acc[TILE_H * (TILE_W + MAX_SE_SIZE - 1) * FCN];
  const int tile_x0 = get_group_id(0) * TILE_W;
  const int tile_y0 = get_group_id(1) * TILE_H;
  const int lx = get_local_id(0);
  const int ly = get_local_id(1);
  const int lid = ly * TILE_W + lx;
  const int tile_columns = TILE_W + se_width - 1;
  const int first_column = tile_x0 - anchor_x;  // image column of column_acc's column 0
  uchar acc[FCN];
  for (int c = 0; c < FCN; ++c) acc[c] = NEUTRAL;
  int prev_y0 = 0;
  int prev_y1 = 0;  // the previous group's run; empty at first
  for (int g = 0; g < group_count; ++g) {
    const int4 group = groups[g];
    const bool extend = prev_y0 < prev_y1 && group.x <= prev_y0 && prev_y1 <= group.y;
    for (int i = lid; i < TILE_H * tile_columns; i += TILE_W * TILE_H) {
      const int r = i / tile_columns;
      const int sx = first_column + (i - r * tile_columns);
      const int yy = tile_y0 + r;
      uchar v[FCN];
      for (int c = 0; c < FCN; ++c) v[c] = extend ? column_acc[i * FCN + c] : NEUTRAL;
      if (sx >= 0 && sx < width) {
        // Rows of the run, skipping those already in the previous run when extending.
        const int lo = max(0, yy + group.x - anchor_y);
        const int hi = min(height, yy + group.y - anchor_y);
        const int skip_lo = extend ? yy + prev_y0 - anchor_y : hi;
        const int skip_hi = extend ? yy + prev_y1 - anchor_y : hi;
        for (int sy = lo; sy < hi; ++sy) {
          if (sy >= skip_lo && sy < skip_hi) sy = skip_hi;
          if (sy >= hi) break;
          for (int c = 0; c < FCN; ++c) v[c] = COMBINE(v[c], src[sample_at(sx, sy, c, width)]);
        }
      }
      for (int c = 0; c < FCN; ++c) column_acc[i * FCN + c] = v[c];
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int k = group.z; k < group.z + group.w; ++k) {
      const int at = (ly * tile_columns + lx + columns[k]) * FCN;
      for (int c = 0; c < FCN; ++c) acc[c] = COMBINE(acc[c], column_acc[at + c]);
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    prev_y0 = group.x;
    prev_y1 = group.y;
  }
  const int x = tile_x0 + lx;
  const int y = tile_y0 + ly;
  if (x < width && y < height) store_pixel(src, dst, x, y, width, acc);
}

// van Herk/Gil-Werman: out(x) = combine of in over [x + offset, x + offset + window) clipped to
// the line, in about 3 operations per sample whatever the window. The line is cut into blocks
// of `window` positions a = x + offset, aligned at multiples of `window`; the window starting
// at a is the suffix of a's block from a, plus the prefix of the next block up to
// a + window - 1. One work item per block and line writes the suffixes, then combines the
// next block's running prefix into them. `step` is the distance between positions along the
// line (CN: a row; width * CN: a column) and `line_step` between lines.
inline void vhgw_line(__global const uchar* in, __global uchar* out, int length, int window,
                      int offset, int block, int step, size_t line_start) {
  const int a0 = block * window;  // the block's first position (may be negative)
  uchar run[FCN];
  for (int c = 0; c < FCN; ++c) run[c] = NEUTRAL;
  for (int a = a0 + window - 1; a >= a0; --a) {  // suffixes of this block
    if (a >= 0 && a < length) {
      for (int c = 0; c < FCN; ++c) run[c] = COMBINE(run[c], in[line_start + (size_t)a * step + c]);
    }
    const int x = a - offset;
    if (x >= 0 && x < length) {
      for (int c = 0; c < FCN; ++c) out[line_start + (size_t)x * step + c] = run[c];
    }
  }
  for (int c = 0; c < FCN; ++c) run[c] = NEUTRAL;
  for (int a = a0 + 1; a < a0 + window; ++a) {  // prefixes of the next block
    const int enter = a + window - 1;
    if (enter >= 0 && enter < length) {
      for (int c = 0; c < FCN; ++c)
        run[c] = COMBINE(run[c], in[line_start + (size_t)enter * step + c]);
    }
    const int x = a - offset;
    if (x >= 0 && x < length) {
      const size_t at = line_start + (size_t)x * step;
      for (int c = 0; c < FCN; ++c) out[at + c] = COMBINE(out[at + c], run[c]);
    }
  }
}

inline int floor_div(int a, int b) { return a >= 0 ? a / b : -((-a + b - 1) / b); }

// Along rows: work item (block, row).
__kernel void vhgw_rows(__global const uchar* src, __global uchar* dst, int width, int height,
                        int window, int offset) {
  const int y = get_global_id(1);
  const int block = floor_div(offset, window) + (int)get_global_id(0);
  if (y >= height || block > floor_div(width - 1 + offset, window)) return;
  vhgw_line(src, dst, width, window, offset, block, CN, (size_t)y * width * CN);
}

// Along columns: work item (column, block), so that neighbouring items read neighbouring
// columns. The result goes to acc, combined with what acc holds unless `first`; alpha comes
// from `alpha_src`.
__kernel void vhgw_columns(__global const uchar* src, __global uchar* tmp, __global uchar* acc,
                           __global const uchar* alpha_src, int width, int height, int window,
                           int offset, int first) {
  const int x = get_global_id(0);
  const int block = floor_div(offset, window) + (int)get_global_id(1);
  if (x >= width || block > floor_div(height - 1 + offset, window)) return;
  const size_t column = (size_t)x * CN;
  vhgw_line(src, tmp, height, window, offset, block, width * CN, column);
  // This item wrote exactly the outputs y = a - offset for a in its block: combine those.
  for (int a = block * window; a < block * window + window; ++a) {
    const int y = a - offset;
    if (y < 0 || y >= height) continue;
    const size_t at = sample_at(x, y, 0, width);
    for (int c = 0; c < FCN; ++c)
      acc[at + c] = first ? tmp[at + c] : COMBINE(acc[at + c], tmp[at + c]);
#if HAS_ALPHA
    acc[at + ALPHA] = alpha_src[at + ALPHA];
#endif
  }
}

#if WITH_IMAGES
// image2d: the naive loop over an image2d_t read through a sampler (the texture path on GPUs).
// A 4-channel image is CL_RGBA texels; 1 and 3 channels are CL_R texels, 3 per pixel.
// CLK_ADDRESS_CLAMP would give 0 outside the image, the neutral value of a dilation but not
// of an erosion; CLK_ADDRESS_CLAMP_TO_EDGE gives the nearest edge pixel, which lies inside the
// element's footprint too whenever the element is closed toward its anchor (every row span
// holds the anchor column, rows nested toward the anchor row: rect, cross and ellipse), so
// the min/max is unchanged and the loop needs no bounds. Other elements (`clip`) are clipped
// to the image instead. For 3 channels the x clamp is done per pixel, since clamping texels
// would mix channels.
__constant sampler_t kClampToEdge =
    CLK_NORMALIZED_COORDS_FALSE | CLK_ADDRESS_CLAMP_TO_EDGE | CLK_FILTER_NEAREST;

inline uint4 read_pixel(read_only image2d_t img, int x, int y, int width) {
#if CN == 3
  const int tx = clamp(x, 0, width - 1) * CN;
  return (uint4)(read_imageui(img, kClampToEdge, (int2)(tx, y)).x,
                 read_imageui(img, kClampToEdge, (int2)(tx + 1, y)).x,
                 read_imageui(img, kClampToEdge, (int2)(tx + 2, y)).x, 0);
#else
  return read_imageui(img, kClampToEdge, (int2)(x, y));
#endif
}

__kernel void morph_image(read_only image2d_t src, write_only image2d_t dst, int width, int height,
                          __constant int2* spans, int se_height, int anchor_x, int anchor_y,
                          int clip) {
  const int x = get_global_id(0);
  const int y = get_global_id(1);
  if (x >= width || y >= height) return;
  uint4 acc = (uint4)(NEUTRAL);
  for (int j = 0; j < se_height; ++j) {
    const int sy = y + j - anchor_y;
    if (clip && (sy < 0 || sy >= height)) continue;
    int lo = x + spans[j].x - anchor_x;
    int hi = x + spans[j].y - anchor_x;
    if (clip) {
      lo = max(lo, 0);
      hi = min(hi, width);
    }
    for (int sx = lo; sx < hi; ++sx) acc = COMBINE(acc, read_pixel(src, sx, sy, width));
  }
#if CN == 4
  acc.w = read_pixel(src, x, y, width).w;
  write_imageui(dst, (int2)(x, y), acc);
#elif CN == 3
  write_imageui(dst, (int2)(x * CN, y), (uint4)(acc.x));
  write_imageui(dst, (int2)(x * CN + 1, y), (uint4)(acc.y));
  write_imageui(dst, (int2)(x * CN + 2, y), (uint4)(acc.z));
#else
  write_imageui(dst, (int2)(x, y), acc);
#endif
}
#endif

// rows: a small rect (RECT_W x RECT_H, anchor RECT_AX, RECT_AY, compile-time), 16 samples of a
// row per work item down a strip of STRIP rows. Each row's extremum over the element's
// columns comes from one aligned 16-byte load and the 8 bytes either side, shifted by byte
// shuffles (so the rect reaches at most 8 samples left and right); the last RECT_H of them sit
// in registers, rows outside the image as the neutral value. The host runs it where rows
// start 16-byte aligned; the vectors at a row's ends take the per-sample loop.
#ifdef RECT_W
inline uchar16 rect_row(__global const uchar* src, int y, int height, int s0, int row_samples) {
  if (y < 0 || y >= height) return (uchar16)(NEUTRAL);
  const __global uchar* p = src + (size_t)y * row_samples + s0;
  const uchar16 mid = ((__global const uchar16*)p)[0];
  const uchar16 low = (uchar16)(as_uchar8(((__global const uint2*)p)[-1]), mid.s01234567);
  const uchar16 high = (uchar16)(mid.s89abcdef, as_uchar8(((__global const uint2*)p)[2]));
  // Byte 8 of low:high is mid's first; the sample d samples away from lane k is byte 8 + k + d.
  const uchar16 lanes = (uchar16)(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
  const int middle = 8;
  uchar16 acc = mid;
#pragma unroll
  for (int i = -RECT_AX; i < RECT_W - RECT_AX; ++i) {
    if (i != 0) acc = COMBINE(acc, shuffle2(low, high, lanes + (uchar)(middle + i * CN)));
  }
  return acc;
}

__kernel void morph_rect_rows(__global const uchar* src, __global uchar* dst, int width, int height,
                              __constant int2* spans) {
  const int s0 = get_global_id(0) * VLANES;
  const int y0 = get_global_id(1) * STRIP;
  const int row_samples = width * CN;
  if (s0 >= row_samples || y0 >= height) return;
  const int y_end = min(height, y0 + STRIP);
  if (s0 < VLANES || s0 + VLANES >= row_samples) {  // the 8 bytes either side lie outside
    for (int y = y0; y < y_end; ++y) {
      for (int s = s0; s < min(s0 + VLANES, row_samples); ++s) {
        const int c = s % CN;
        const size_t at = (size_t)y * row_samples + s;
        dst[at] = (HAS_ALPHA && c == ALPHA) ? src[at]
                                            : morph_sample(src, s / CN, y, c, width, height, spans,
                                                           RECT_H, RECT_AX, RECT_AY);
      }
    }
    return;
  }
  uchar16 ring[RECT_H];  // the row extrema of rows y - RECT_AY .. y - RECT_AY + RECT_H - 1
#pragma unroll
  for (int k = 1; k < RECT_H; ++k)
    ring[k] = rect_row(src, y0 - RECT_AY + k - 1, height, s0, row_samples);
  for (int y = y0; y < y_end; ++y) {
#pragma unroll
    for (int k = 0; k < RECT_H - 1; ++k) ring[k] = ring[k + 1];
    ring[RECT_H - 1] = rect_row(src, y - RECT_AY + RECT_H - 1, height, s0, row_samples);
    uchar16 acc = ring[0];
#pragma unroll
    for (int k = 1; k < RECT_H; ++k) acc = COMBINE(acc, ring[k]);
    const size_t at = (size_t)y * row_samples + s0;
#if HAS_ALPHA  // s0 is a multiple of 16: lanes 3, 7, 11, 15 are alpha
    acc.s37bf = ((__global const uchar16*)(src + at))[0].s37bf;
#endif
    ((__global uchar16*)(dst + at))[0] = acc;
  }
}
#endif
