// Adaptive segmentation on the gray plane: each pixel is compared with the isodata threshold of
// the histogram of its window (clipped to the image), or with the global threshold where the
// window's max - min < min_contrast (docs/FILTERS.md, segment). The window has at most 4095^2
// pixels, so the sums of products fit in 64 bits. Two schedules of the same integers.
//
// workgroup (for GPUs): a work-group of SEG_GROUP items walks a run of `span` pixels of one row. It
// keeps the window's histogram in local memory and slides it one column per pixel (atomics add the
// entering column and drop the leaving one); per pixel, a scan turns it into prefix counts and
// sums (each item owns BINS / SEG_GROUP consecutive bins), which give the window's min and max
// and make each isodata round O(1), exactly as filter_math's isodata_threshold computes it.
// The window has at most 4095^2 pixels, so the sums of products fit in 64 bits.
#define BINS_PER_ITEM (BINS / SEG_GROUP)
#define MAX_ROUNDS 256
#define FOREGROUND 255
#define BACKGROUND 0

// The isodata threshold from prefix counts and sums of a non-empty histogram whose values lie
// in [lo, hi] (t stays there: it starts at the mean and moves to midpoints of class means).
#define ISODATA_FROM_PREFIX(NAME, SPACE)                                               \
  inline int NAME(SPACE const uint* count_upto, SPACE const ulong* sum_upto, int hi) { \
    const ulong n = count_upto[hi];                                                    \
    const ulong s = sum_upto[hi];                                                      \
    int t = (int)(s / n);                                                              \
    for (int round = 0; round < MAX_ROUNDS; ++round) {                                 \
      const ulong w1 = count_upto[t];                                                  \
      const ulong s1 = sum_upto[t];                                                    \
      const ulong w2 = n - w1;                                                         \
      const ulong s2 = s - s1;                                                         \
      if (w1 == 0 || w2 == 0) break;                                                   \
      const int next = (int)((s1 * w2 + s2 * w1) / (2 * w1 * w2));                     \
      if (next == t) break;                                                            \
      t = next;                                                                        \
    }                                                                                  \
    return t;                                                                          \
  }
ISODATA_FROM_PREFIX(isodata_local, __local)
ISODATA_FROM_PREFIX(isodata_private, __private)

