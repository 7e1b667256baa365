// Erosion and dilation (min / max over a structuring element, pixels outside the image
// ignored, alpha copied), in three variants:
//   naive     - a thread per pixel loops over the element's rows and their set columns;
//   separable - the element as a union of rectangles (structuring_element_rects in
//               filter_math); each rectangle is a row pass then a column pass, the
//               rectangles' results combined with min / max: O(w + h) per pixel and rectangle;
//   vhgw      - the same rectangles, each 1-D pass by van Herk/Gil-Werman: prefix and suffix
//               extrema over segments of the window's length, then one combine per pixel:
//               O(1) per pixel whatever the size. A rectangle that fits a shared-memory tile
//               runs both passes in one kernel (morphology_tile.cu).
#include "internal.hpp"
#include "morphology_common.cuh"

namespace parfilter::cuda {
namespace {

constexpr int kBlockX = 32;
constexpr int kBlockY = 8;
constexpr int kLineBlock = 256;   ///< row pass: outputs per block
constexpr int kColumnWidth = 16;  ///< column pass: columns per block
constexpr int kColumnRows = 64;   ///< column pass: output rows per block
constexpr int kColumnThreadsY = 16;

struct SpanTable {
  int rows = 0;
  int first_dy = 0;         ///< row offset of span[0] relative to the anchor
  short2 span[kMaxSeSize];  ///< set columns [x, y) of each row, relative to the anchor
};

template <int C, MorphOp Op>
__global__ void morph_naive_kernel(DeviceImage in, DeviceImage out, SpanTable table) {
  const int x = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
  const int y = static_cast<int>(blockIdx.y * blockDim.y + threadIdx.y);
  if (x >= in.width || y >= in.height) return;
  std::uint32_t acc = Morph<Op>::kNeutral;
  for (int r = 0; r < table.rows; ++r) {
    const int yy = y + table.first_dy + r;
    if (yy < 0 || yy >= in.height) continue;
    const std::uint8_t* row = row_of(in, yy);
    const int i0 = max(static_cast<int>(table.span[r].x), -x);
    const int i1 = min(static_cast<int>(table.span[r].y), in.width - x);
    for (int i = i0; i < i1; ++i) acc = Morph<Op>::combine(acc, load_pixel<C>(row, x + i));
  }
  store_result<C>(out, in, x, y, acc);
}

/// Row pass of one rectangle, direct: tmp(x, y) = extremum of in(x + i, y), i in [x0, x1).
template <int C, MorphOp Op>
__global__ void morph_row_direct_kernel(DeviceImage in, DeviceImage tmp, int x0, int x1) {
  const int x = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
  const int y = static_cast<int>(blockIdx.y * blockDim.y + threadIdx.y);
  if (x >= in.width || y >= in.height) return;
  const std::uint8_t* row = row_of(in, y);
  std::uint32_t acc = Morph<Op>::kNeutral;
  for (int i = max(x0, -x); i < min(x1, in.width - x); ++i) {
    acc = Morph<Op>::combine(acc, load_pixel<C>(row, x + i));
  }
  store_pixel<C>(mutable_row(tmp, y), x, acc);
}

/// Column pass of one rectangle, direct; `combine` folds in what `out` already holds.
template <int C, MorphOp Op>
__global__ void morph_column_direct_kernel(DeviceImage tmp, DeviceImage out, DeviceImage alpha_src,
                                           int y0, int y1, bool combine) {
  const int x = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
  const int y = static_cast<int>(blockIdx.y * blockDim.y + threadIdx.y);
  if (x >= tmp.width || y >= tmp.height) return;
  std::uint32_t acc = combine ? load_pixel<C>(row_of(out, y), x) : Morph<Op>::kNeutral;
  for (int j = max(y0, -y); j < min(y1, tmp.height - y); ++j) {
    acc = Morph<Op>::combine(acc, load_pixel<C>(row_of(tmp, y + j), x));
  }
  store_result<C>(out, alpha_src, x, y, acc);
}

/// van Herk/Gil-Werman over `line` (length n, stride `step` words): on return line holds the
/// prefix extrema and `suffix` the suffix extrema of each segment of `w` values.
/// `segment` selects which segment this call scans.
template <MorphOp Op>
__device__ __forceinline__ void vhgw_scan(std::uint32_t* line, std::uint32_t* suffix, int n, int w,
                                          int segment, int step) {
  const int begin = segment * w;
  const int end = min(begin + w, n);
  std::uint32_t acc = Morph<Op>::kNeutral;
  for (int i = end - 1; i >= begin; --i) {
    acc = Morph<Op>::combine(acc, line[i * step]);
    suffix[i * step] = acc;
  }
  acc = Morph<Op>::kNeutral;
  for (int i = begin; i < end; ++i) {
    acc = Morph<Op>::combine(acc, line[i * step]);
    line[i * step] = acc;
  }
}

/// Row pass of one rectangle by vHGW: a block takes kLineBlock outputs of one row.
template <int C, MorphOp Op>
__global__ void morph_row_vhgw_kernel(DeviceImage in, DeviceImage tmp, int x0, int x1) {
  extern __shared__ std::uint32_t shared[];
  const int w = x1 - x0;
  const int n = kLineBlock + w - 1;
  std::uint32_t* line = shared;
  std::uint32_t* suffix = shared + n;
  const int y = static_cast<int>(blockIdx.y);
  const int base = static_cast<int>(blockIdx.x) * kLineBlock;  // first output x
  const int tid = static_cast<int>(threadIdx.x);
  for (int i = tid; i < n; i += kLineBlock) line[i] = pixel_or_neutral<C, Op>(in, base + x0 + i, y);
  __syncthreads();
  for (int s = tid; s * w < n; s += kLineBlock) vhgw_scan<Op>(line, suffix, n, w, s, 1);
  __syncthreads();
  const int x = base + tid;
  if (x < in.width) {
    store_pixel<C>(mutable_row(tmp, y), x, Morph<Op>::combine(suffix[tid], line[tid + w - 1]));
  }
}

/// Column pass of one rectangle by vHGW: a block takes kColumnRows outputs of kColumnWidth
/// columns.
template <int C, MorphOp Op>
__global__ void morph_column_vhgw_kernel(DeviceImage tmp, DeviceImage out, DeviceImage alpha_src,
                                         int y0, int y1, bool combine) {
  extern __shared__ std::uint32_t shared[];
  const int h = y1 - y0;
  const int n = kColumnRows + h - 1;
  std::uint32_t* line = shared;  // [n][kColumnWidth]
  std::uint32_t* suffix = shared + n * kColumnWidth;
  const int col = static_cast<int>(threadIdx.x);
  const int x = static_cast<int>(blockIdx.x) * kColumnWidth + col;
  const int base = static_cast<int>(blockIdx.y) * kColumnRows;  // first output y
  for (int i = static_cast<int>(threadIdx.y); i < n; i += static_cast<int>(blockDim.y)) {
    line[i * kColumnWidth + col] = pixel_or_neutral<C, Op>(tmp, x, base + y0 + i);
  }
  __syncthreads();
  for (int s = static_cast<int>(threadIdx.y); s * h < n; s += static_cast<int>(blockDim.y)) {
    vhgw_scan<Op>(line + col, suffix + col, n, h, s, kColumnWidth);
  }
  __syncthreads();
  if (x >= tmp.width) return;
  for (int r = static_cast<int>(threadIdx.y); r < kColumnRows; r += static_cast<int>(blockDim.y)) {
    const int y = base + r;
    if (y >= tmp.height) break;
    std::uint32_t v =
        Morph<Op>::combine(suffix[r * kColumnWidth + col], line[(r + h - 1) * kColumnWidth + col]);
    if (combine) v = Morph<Op>::combine(v, load_pixel<C>(row_of(out, y), x));
    store_result<C>(out, alpha_src, x, y, v);
  }
}

SpanTable span_table(const MorphSpans& spans) {
  SpanTable table{};
  table.rows = static_cast<int>(spans.rows.size());
  table.first_dy = spans.rows.empty() ? 0 : spans.rows.front().y0;
  for (int r = 0; r < table.rows; ++r) {
    table.span[r] =
        make_short2(static_cast<short>(spans.rows[r].x0), static_cast<short>(spans.rows[r].x1));
  }
  return table;
}

template <int C, MorphOp Op>
void run_morphology(MorphVariant variant, const DeviceImage& in, const DeviceImage& out,
                    const DeviceImage& scratch, const std::vector<MorphRect>& rects,
                    const MorphSpans& spans, cudaStream_t stream) {
  const dim3 block(kBlockX, kBlockY);
  const dim3 grid(blocks_for(in.width, kBlockX), blocks_for(in.height, kBlockY));
  if (variant == MorphVariant::naive) {
    morph_naive_kernel<C, Op><<<grid, block, 0, stream>>>(in, out, span_table(spans));
    CUDA_CHECK_LAUNCH("morph_naive_kernel");
    return;
  }
  if (variant == MorphVariant::vhgw && rects.size() > 1 &&
      launch_morphology_levels(Op, in, out, spans, stream)) {
    return;
  }
  bool combine = false;
  for (const MorphRect& rect : rects) {
    if (variant == MorphVariant::vhgw &&
        (launch_morphology_small_rect(Op, in, out, rect, combine, stream) ||
         launch_morphology_vhgw_tile(Op, in, out, rect, combine, stream))) {
      combine = true;
      continue;
    }
    if (variant == MorphVariant::separable) {
      morph_row_direct_kernel<C, Op><<<grid, block, 0, stream>>>(in, scratch, rect.x0, rect.x1);
      CUDA_CHECK_LAUNCH("morph_row_direct_kernel");
      morph_column_direct_kernel<C, Op>
          <<<grid, block, 0, stream>>>(scratch, out, in, rect.y0, rect.y1, combine);
      CUDA_CHECK_LAUNCH("morph_column_direct_kernel");
    } else {
      const int w = rect.x1 - rect.x0;
      const int h = rect.y1 - rect.y0;
      const std::size_t row_bytes = 2 * sizeof(std::uint32_t) * (kLineBlock + w - 1);
      const dim3 row_grid(blocks_for(in.width, kLineBlock), static_cast<unsigned int>(in.height));
      morph_row_vhgw_kernel<C, Op>
          <<<row_grid, kLineBlock, row_bytes, stream>>>(in, scratch, rect.x0, rect.x1);
      CUDA_CHECK_LAUNCH("morph_row_vhgw_kernel");
      const std::size_t column_bytes =
          2 * sizeof(std::uint32_t) * kColumnWidth * (kColumnRows + h - 1);
      const dim3 column_grid(blocks_for(in.width, kColumnWidth),
                             blocks_for(in.height, kColumnRows));
      morph_column_vhgw_kernel<C, Op>
          <<<column_grid, dim3(kColumnWidth, kColumnThreadsY), column_bytes, stream>>>(
              scratch, out, in, rect.y0, rect.y1, combine);
      CUDA_CHECK_LAUNCH("morph_column_vhgw_kernel");
    }
    combine = true;
  }
}

}  // namespace

void launch_morphology(MorphVariant variant, MorphOp op, const DeviceImage& in,
                       const DeviceImage& out, const DeviceImage& scratch,
                       const std::vector<MorphRect>& rects, const MorphSpans& spans,
                       cudaStream_t stream) {
  with_channels(in.channels, [&](auto c) {
    constexpr int C = decltype(c)::value;
    if (op == MorphOp::erode) {
      run_morphology<C, MorphOp::erode>(variant, in, out, scratch, rects, spans, stream);
    } else {
      run_morphology<C, MorphOp::dilate>(variant, in, out, scratch, rects, spans, stream);
    }
  });
}

}  // namespace parfilter::cuda
