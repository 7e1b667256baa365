// sharpen: out = sat(5 s(x, y) - s(x, y-1) - s(x, y+1) - s(x-1, y) - s(x+1, y)) per colour
// channel, alpha copied. Three schedules of the same sum.
#define SHARPEN_CENTRE 5

inline uchar sharpen_sample(__global const uchar* src, int x, int y, int c, int width, int height,
                            int border_kind, int border_value) {
  const int centre = src[sample_at(x, y, c, width)];
  if (HAS_ALPHA && c == ALPHA) return (uchar)centre;
  const int around = bordered_sample(src, x, y - 1, c, width, height, border_kind, border_value) +
                     bordered_sample(src, x, y + 1, c, width, height, border_kind, border_value) +
                     bordered_sample(src, x - 1, y, c, width, height, border_kind, border_value) +
                     bordered_sample(src, x + 1, y, c, width, height, border_kind, border_value);
  return convert_uchar_sat(SHARPEN_CENTRE * centre - around);
}

// naive: one work item per sample (pixel and channel).
__kernel void sharpen_naive(__global const uchar* src, __global uchar* dst, int width, int height,
                            int border_kind, int border_value) {
  const int s = get_global_id(0);
  const int y = get_global_id(1);
  if (s >= width * CN || y >= height) return;
  dst[(size_t)y * width * CN + s] =
      sharpen_sample(src, s / CN, y, s % CN, width, height, border_kind, border_value);
}

// vector: four consecutive samples of a row per work item, as uchar4. Inside the image the
// neighbours are the vectors one pixel (CN samples) left and right and one row up and down;
// the lanes of an image edge and the row's tail take the scalar path.
#define LANES 4
__kernel void sharpen_vector(__global const uchar* src, __global uchar* dst, int width, int height,
                             int border_kind, int border_value) {
  const int s0 = get_global_id(0) * LANES;
  const int y = get_global_id(1);
  const int row_samples = width * CN;
  if (s0 >= row_samples || y >= height) return;
  const size_t row = (size_t)y * row_samples;
  const bool inside = s0 >= CN && s0 + LANES + CN <= row_samples && y > 0 && y + 1 < height;
  if (inside) {
    const __global uchar* at = src + row + s0;
    const int4 centre = convert_int4(vload4(0, at));
    const int4 around = convert_int4(vload4(0, at - row_samples)) +
                        convert_int4(vload4(0, at + row_samples)) +
                        convert_int4(vload4(0, at - CN)) + convert_int4(vload4(0, at + CN));
    uchar4 out = convert_uchar4_sat(SHARPEN_CENTRE * centre - around);
#if HAS_ALPHA
    out.w = (uchar)centre.w;  // s0 is a multiple of 4 = CN: lane 3 is alpha
#endif
    vstore4(out, 0, dst + row + s0);
    return;
  }
  for (int s = s0; s < min(s0 + LANES, row_samples); ++s) {
    dst[row + s] = sharpen_sample(src, s / CN, y, s % CN, width, height, border_kind, border_value);
  }
}

// local: a TILE_W x TILE_H tile of pixels and its 1-pixel apron in local memory, loaded by
// every work item of the group with consecutive (coalesced) indices, then read 5 times.
#define APRON_W (TILE_W + 2)
#define APRON_H (TILE_H + 2)
__kernel __attribute__((reqd_work_group_size(TILE_W, TILE_H, 1))) void sharpen_local(
    __global const uchar* src, __global uchar* dst, int width, int height, int border_kind,
    int border_value) {
  __local uchar tile[APRON_H * APRON_W * CN];
  load_tile(tile, src, get_group_id(0) * TILE_W - 1, get_group_id(1) * TILE_H - 1, APRON_W, APRON_H,
            width, height, border_kind, border_value);
  const int x = get_global_id(0);
  const int y = get_global_id(1);
  if (x >= width || y >= height) return;
  const int tx = get_local_id(0) + 1;
  const int ty = get_local_id(1) + 1;
  for (int c = 0; c < CN; ++c) {
    const int centre = tile[(ty * APRON_W + tx) * CN + c];
    int value = centre;
    if (!(HAS_ALPHA && c == ALPHA)) {
      value = SHARPEN_CENTRE * centre - tile[((ty - 1) * APRON_W + tx) * CN + c] -
              tile[((ty + 1) * APRON_W + tx) * CN + c] - tile[(ty * APRON_W + tx - 1) * CN + c] -
              tile[(ty * APRON_W + tx + 1) * CN + c];
    }
    dst[sample_at(x, y, c, width)] = convert_uchar_sat(value);
  }
}

