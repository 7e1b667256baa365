// Per-pixel ops: gray, the YCrCb luma, thresholds, lookup tables, colour equalization, and
// 2x2 max pooling.

// OpenCV 4.6's RGB2YCrCb_i / YCrCb2RGB_i constants (YUV_SHIFT, R2Y ... B_FROM_CB, the 8-bit
// CHROMA_OFFSET) are the host's (filter_math.hpp, cl_runtime.cpp): docs/FILTERS.md, equalize.
#define FOREGROUND 255
#define BACKGROUND 0

inline int descale(int v) { return (v + (1 << (YUV_SHIFT - 1))) >> YUV_SHIFT; }
inline int4 descale4(int4 v) { return (v + (1 << (YUV_SHIFT - 1))) >> YUV_SHIFT; }

// The flat kernels below take a quad (four consecutive pixels of the packed image) per work
// item: one 16-byte load for RGBA, three words for RGB, one word for a plane. Buffers start
// aligned (no sub-buffers), so quad q's loads are aligned. The last quad of an image whose
// pixel count is not a multiple of 4 goes pixel by pixel.
#define QUAD 4

inline bool full_quad(size_t q, ulong pixels) { return QUAD * q + QUAD <= pixels; }

// Quad q's samples, 4 * CN of the 16 lanes used (CN is 3 or 4).
inline uchar16 load_quad(__global const uchar* src, size_t q) {
#if CN == 4
  return ((__global const uchar16*)src)[q];
#else
  const uint3 w = vload3(q, (__global const uint*)src);
  return (uchar16)(as_uchar4(w.x), as_uchar4(w.y), as_uchar4(w.z), (uchar4)(0));
#endif
}

inline void store_quad(__global uchar* dst, size_t q, uchar16 v) {
#if CN == 4
  ((__global uchar16*)dst)[q] = v;
#else
  vstore3((uint3)(as_uint(v.s0123), as_uint(v.s4567), as_uint(v.s89ab)), q, (__global uint*)dst);
#endif
}

// The R, G and B of a quad's four pixels.
#if CN == 4
#define QUAD_R(v) convert_int4((v).s048c)
#define QUAD_G(v) convert_int4((v).s159d)
#define QUAD_B(v) convert_int4((v).s26ae)
#else
#define QUAD_R(v) convert_int4((v).s0369)
#define QUAD_G(v) convert_int4((v).s147a)
#define QUAD_B(v) convert_int4((v).s258b)
#endif

inline uchar4 gray_of_quad(uchar16 v) {
  const int4 sum = GRAY_R * QUAD_R(v) + GRAY_G * QUAD_G(v) + GRAY_B * QUAD_B(v);
  return convert_uchar4((sum + (1 << (GRAY_SHIFT - 1))) >> GRAY_SHIFT);
}

inline int4 luma_of_quad(uchar16 v) {
  return convert_int4(
      convert_uchar4_sat(descale4(R2Y * QUAD_R(v) + G2Y * QUAD_G(v) + B2Y * QUAD_B(v))));
}

inline int luma_at(__global const uchar* src, size_t at) {
  return descale(R2Y * src[at] + G2Y * src[at + 1] + B2Y * src[at + 2]);
}

// dst (1 channel) = the gray of src (CN 3 or 4; the host copies a gray input instead).
__kernel void gray_plane(__global const uchar* src, __global uchar* dst, ulong pixels) {
  const size_t q = get_global_id(0);
  if (full_quad(q, pixels)) {
    ((__global uchar4*)dst)[q] = gray_of_quad(load_quad(src, q));
    return;
  }
  for (size_t i = QUAD * q; i < pixels; ++i) {
    dst[i] = gray_of(src[i * CN], src[i * CN + 1], src[i * CN + 2]);
  }
}

