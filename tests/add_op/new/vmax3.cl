// vmax3, the dummy op of scripts/check-add-op.sh: each sample the max of itself and those above
// and below; SAMPLE is uchar, or ushort for 16 bits (ClDeepDevice::run). Packed rows.
#ifndef SAMPLE
#define SAMPLE uchar
#endif
__kernel void vmax3(__global const SAMPLE* src, __global SAMPLE* dst, int row_samples, int height) {
  const int i = get_global_id(0);
  const int y = get_global_id(1);
  if (i >= row_samples || y >= height) return;
  const size_t at = (size_t)y * (size_t)row_samples + (size_t)i;
  SAMPLE v = src[at];
  if (y > 0) v = max(v, src[at - row_samples]);
  if (y + 1 < height) v = max(v, src[at + row_samples]);
  dst[at] = v;
}
