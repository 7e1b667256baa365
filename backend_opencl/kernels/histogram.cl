// 256-bin histograms of `count` samples src[i * stride + offset] (a plane: stride 1; channel c
// of an interleaved image: stride CN, offset c), into 32-bit counts (the host splits larger
// images into chunks). Two schedules.

inline uchar sample_of(__global const uchar* src, uint i, int stride, ulong offset) {
  return src[(size_t)i * stride + offset];
}

// local atomics: each work-group counts its grid-stride share into local memory, then adds
// its bins to the global histogram (zeroed by the host).
__kernel void histogram_local_atomics(__global const uchar* src, uint count, int stride,
                                      ulong offset, __global uint* hist) {
  __local uint local_hist[BINS];
  const int lid = get_local_id(0);
  const int group = get_local_size(0);
  for (int b = lid; b < BINS; b += group) local_hist[b] = 0;
  barrier(CLK_LOCAL_MEM_FENCE);
  const uint step = get_global_size(0);
  for (uint i = get_global_id(0); i < count; i += step) {
    atomic_inc(&local_hist[sample_of(src, i, stride, offset)]);
  }
  barrier(CLK_LOCAL_MEM_FENCE);
  for (int b = lid; b < BINS; b += group) {
    if (local_hist[b] != 0) atomic_add(&hist[b], local_hist[b]);
  }
}

// local atomics on a plane (stride 1, offset a multiple of 16): each item counts 16 samples
// per load, into the sub-histogram of its run of SUB_ITEMS items (a warp on NVIDIA), so that
// only items of one run contend on a bin. The work-group has at most MAX_SUBS runs.
#define SUB_ITEMS 32
#define MAX_SUBS 8
#define SAMPLES_PER_LOAD 16

inline void count_word(__local uint* hist, uint w) {
  atomic_inc(&hist[w & 0xFF]);
  atomic_inc(&hist[(w >> 8) & 0xFF]);
  atomic_inc(&hist[(w >> 16) & 0xFF]);
  atomic_inc(&hist[w >> 24]);
}

__kernel void histogram_plane_atomics(__global const uchar* src, uint count, ulong offset,
                                      __global uint* hist) {
  __local uint sub[MAX_SUBS * BINS];
  const int lid = get_local_id(0);
  const int group = get_local_size(0);
  const int subs = (group + SUB_ITEMS - 1) / SUB_ITEMS;
  for (int b = lid; b < subs * BINS; b += group) sub[b] = 0;
  barrier(CLK_LOCAL_MEM_FENCE);
  __local uint* mine = sub + (lid / SUB_ITEMS) * BINS;
  __global const uint4* loads = (__global const uint4*)(src + offset);
  const uint full_loads = count / SAMPLES_PER_LOAD;
  const uint step = get_global_size(0);
  for (uint i = get_global_id(0); i < full_loads; i += step) {
    const uint4 w = loads[i];
    count_word(mine, w.x);
    count_word(mine, w.y);
    count_word(mine, w.z);
    count_word(mine, w.w);
  }
  if (get_global_id(0) == 0) {
    for (uint i = full_loads * SAMPLES_PER_LOAD; i < count; ++i) atomic_inc(&mine[src[offset + i]]);
  }
  barrier(CLK_LOCAL_MEM_FENCE);
  for (int b = lid; b < BINS; b += group) {
    uint total = 0;
    for (int k = 0; k < subs; ++k) total += sub[k * BINS + b];
    if (total != 0) atomic_add(&hist[b], total);
  }
}

// two kernels, no atomics: every work item counts its share into its own sub-histogram
// (sub + gid * BINS, no other item touches it)... The share is grid-strided (neighbouring
// items read neighbouring samples: coalesced on a GPU) or, with `contiguous`, one block of
// samples per item (a CPU thread then streams through its own block once).
__kernel void histogram_private(__global const uchar* src, uint count, int stride, ulong offset,
                                __global uint* sub, int contiguous) {
  const uint gid = get_global_id(0);
  const uint items = get_global_size(0);
  __global uint* mine = sub + (size_t)gid * BINS;
  for (int b = 0; b < BINS; ++b) mine[b] = 0;
  if (contiguous) {
    const uint per_item = count / items + (count % items != 0 ? 1 : 0);
    const uint begin = min(count, gid * per_item);
    const uint end = min(count, begin + per_item);
    for (uint i = begin; i < end; ++i) ++mine[sample_of(src, i, stride, offset)];
  } else {
    for (uint i = gid; i < count; i += items) ++mine[sample_of(src, i, stride, offset)];
  }
}

// ...then one work item per bin sums that bin over the sub-histograms (consecutive items read
// consecutive words).
__kernel void histogram_reduce(__global const uint* sub, uint subs, __global uint* hist) {
  const int b = get_global_id(0);
  if (b >= BINS) return;
  uint total = 0;
  for (uint k = 0; k < subs; ++k) total += sub[(size_t)k * BINS + b];
  hist[b] = total;
}
