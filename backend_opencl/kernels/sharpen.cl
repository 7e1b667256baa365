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