__kernel __attribute__((reqd_work_group_size(SEG_GROUP, 1, 1))) void segment_adaptive_workgroup(
    __global const uchar* gray, __global uchar* dst, int width, int height, int radius, int span,
    int min_contrast, int global_threshold) {
  __local uint hist[BINS];
  __local uint count_upto[BINS];
  __local ulong sum_upto[BINS];
  __local uint scan_count[2][SEG_GROUP];
  __local ulong scan_sum[2][SEG_GROUP];
  __local int value_range[2];  // the window's min and max
  const int lid = get_local_id(0);
  const int y = get_group_id(1);
  const int x_begin = get_group_id(0) * span;
  const int x_end = min(width, x_begin + span);
  const int y0 = max(0, y - radius);
  const int rows = min(height, y + radius + 1) - y0;

  for (int b = lid; b < BINS; b += SEG_GROUP) hist[b] = 0;
  barrier(CLK_LOCAL_MEM_FENCE);
  {  // the first pixel's window
    const int x0 = max(0, x_begin - radius);
    const int columns = min(width, x_begin + radius + 1) - x0;
    for (int i = lid; i < rows * columns; i += SEG_GROUP) {
      const int r = i / columns;
      atomic_inc(&hist[gray[(size_t)(y0 + r) * width + x0 + (i - r * columns)]]);
    }
  }
  barrier(CLK_LOCAL_MEM_FENCE);

  for (int x = x_begin; x < x_end; ++x) {
    if (x > x_begin) {  // slide: column x + radius enters, x - radius - 1 leaves
      const int enter = x + radius;
      const int leave = x - radius - 1;
      for (int r = lid; r < rows; r += SEG_GROUP) {
        const size_t row = (size_t)(y0 + r) * width;
        if (enter < width) atomic_inc(&hist[gray[row + enter]]);
        if (leave >= 0) atomic_dec(&hist[gray[row + leave]]);
      }
      barrier(CLK_LOCAL_MEM_FENCE);
    }
    // Inclusive scan of the items' bin totals (Hillis-Steele, double-buffered).
    const int first_bin = lid * BINS_PER_ITEM;
    uint count = 0;
    ulong sum = 0;
    for (int b = first_bin; b < first_bin + BINS_PER_ITEM; ++b) {
      count += hist[b];
      sum += (ulong)b * hist[b];
    }
    scan_count[0][lid] = count;
    scan_sum[0][lid] = sum;
    barrier(CLK_LOCAL_MEM_FENCE);
    int from = 0;
    for (int step = 1; step < SEG_GROUP; step <<= 1) {
      const bool add = lid >= step;
      scan_count[1 - from][lid] = scan_count[from][lid] + (add ? scan_count[from][lid - step] : 0);
      scan_sum[1 - from][lid] = scan_sum[from][lid] + (add ? scan_sum[from][lid - step] : 0);
      barrier(CLK_LOCAL_MEM_FENCE);
      from = 1 - from;
    }
    const uint total = scan_count[from][SEG_GROUP - 1];
    count = lid > 0 ? scan_count[from][lid - 1] : 0;
    sum = lid > 0 ? scan_sum[from][lid - 1] : 0;
    for (int b = first_bin; b < first_bin + BINS_PER_ITEM; ++b) {
      const uint before = count;
      count += hist[b];
      sum += (ulong)b * hist[b];
      count_upto[b] = count;
      sum_upto[b] = sum;
      if (hist[b] != 0 && before == 0) value_range[0] = b;
      if (hist[b] != 0 && count == total) value_range[1] = b;
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    if (lid == 0) {
      const int t = value_range[1] - value_range[0] < min_contrast
                        ? global_threshold
                        : isodata_local(count_upto, sum_upto, BINS - 1);
      const size_t at = (size_t)y * width + x;
      dst[at] = gray[at] > t ? FOREGROUND : BACKGROUND;
    }
    // The next pixel's slide changes only hist, which nobody reads past the barrier above; its
    // scan rewrites the prefix arrays only after barriers that item 0 reaches when done.
  }
}

// private (for CPUs, where a work item is a thread's loop and barriers cost): one work item
// walks a run of `span` pixels of one row with the window's histogram in private memory, as
// the CPU backends do; prefix counts and sums are built over the window's value range only.
__kernel void segment_adaptive_private(__global const uchar* gray, __global uchar* dst, int width,
                                       int height, int radius, int span, int min_contrast,
                                       int global_threshold) {
  const int x_begin = get_global_id(0) * span;
  const int y = get_global_id(1);
  if (x_begin >= width || y >= height) return;
  const int x_end = min(width, x_begin + span);
  const int y0 = max(0, y - radius);
  const int y1 = min(height, y + radius + 1);
  uint hist[BINS];
  uint count_upto[BINS];
  ulong sum_upto[BINS];
  for (int b = 0; b < BINS; ++b) hist[b] = 0;
  for (int wy = y0; wy < y1; ++wy) {
    const __global uchar* row = gray + (size_t)wy * width;
    for (int wx = max(0, x_begin - radius); wx < min(width, x_begin + radius + 1); ++wx) {
      ++hist[row[wx]];
    }
  }
  for (int x = x_begin; x < x_end; ++x) {
    if (x > x_begin) {
      const int enter = x + radius;
      const int leave = x - radius - 1;
      for (int wy = y0; wy < y1; ++wy) {
        const __global uchar* row = gray + (size_t)wy * width;
        if (enter < width) ++hist[row[enter]];
        if (leave >= 0) --hist[row[leave]];
      }
    }
    int lo = 0;
    while (hist[lo] == 0) ++lo;
    int hi = BINS - 1;
    while (hist[hi] == 0) --hi;
    int t = global_threshold;
    if (hi - lo >= min_contrast) {
      uint count = 0;
      ulong sum = 0;
      for (int b = lo; b <= hi; ++b) {
        count += hist[b];
        sum += (ulong)b * hist[b];
        count_upto[b] = count;
        sum_upto[b] = sum;
      }
      t = isodata_private(count_upto, sum_upto, hi);
    }
    const size_t at = (size_t)y * width + x;
    dst[at] = gray[at] > t ? FOREGROUND : BACKGROUND;
  }
}

// columns (for GPUs, the CUDA backend's scheme): a work item owns one column of a strip of
// SEG_STRIP rows and keeps its window's histogram in local memory, as its own column of
// [bin][item] arrays, so items never share a word and need no barrier. Moving down a row drops
// the window's top row and adds a new bottom row: 2 W updates per pixel. A coarse level (counts
// and sums per group of SEG_FINE values) makes each prefix query, min and max at most
// BINS / SEG_FINE + SEG_FINE steps. SEG_COUNT is ushort where the window holds at most 65535
// pixels, else uint; SEG_ITEMS is what the device's local memory allows.
#ifdef SEG_COUNT
#define SEG_COARSE (BINS / SEG_FINE)

typedef struct {
  SEG_COUNT fine[BINS][SEG_ITEMS];
  SEG_COUNT coarse_count[SEG_COARSE][SEG_ITEMS];
  uint coarse_sum[SEG_COARSE][SEG_ITEMS];
} WindowHistogram;

// Adds (sign 1) or drops (sign -1) columns xa..xb of `row` to or from the window, and its
// pixel count n. The counts wrap modulo their width on the way and end exact.
inline void update_row(__local WindowHistogram* h, int item, __global const uchar* row, int xa,
                       int xb, int sign, ulong* n) {
  for (int x = xa; x <= xb; ++x) {
    const int v = row[x];
    h->fine[v][item] += sign;
    h->coarse_count[v / SEG_FINE][item] += sign;
    h->coarse_sum[v / SEG_FINE][item] += sign * v;
  }
  *n += (ulong)((long)sign * (xb - xa + 1));
}

// Count and sum of the window's values <= t.
inline void window_prefix(__local const WindowHistogram* h, int item, int t, ulong* count,
                          ulong* sum) {
  ulong c = 0;
  ulong s = 0;
  const int group = t / SEG_FINE;
  for (int k = 0; k < group; ++k) {
    c += h->coarse_count[k][item];
    s += h->coarse_sum[k][item];
  }
  for (int v = group * SEG_FINE; v <= t; ++v) {
    const ulong n = h->fine[v][item];
    c += n;
    s += n * (ulong)v;
  }
  *count = c;
  *sum = s;
}

// filter_math's isodata_threshold over the window (n >= 1 values summing to s).
inline int window_isodata(__local const WindowHistogram* h, int item, ulong n, ulong s) {
  int t = (int)(s / n);
  for (int round = 0; round < MAX_ROUNDS; ++round) {
    ulong w1;
    ulong s1;
    window_prefix(h, item, t, &w1, &s1);
    const ulong w2 = n - w1;
    const ulong s2 = s - s1;
    if (w1 == 0 || w2 == 0) break;
    const int next = (int)((s1 * w2 + s2 * w1) / (2 * w1 * w2));
    if (next == t) break;
    t = next;
  }
  return t;
}

inline int window_lowest(__local const WindowHistogram* h, int item) {
  int k = 0;
  while (h->coarse_count[k][item] == 0) ++k;
  int v = k * SEG_FINE;
  while (h->fine[v][item] == 0) ++v;
  return v;
}

inline int window_highest(__local const WindowHistogram* h, int item) {
  int k = SEG_COARSE - 1;
  while (h->coarse_count[k][item] == 0) --k;
  int v = k * SEG_FINE + SEG_FINE - 1;
  while (h->fine[v][item] == 0) --v;
  return v;
}

__kernel __attribute__((reqd_work_group_size(SEG_ITEMS, 1, 1))) void segment_adaptive_columns(
    __global const uchar* gray, __global uchar* dst, int width, int height, int radius,
    int min_contrast, int global_threshold) {
  __local WindowHistogram h;
  const int item = get_local_id(0);
  const int x = get_global_id(0);
  if (x >= width) return;  // no barrier below: every item works on its own column
  const int y0 = get_group_id(1) * SEG_STRIP;
  const int y1 = min(y0 + SEG_STRIP, height);
  const int xa = max(0, x - radius);
  const int xb = min(width - 1, x + radius);
  for (int v = 0; v < BINS; ++v) h.fine[v][item] = 0;
  for (int k = 0; k < SEG_COARSE; ++k) {
    h.coarse_count[k][item] = 0;
    h.coarse_sum[k][item] = 0;
  }
  ulong n = 0;  // pixels in the window; their sum comes from the coarse sums
  for (int yy = max(0, y0 - radius); yy <= min(height - 1, y0 + radius); ++yy) {
    update_row(&h, item, gray + (size_t)yy * width, xa, xb, 1, &n);
  }
  for (int y = y0; y < y1; ++y) {
    if (y > y0) {
      if (y - radius - 1 >= 0) {
        update_row(&h, item, gray + (size_t)(y - radius - 1) * width, xa, xb, -1, &n);
      }
      if (y + radius < height)
        update_row(&h, item, gray + (size_t)(y + radius) * width, xa, xb, 1, &n);
    }
    ulong total = 0;
    for (int k = 0; k < SEG_COARSE; ++k) total += h.coarse_sum[k][item];
    const size_t at = (size_t)y * width + x;
    const int t = window_highest(&h, item) - window_lowest(&h, item) < min_contrast
                      ? global_threshold
                      : window_isodata(&h, item, n, total);
    dst[at] = gray[at] > t ? FOREGROUND : BACKGROUND;
  }
}
#endif