// dst (1 channel) = the Y of YCrCb (colour equalization's histogram).
__kernel void luma_plane(__global const uchar* src, __global uchar* dst, ulong pixels) {
  const size_t q = get_global_id(0);
  if (full_quad(q, pixels)) {
    ((__global uchar4*)dst)[q] = convert_uchar4(luma_of_quad(load_quad(src, q)));
    return;
  }
  for (size_t i = QUAD * q; i < pixels; ++i) dst[i] = convert_uchar_sat(luma_at(src, i * CN));
}

// dst = 255 where src > threshold, else 0 (1 channel).
__kernel void threshold(__global const uchar* src, __global uchar* dst, ulong pixels,
                        int threshold) {
  const size_t q = get_global_id(0);
  if (full_quad(q, pixels)) {
    // A true vector comparison is -1: all bits set, FOREGROUND.
    const uchar4 v = ((__global const uchar4*)src)[q];
    ((__global uchar4*)dst)[q] = as_uchar4(v > (uchar4)((uchar)threshold));
    return;
  }
  for (size_t i = QUAD * q; i < pixels; ++i) dst[i] = src[i] > threshold ? FOREGROUND : BACKGROUND;
}

// The work-group's copy of a 256-entry table: items read it at scattered indices, which
// local memory serves in parallel and the constant cache would serialize.
inline void load_table(__local uchar* table, __global const uchar* lut) {
  for (int i = get_local_id(0); i < BINS; i += get_local_size(0)) table[i] = lut[i];
  barrier(CLK_LOCAL_MEM_FENCE);
}

// dst = lut[src] (1 channel).
__kernel void apply_lut(__global const uchar* src, __global uchar* dst, ulong pixels,
                        __global const uchar* lut) {
  __local uchar table[BINS];
  load_table(table, lut);
  const size_t q = get_global_id(0);
  if (full_quad(q, pixels)) {
    const uchar4 v = ((__global const uchar4*)src)[q];
    ((__global uchar4*)dst)[q] = (uchar4)(table[v.x], table[v.y], table[v.z], table[v.w]);
    return;
  }
  for (size_t i = QUAD * q; i < pixels; ++i) dst[i] = table[src[i]];
}

// Colour equalization of one pixel: (lut[Y], Cr, Cb) back to RGB; alpha copied.
inline void equalize_pixel(__global const uchar* src, __global uchar* dst, size_t at,
                           __local const uchar* table) {
  const int r = src[at];
  const int b = src[at + 2];
  const int luma = convert_uchar_sat(luma_at(src, at));
  const int cr =
      convert_uchar_sat(descale((r - luma) * CR_FROM_R_MINUS_Y + (CHROMA_OFFSET << YUV_SHIFT))) -
      CHROMA_OFFSET;
  const int cb =
      convert_uchar_sat(descale((b - luma) * CB_FROM_B_MINUS_Y + (CHROMA_OFFSET << YUV_SHIFT))) -
      CHROMA_OFFSET;
  const int equalized = table[luma];
  dst[at] = convert_uchar_sat(equalized + descale(cr * R_FROM_CR));
  dst[at + 1] = convert_uchar_sat(equalized + descale(cb * G_FROM_CB + cr * G_FROM_CR));
  dst[at + 2] = convert_uchar_sat(equalized + descale(cb * B_FROM_CB));
#if HAS_ALPHA
  dst[at + ALPHA] = src[at + ALPHA];
#endif
}

