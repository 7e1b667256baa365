// Structuring elements known at compile time, for the span kernel (morphology_spans.cu): each
// row of an element is one run of columns (FILTERS.md), so an element is a list of row spans
// relative to its anchor. The kernel keeps every tap, span and accumulator in registers, which
// needs every index to be a compile-time constant: hence one instantiation per element. The
// builders mirror make_structuring_element in integer arithmetic; the launcher compares the
// result with the host's spans and falls back to the rectangle kernels on any difference, so an
// element that the integer mirror got wrong would only be slower, never different.
#pragma once

namespace parfilter::cuda::spans {

inline constexpr int kMaxRows = 16;  ///< element rows of the compiled shapes
inline constexpr int kMaxTaps = 32;  ///< element columns of the compiled shapes

/// Row j of an element covers columns [left[j], right[j]) around the anchor column; it lies
/// anchor_y rows above the anchor row when j = 0.
struct Shape {
  int rows = 0;
  int anchor_y = 0;
  int left[kMaxRows] = {};
  int right[kMaxRows] = {};
};

enum class Kind { ellipse, cross };

/// make_structuring_element's ellipse: dx = cvRound(c sqrt((r^2 - dy^2) / r^2)) rounds
/// v = c sqrt(m) / r with m = r^2 - dy^2; v > k + 1/2 exactly when 4 c^2 m > (2k + 1)^2 r^2,
/// and an exact half rounds to even, as cvRound does.
__host__ __device__ constexpr int ellipse_half_width(int c, int r, int dy) {
  if (r == 0) return 0;
  const long long m = static_cast<long long>(r) * r - static_cast<long long>(dy) * dy;
  const long long lhs = 4LL * c * c * m;
  int dx = 0;
  while (lhs > static_cast<long long>(2 * dx + 1) * (2 * dx + 1) * r * r) ++dx;
  const bool half = lhs == static_cast<long long>(2 * dx + 1) * (2 * dx + 1) * r * r;
  return half && dx % 2 == 1 ? dx + 1 : dx;
}

__host__ __device__ constexpr Shape make_shape(Kind kind, int width, int height) {
  Shape s;
  s.rows = height;
  s.anchor_y = height / 2;
  const int ax = width / 2;
  for (int y = 0; y < height; ++y) {
    int x0 = 0;
    int x1 = width;
    if (kind == Kind::cross && y != s.anchor_y) {
      x0 = ax;
      x1 = ax + 1;
    } else if (kind == Kind::ellipse) {
      const int r = height / 2;
      const int c = width / 2;
      const int dx = ellipse_half_width(c, r, y - r);
      x0 = c - dx > 0 ? c - dx : 0;
      x1 = c + dx + 1 < width ? c + dx + 1 : width;
    }
    s.left[y] = x0 - ax;
    s.right[y] = x1 - ax;
  }
  return s;
}

/// What the kernel computes per input row: the element's distinct spans as ranges of taps
/// (tap 0 is the leftmost column any row reaches), each from a smaller span inside it plus the
/// taps it adds, so nested spans (every ellipse's and cross's) cost one extremum per added tap.
struct Plan {
  int rows = 0;
  int anchor_y = 0;
  int reach_left = 0;   ///< columns left of the anchor that some row covers
  int reach_right = 0;  ///< columns right of it
  int taps = 0;
  int spans = 0;  ///< distinct spans, narrowest first
  int span_of_row[kMaxRows] = {};
  int parent[kMaxRows] = {};  ///< a span inside this one, computed before it, or -1
  int added[kMaxRows] = {};   ///< taps this span adds to its parent (or, without one, all)
  int add[kMaxRows][kMaxTaps] = {};
};

__host__ __device__ constexpr Plan make_plan(const Shape& s) {
  Plan p;
  p.rows = s.rows;
  p.anchor_y = s.anchor_y;
  for (int j = 0; j < s.rows; ++j) {
    p.reach_left = -s.left[j] > p.reach_left ? -s.left[j] : p.reach_left;
    p.reach_right = s.right[j] - 1 > p.reach_right ? s.right[j] - 1 : p.reach_right;
  }
  p.taps = p.reach_left + 1 + p.reach_right;
  int first[kMaxRows] = {};  // distinct spans as taps [first, end)
  int end[kMaxRows] = {};
  for (int j = 0; j < s.rows; ++j) {
    const int f = s.left[j] + p.reach_left;
    const int e = s.right[j] + p.reach_left;
    int d = 0;
    while (d < p.spans && (first[d] != f || end[d] != e)) ++d;
    if (d == p.spans) {
      first[d] = f;
      end[d] = e;
      ++p.spans;
    }
  }
  for (int a = 1; a < p.spans; ++a) {  // narrowest first: a span's parent comes before it
    for (int b = a; b > 0 && end[b] - first[b] < end[b - 1] - first[b - 1]; --b) {
      const int f = first[b];
      const int e = end[b];
      first[b] = first[b - 1];
      end[b] = end[b - 1];
      first[b - 1] = f;
      end[b - 1] = e;
    }
  }
  for (int j = 0; j < s.rows; ++j) {
    const int f = s.left[j] + p.reach_left;
    const int e = s.right[j] + p.reach_left;
    for (int d = 0; d < p.spans; ++d) {
      if (first[d] == f && end[d] == e) p.span_of_row[j] = d;
    }
  }
  for (int d = 0; d < p.spans; ++d) {
    p.parent[d] = -1;
    for (int q = 0; q < d; ++q) {  // the widest earlier span inside this one
      if (first[q] >= first[d] && end[q] <= end[d]) p.parent[d] = q;
    }
    for (int t = first[d]; t < end[d]; ++t) {
      const int q = p.parent[d];
      if (q < 0 || t < first[q] || t >= end[q]) p.add[d][p.added[d]++] = t;
    }
  }
  return p;
}

/// Whether the shape fits the kernel's fixed arrays.
__host__ __device__ constexpr bool fits(const Shape& s) {
  if (s.rows < 3 || s.rows > kMaxRows) return false;
  for (int j = 0; j < s.rows; ++j) {
    if (s.left[j] > 0 || s.right[j] <= 0 || s.right[j] - s.left[j] > kMaxTaps) return false;
  }
  const Plan p = make_plan(s);
  return p.taps <= kMaxTaps;
}

}  // namespace parfilter::cuda::spans
