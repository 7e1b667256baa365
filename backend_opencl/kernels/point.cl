// Per-pixel ops: gray, the YCrCb luma, thresholds, lookup tables, colour equalization, and
// 2x2 max pooling.

// OpenCV 4.6's RGB2YCrCb_i / YCrCb2RGB_i constants (shift 14): docs/FILTERS.md, equalize,
// and filter_math's rgb_to_ycrcb / ycrcb_to_rgb, which the cross-backend suite checks against.
#define YUV_SHIFT 14
#define R2Y 4899
#define G2Y 9617
#define B2Y 1868
#define CR_FROM_R_MINUS_Y 11682
#define CB_FROM_B_MINUS_Y 9241
#define CHROMA_OFFSET 128
#define R_FROM_CR 22987
#define G_FROM_CR (-11698)
#define G_FROM_CB (-5636)
#define B_FROM_CB 29049
#define FOREGROUND 255
#define BACKGROUND 0

inline int descale(int v) { return (v + (1 << (YUV_SHIFT - 1))) >> YUV_SHIFT; }

inline int luma_at(__global const uchar* src, size_t at) {
  return descale(R2Y * src[at] + G2Y * src[at + 1] + B2Y * src[at + 2]);
}

// dst (1 channel) = the gray of src; the host copies a gray input instead.
__kernel void gray_plane(__global const uchar* src, __global uchar* dst, int width, int height) {
  const int x = get_global_id(0);
  const int y = get_global_id(1);
  if (x >= width || y >= height) return;
  const size_t at = sample_at(x, y, 0, width);
  dst[(size_t)y * width + x] = gray_of(src[at], src[at + 1], src[at + 2]);
}

// dst (1 channel) = the Y of YCrCb (colour equalization's histogram).
__kernel void luma_plane(__global const uchar* src, __global uchar* dst, int width, int height) {
  const int x = get_global_id(0);
  const int y = get_global_id(1);
  if (x >= width || y >= height) return;
  dst[(size_t)y * width + x] = convert_uchar_sat(luma_at(src, sample_at(x, y, 0, width)));
}

// dst = 255 where src > threshold, else 0 (1 channel).
__kernel void threshold(__global const uchar* src, __global uchar* dst, int width, int height,
                        int threshold) {
  const int x = get_global_id(0);
  const int y = get_global_id(1);
  if (x >= width || y >= height) return;
  const size_t at = (size_t)y * width + x;
  dst[at] = src[at] > threshold ? FOREGROUND : BACKGROUND;
}

// dst = lut[src] (1 channel).
__kernel void apply_lut(__global const uchar* src, __global uchar* dst, int width, int height,
                        __constant uchar* lut) {
  const int x = get_global_id(0);
  const int y = get_global_id(1);
  if (x >= width || y >= height) return;
  const size_t at = (size_t)y * width + x;
  dst[at] = lut[src[at]];
}

// Colour equalization: (lut[Y], Cr, Cb) back to RGB; alpha copied.
__kernel void equalize_color(__global const uchar* src, __global uchar* dst, int width, int height,
                             __constant uchar* lut) {
  const int x = get_global_id(0);
  const int y = get_global_id(1);
  if (x >= width || y >= height) return;
  const size_t at = sample_at(x, y, 0, width);
  const int r = src[at];
  const int b = src[at + 2];
  const int luma = convert_uchar_sat(luma_at(src, at));
  const int cr =
      convert_uchar_sat(descale((r - luma) * CR_FROM_R_MINUS_Y + (CHROMA_OFFSET << YUV_SHIFT))) -
      CHROMA_OFFSET;
  const int cb =
      convert_uchar_sat(descale((b - luma) * CB_FROM_B_MINUS_Y + (CHROMA_OFFSET << YUV_SHIFT))) -
      CHROMA_OFFSET;
  const int equalized = lut[luma];
  dst[at] = convert_uchar_sat(equalized + descale(cr * R_FROM_CR));
  dst[at + 1] = convert_uchar_sat(equalized + descale(cb * G_FROM_CB + cr * G_FROM_CR));
  dst[at + 2] = convert_uchar_sat(equalized + descale(cb * B_FROM_CB));
#if HAS_ALPHA
  dst[at + ALPHA] = src[at + ALPHA];
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