// The same, for CN 3 or 4, a quad per work item.
__kernel void equalize_color(__global const uchar* src, __global uchar* dst, ulong pixels,
                             __global const uchar* lut) {
  __local uchar table[BINS];
  load_table(table, lut);
  const size_t q = get_global_id(0);
  if (!full_quad(q, pixels)) {
    for (size_t i = QUAD * q; i < pixels; ++i) equalize_pixel(src, dst, i * CN, table);
    return;
  }
  const uchar16 v = load_quad(src, q);
  const int4 luma = luma_of_quad(v);
  const int4 chroma_offset = (int4)(CHROMA_OFFSET << YUV_SHIFT);
  const int4 cr = convert_int4(convert_uchar4_sat(
                      descale4((QUAD_R(v) - luma) * CR_FROM_R_MINUS_Y + chroma_offset))) -
                  CHROMA_OFFSET;
  const int4 cb = convert_int4(convert_uchar4_sat(
                      descale4((QUAD_B(v) - luma) * CB_FROM_B_MINUS_Y + chroma_offset))) -
                  CHROMA_OFFSET;
  const int4 equalized = (int4)(table[luma.x], table[luma.y], table[luma.z], table[luma.w]);
  const uchar4 r = convert_uchar4_sat(equalized + descale4(cr * R_FROM_CR));
  const uchar4 g = convert_uchar4_sat(equalized + descale4(cb * G_FROM_CB + cr * G_FROM_CR));
  const uchar4 b = convert_uchar4_sat(equalized + descale4(cb * B_FROM_CB));
#if CN == 4
  const uchar4 a = v.s37bf;
  store_quad(
      dst, q,
      (uchar16)(r.x, g.x, b.x, a.x, r.y, g.y, b.y, a.y, r.z, g.z, b.z, a.z, r.w, g.w, b.w, a.w));
#else
  store_quad(dst, q,
             (uchar16)(r.x, g.x, b.x, r.y, g.y, b.y, r.z, g.z, b.z, r.w, g.w, b.w, 0, 0, 0, 0));
#endif
}

// 2x2 max pooling, stride 2, every channel; the last row/column may hold partial windows.
__kernel void pool2x2(__global const uchar* src, __global uchar* dst, int width, int height) {
  const int ox = get_global_id(0);
  const int oy = get_global_id(1);
  const int out_width = (width + 1) / 2;
  if (ox >= out_width || oy >= (height + 1) / 2) return;
  const int x0 = 2 * ox;
  const int y0 = 2 * oy;
  const int x1 = min(x0 + 1, width - 1);  // a partial window repeats its pixel: same max
  const int y1 = min(y0 + 1, height - 1);
  for (int c = 0; c < CN; ++c) {
    const uchar top = max(src[sample_at(x0, y0, c, width)], src[sample_at(x1, y0, c, width)]);
    const uchar bottom = max(src[sample_at(x0, y1, c, width)], src[sample_at(x1, y1, c, width)]);
    dst[((size_t)oy * out_width + ox) * CN + c] = max(top, bottom);
  }
}

// The same for a width that is a multiple of 4 (then every row starts aligned for the loads
// below, and the output width is even): a work item takes a pair of output pixels from a quad
// of each input row, the loads and stores a word or wider.
__kernel void pool2x2_pairs(__global const uchar* src, __global uchar* dst, int width, int height) {
  const int pair = get_global_id(0);
  const int oy = get_global_id(1);
  const int out_width = width / 2;
  if (2 * pair >= out_width || oy >= (height + 1) / 2) return;
  const int y1 = min(2 * oy + 1, height - 1);  // a partial window repeats its row: same max
  __global const uchar* row0 = src + (size_t)(2 * oy) * width * CN;
  __global const uchar* row1 = src + (size_t)y1 * width * CN;
  __global uchar* out = dst + (size_t)oy * out_width * CN;
#if CN == 4
  const uchar16 m = max(load_quad(row0, pair), load_quad(row1, pair));
  ((__global uchar8*)out)[pair] = (uchar8)(max(m.s0123, m.s4567), max(m.s89ab, m.scdef));
#elif CN == 3
  const uchar16 m = max(load_quad(row0, pair), load_quad(row1, pair));
  const uchar3 left = max(m.s012, m.s345);
  const uchar3 right = max(m.s678, m.s9ab);
  vstore3(
      (ushort3)(as_ushort(left.s01), as_ushort((uchar2)(left.s2, right.s0)), as_ushort(right.s12)),
      pair, (__global ushort*)out);
#else
  const uchar4 m = max(((__global const uchar4*)row0)[pair], ((__global const uchar4*)row1)[pair]);
  ((__global uchar2*)out)[pair] = (uchar2)(max(m.s0, m.s1), max(m.s2, m.s3));
#endif
}
