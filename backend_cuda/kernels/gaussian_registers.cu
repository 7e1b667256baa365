// The register-blocked separable Gaussian for RGBA images (variant "registers"): a thread takes
// a quad (four pixels, one 16-byte load per row plus two words on each side) and slides down a
// strip of rows. The row pass runs in integers on two samples per register (16-bit lanes: a
// row sum is at most 65280); the column pass scatters each row's sums into the five pending
// output rows' accumulators in float, where every value is an integer below 2^24 and so exact,
// and the final (sum + 32768) >> 16 is one round-down fused multiply-add. The accumulators'
// ring is indexed by the row modulo 5, made static by unrolling the row loop five times. Gray
// and RGB images go to the shared-memory tile (gaussian_separable.cu).
#include "device_common.cuh"
#include "internal.hpp"

namespace parfilter::cuda {
namespace {

constexpr int kTaps = kGaussianTaps;
constexpr int kRadius = kGaussianRadius;
constexpr int kThreads = 128;
constexpr int kStripRows = 32;
constexpr int kRgba = 4;
constexpr int kWindow = kQuadPixels + 2 * kRadius;  ///< pixels a row pass reads per quad
constexpr int kLanes = 3;                           ///< R, G, B; alpha is copied
constexpr float kMagic = 8388608.0F;                ///< 2^23: floats there count in units
constexpr float kRounding = 32768.0F;               ///< the + 32768 of (sum + 32768) >> 16
constexpr float kScale = 1.0F / 65536.0F;

struct Q5 {
  int q[kTaps];
};

/// Pixels x0 - 2 .. x0 + 5 of row y through the vertical border.
struct RowWords {
  std::uint32_t w[kWindow];
};

__device__ __forceinline__ RowWords fetch(const DeviceImage& in, int qx, int y, BorderMode border) {
  RowWords r;
  const int by = border_index_dev(y, in.height, border.kind);
  if (by < 0) {
#pragma unroll
    for (int k = 0; k < kWindow; ++k) r.w[k] = splat_byte(border.value);
    return r;
  }
  const auto* row = reinterpret_cast<const std::uint32_t*>(row_of(in, by)) + kQuadPixels * qx;
  const uint2 left = __ldg(reinterpret_cast<const uint2*>(row - kRadius));
  const uint4 mid = __ldg(reinterpret_cast<const uint4*>(row));
  const uint2 right = __ldg(reinterpret_cast<const uint2*>(row + kQuadPixels));
  r.w[0] = left.x;
  r.w[1] = left.y;
  r.w[2] = mid.x;
  r.w[3] = mid.y;
  r.w[4] = mid.z;
  r.w[5] = mid.w;
  r.w[6] = right.x;
  r.w[7] = right.y;
  return r;
}

/// A 16-bit lane of `packed` as a float, exactly: PRMT builds the float 2^23 + lane.
__device__ __forceinline__ float lane_value(std::uint32_t packed, unsigned int selector) {
  return __uint_as_float(__byte_perm(packed, 0x4B000000U, selector)) - kMagic;
}
constexpr unsigned int kLowLane = 0x7610;
constexpr unsigned int kHighLane = 0x7632;

/// The row pass of one row: R, G, B sums of the quad's four pixels, as floats.
__device__ __forceinline__ void row_pass(const RowWords& row, const Q5& weights,
                                         float (&h)[kQuadPixels * kLanes]) {
  std::uint32_t even[kWindow];
  std::uint32_t odd[kWindow];
#pragma unroll
  for (int k = 0; k < kWindow; ++k) {
    even[k] = even_lanes(row.w[k]);
    odd[k] = odd_lanes(row.w[k]);
  }
#pragma unroll
  for (int m = 0; m < kQuadPixels; ++m) {
    std::uint32_t e = 0;
    std::uint32_t o = 0;
#pragma unroll
    for (int i = 0; i < kTaps; ++i) {
      e += static_cast<std::uint32_t>(weights.q[i]) * even[m + i];
      o += static_cast<std::uint32_t>(weights.q[i]) * odd[m + i];
    }
    h[m * kLanes] = lane_value(e, kLowLane);       // R
    h[m * kLanes + 1] = lane_value(o, kLowLane);   // G
    h[m * kLanes + 2] = lane_value(e, kHighLane);  // B
  }
}

/// Quad qx and the two pixels on each side lie inside a row of `width` pixels.
__host__ __device__ bool registers_interior(int qx, int width) {
  return qx >= 1 && kQuadPixels * qx + kQuadPixels + kRadius <= width;
}

/// The edge columns, a thread per pixel with bordered samples.
__global__ void gaussian_edge_kernel(DeviceImage in, DeviceImage out, Q5 weights, BorderMode border,
                                     EdgeColumns edges) {
  const int i = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
  const int y = static_cast<int>(blockIdx.y * blockDim.y + threadIdx.y);
  if (i >= edges.count() || y >= in.height) return;
  const int x = edges.column(i);
  std::uint8_t* dst = mutable_row(out, y) + x * kRgba;
  for (int c = 0; c < kLanes; ++c) {
    int sum = 0;
    for (int a = 0; a < kTaps; ++a) {
      for (int b = 0; b < kTaps; ++b) {
        sum += weights.q[a] * weights.q[b] *
               bordered_sample<kRgba>(in, x + b - kRadius, y + a - kRadius, c, border);
      }
    }
    dst[c] = static_cast<std::uint8_t>((sum + (1 << (kGaussianShift - 1))) >> kGaussianShift);
  }
  dst[kAlphaChannel] = row_of(in, y)[x * kRgba + kAlphaChannel];
}

__global__ void __launch_bounds__(kThreads)
    gaussian_registers_kernel(DeviceImage in, DeviceImage out, Q5 weights, BorderMode border) {
  const int qx = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
  // Edge quads are gaussian_edge_kernel's; no barrier or shuffle below.
  if (!registers_interior(qx, in.width)) return;
  const int y0 = static_cast<int>(blockIdx.y) * kStripRows;
  const int y1 = min(y0 + kStripRows, in.height);
  float acc[kTaps][kQuadPixels * kLanes];  // slot (o - y0) % 5 holds output row o
  const int last = y1 - 1 + kRadius;       // the last input row
  RowWords next = fetch(in, qx, y0 - kRadius, border);
  for (int base = y0 - kRadius; base <= last; base += kTaps) {
#pragma unroll
    for (int phase = 0; phase < kTaps; ++phase) {
      const int r = base + phase;
      if (r > last) break;
      const RowWords row = next;
      if (r < last) next = fetch(in, qx, r + 1, border);  // in flight during this row's work
      float h[kQuadPixels * kLanes];
      row_pass(row, weights, h);
      // Row r is tap k of output row r + 2 - k.
#pragma unroll
      for (int k = 0; k < kTaps; ++k) {
        const int slot = (phase + kTaps - k) % kTaps;
        const auto q = static_cast<float>(weights.q[k]);
#pragma unroll
        for (int v = 0; v < kQuadPixels * kLanes; ++v) {
          acc[slot][v] = k == 0 ? fmaf(q, h[v], kRounding) : fmaf(q, h[v], acc[slot][v]);
        }
      }
      const int o = r - kRadius;  // complete: its tap 4 was row r
      if (o < y0) continue;
      const int slot = (phase + 1) % kTaps;
      const uint4 centre = __ldg(reinterpret_cast<const uint4*>(row_of(in, o)) + qx);
      const std::uint32_t alpha[kQuadPixels] = {centre.x, centre.y, centre.z, centre.w};
      std::uint32_t packed[kQuadPixels];
#pragma unroll
      for (int m = 0; m < kQuadPixels; ++m) {
        // 2^23 + floor(acc / 65536): the result is the low byte of the float's bits.
        const std::uint32_t red = __float_as_uint(__fmaf_rd(acc[slot][m * kLanes], kScale, kMagic));
        const std::uint32_t green =
            __float_as_uint(__fmaf_rd(acc[slot][m * kLanes + 1], kScale, kMagic));
        const std::uint32_t blue =
            __float_as_uint(__fmaf_rd(acc[slot][m * kLanes + 2], kScale, kMagic));
        packed[m] =
            with_alpha(__byte_perm(__byte_perm(red, green, 0x0040), blue, 0x0410), alpha[m]);
      }
      reinterpret_cast<uint4*>(mutable_row(out, o))[qx] =
          make_uint4(packed[0], packed[1], packed[2], packed[3]);
    }
  }
}

}  // namespace

void launch_gaussian_registers(const DeviceImage& in, const DeviceImage& out,
                               const std::array<int, 5>& q, BorderMode border,
                               cudaStream_t stream) {
  if (in.channels != kRgba) {
    launch_gaussian_separable(in, out, q, border, stream);
    return;
  }
  Q5 weights{};
  for (int i = 0; i < kTaps; ++i) weights.q[i] = q[i];
  const dim3 grid(blocks_for((in.width + kQuadPixels - 1) / kQuadPixels, kThreads),
                  blocks_for(in.height, kStripRows));
  gaussian_registers_kernel<<<grid, kThreads, 0, stream>>>(in, out, weights, border);
  CUDA_CHECK_LAUNCH("gaussian_registers_kernel");
  const EdgeColumns edges =
      edge_columns(in.width, [&](int qx) { return registers_interior(qx, in.width); });
  if (edges.count() == 0) return;
  gaussian_edge_kernel<<<edge_grid(edges, in.height), dim3(kEdgeBlockX, kEdgeBlockY), 0, stream>>>(
      in, out, weights, border, edges);
  CUDA_CHECK_LAUNCH("gaussian_edge_kernel");
}

}  // namespace parfilter::cuda