// rows: 16 consecutive samples of a row per work item, down a strip of STRIP rows; the rows
// above, at and below stay in registers, so each row's vector is loaded once. The samples one
// pixel left and right come from the same vector and the aligned words either side of it. The
// host runs it where rows start 16-byte aligned (width * CN a multiple of 16); the image's
// first and last rows and the vectors at a row's ends take the scalar path.
#define ROW_LANES 16

inline uchar16 row_vector(__global const uchar* src, size_t at) {
  return ((__global const uchar16*)(src + at))[0];
}

// The 16 samples one pixel left (and right) of `mid`, given the 4 bytes before it (and after).
#if CN == 4
#define LEFT_OF(mid, l) (uchar16)((l), (mid).s01234567, (mid).s89ab)
#define RIGHT_OF(mid, r) (uchar16)((mid).s4567, (mid).s89abcdef, (r))
#elif CN == 3
#define LEFT_OF(mid, l) (uchar16)((l).s123, (mid).s01234567, (mid).s89ab, (mid).sc)
#define RIGHT_OF(mid, r) (uchar16)((mid).s3, (mid).s4567, (mid).s89abcdef, (r).s012)
#else
#define LEFT_OF(mid, l) (uchar16)((l).s3, (mid).s01234567, (mid).s89ab, (mid).scde)
#define RIGHT_OF(mid, r) (uchar16)((mid).s123, (mid).s456789ab, (mid).scdef, (r).s0)
#endif

__kernel void sharpen_rows(__global const uchar* src, __global uchar* dst, int width, int height,
                           int border_kind, int border_value) {
  const int s0 = get_global_id(0) * ROW_LANES;
  const int y0 = get_global_id(1) * STRIP;
  const int row_samples = width * CN;
  if (s0 >= row_samples || y0 >= height) return;
  const int y_end = min(y0 + STRIP, height);
  if (s0 < CN || s0 + ROW_LANES + CN > row_samples) {
    for (int y = y0; y < y_end; ++y) {
      for (int s = s0; s < min(s0 + ROW_LANES, row_samples); ++s) {
        dst[(size_t)y * row_samples + s] =
            sharpen_sample(src, s / CN, y, s % CN, width, height, border_kind, border_value);
      }
    }
    return;
  }
  uchar16 mid = row_vector(src, (size_t)y0 * row_samples + s0);
  uchar16 up = y0 > 0 ? row_vector(src, (size_t)(y0 - 1) * row_samples + s0) : mid;
  for (int y = y0; y < y_end; ++y) {
    const size_t row = (size_t)y * row_samples + s0;
    const uchar16 down = y + 1 < height ? row_vector(src, row + row_samples) : mid;
    if (y == 0 || y + 1 == height) {
      for (int s = s0; s < s0 + ROW_LANES; ++s) {
        dst[(size_t)y * row_samples + s] =
            sharpen_sample(src, s / CN, y, s % CN, width, height, border_kind, border_value);
      }
    } else {
      const uchar4 l = as_uchar4(((__global const uint*)(src + row))[-1]);
      const uchar4 r = as_uchar4(((__global const uint*)(src + row))[ROW_LANES / 4]);
      const short16 around = convert_short16(up) + convert_short16(down) +
                             convert_short16(LEFT_OF(mid, l)) + convert_short16(RIGHT_OF(mid, r));
      uchar16 out = convert_uchar16_sat((short)SHARPEN_CENTRE * convert_short16(mid) - around);
#if HAS_ALPHA
      out.s37bf = mid.s37bf;  // s0 is a multiple of 16: lanes 3, 7, 11, 15 are alpha
#endif
      ((__global uchar16*)(dst + row))[0] = out;
    }
    up = mid;
    mid = down;
  }
}
