// The register-blocked separable Gaussian for RGBA images (variant "registers"), column pass
// first. A thread takes P = 4 pixels (one 16-byte load per row, five rows in flight) and slides
// down a strip of rows; a warp's 32 lanes cover 32 P consecutive pixels and the two lanes at
// its ends only feed their neighbours, so every row is read by one aligned load per thread.
//
// Column pass, on the raw samples: each row is split into two words, R | B << 16 and G (alpha
// is not filtered), and added into the pending sums of the five output rows it is a tap of.
// In 16-bit lanes that is exact: every partial sum of q_j s is at most 256 * 255 = 65280.
// Row pass, on the column sums: the two pixels on each side come from the neighbouring lanes
// (warp shuffles), and the sums run in 32-bit integers. R and B stay packed as R + 2^16 B:
// the packed total wraps modulo 2^32, but B's own sum (of B = word >> 16) is taken too, and
// total - 2^16 B-sum is R's exactly. The final (sum + 32768) >> 16 is byte 2 of the rounded sum
// (every sum is below 2^24), picked by PRMT. Gray and RGB images take the separable tile.
#include "device_common.cuh"
#include "internal.hpp"

namespace parfilter::cuda {
namespace {

constexpr int kTaps = kGaussianTaps;
constexpr int kRadius = kGaussianRadius;
constexpr int kWarp = 32;
constexpr int kThreads = 128;
constexpr int kWarpsPerBlock = kThreads / kWarp;
constexpr int kOutLanes = kWarp - 2;  ///< lanes 0 and 31 only feed their neighbours
constexpr int kStripRows = 32;
constexpr int kRgba = 4;
constexpr unsigned int kFullMask = 0xFFFFFFFFU;
constexpr std::uint32_t kRound = 1U << (kGaussianShift - 1);  ///< the + 32768
/// R's chain starts at round + 2^31 so that subtracting 2^16 (B-sum + round) leaves R-sum + round.
constexpr std::uint32_t kRedStart = kRound + 0x80000000U;
constexpr std::uint32_t kRedBlue = 0x00FF00FFU;  ///< bytes 0 and 2 (R, B) of a pixel word
constexpr unsigned int kGreenOnly = 0x4441;      ///< PRMT: byte 1 (G) alone, zero above
constexpr unsigned int kRedGreenByte2 = 0x0062;  ///< PRMT: byte 2 of each of two sums
constexpr unsigned int kAddBlueByte2 = 0x0610;
constexpr unsigned int kAlphaBytes = 0x0073;  ///< PRMT: byte 3 of each of two pixel words
constexpr unsigned int kJoinHalves = 0x5410;

struct Q5 {
  int q[kTaps];
};

/// A unit of P pixels of an RGBA row: one quad (device_common.cuh).
template <int P>
using Words = Quad<P>;

/// Unit u (pixels P u .. P u + P - 1) of row y through the vertical border; zeros for a unit
/// starting past the row (it feeds no output).
template <int P>
__device__ __forceinline__ Words<P> fetch(const DeviceImage& in, int u, int y, BorderMode border) {
  Words<P> r;
  const int by = border_index_dev(y, in.height, border.kind);
  if (by < 0) {
#pragma unroll
    for (int k = 0; k < P; ++k) r.w[k] = splat_byte(border.value);
  } else if (u >= 0 && P * u < in.width) {
    // A unit starting inside the row ends inside its pitch (a multiple of 256 bytes).
    static_assert(P == 4, "one 16-byte load per row");
    r = load_quad<P>(row_of(in, by), u);
  } else {
#pragma unroll
    for (int k = 0; k < P; ++k) r.w[k] = 0U;
  }
  return r;
}

/// The alpha bytes of a unit's pixels, packed into one word (byte k: pixel k).
template <int P>
__device__ __forceinline__ std::uint32_t alphas(const Words<P>& r) {
  return __byte_perm(__byte_perm(r.w[0], r.w[1], kAlphaBytes),
                     __byte_perm(r.w[2], r.w[3], kAlphaBytes), kJoinHalves);
}

/// Unit u and the two pixels on each side lie inside a row of `width` pixels.
template <int P>
__host__ __device__ bool unit_interior(int u, int width) {
  return P * u >= kRadius && P * u + P + kRadius <= width;
}

/// The edge columns, a thread per pixel with bordered samples.
__global__ void gaussian_edge_kernel(DeviceImage in, DeviceImage out, Q5 weights, BorderMode border,
                                     EdgeColumns edges) {
  const int i = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
  const int y = static_cast<int>(blockIdx.y * blockDim.y + threadIdx.y);
  if (i >= edges.count() || y >= in.height) return;
  const int x = edges.column(i);
  std::uint8_t* dst = mutable_row(out, y) + x * kRgba;
  for (int c = 0; c < kAlphaChannel; ++c) {
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

/// The row pass of one output row from the unit's column sums (rb: R | B << 16, g: G) and
/// writes the P pixels with their alpha bytes.
template <int P>
__device__ __forceinline__ void row_pass_store(const std::uint32_t (&rb)[P],
                                               const std::uint32_t (&g)[P], std::uint32_t alpha,
                                               const Q5& w, std::uint8_t* row, int u, bool store) {
  constexpr int kWindow = P + 2 * kRadius;
  std::uint32_t e[kWindow];  // column sums of pixels P u - 2 .. P u + P + 1
  std::uint32_t gg[kWindow];
#pragma unroll
  for (int k = 0; k < kRadius; ++k) {
    e[k] = __shfl_up_sync(kFullMask, rb[P - kRadius + k], 1);
    gg[k] = __shfl_up_sync(kFullMask, g[P - kRadius + k], 1);
    e[P + kRadius + k] = __shfl_down_sync(kFullMask, rb[k], 1);
    gg[P + kRadius + k] = __shfl_down_sync(kFullMask, g[k], 1);
  }
#pragma unroll
  for (int k = 0; k < P; ++k) {
    e[kRadius + k] = rb[k];
    gg[kRadius + k] = g[k];
  }
  std::uint32_t blue[kWindow];
#pragma unroll
  for (int k = 0; k < kWindow; ++k) blue[k] = e[k] >> 16;
  const auto q0 = static_cast<std::uint32_t>(w.q[0]);
  const auto q1 = static_cast<std::uint32_t>(w.q[1]);
  const auto q2 = static_cast<std::uint32_t>(w.q[2]);
  // q is symmetric (q0 = q4, q1 = q3): q0 (a + e) + q1 (b + d) + q2 c.
  const auto taps = [&](const std::uint32_t(&v)[kWindow], int m, std::uint32_t start) {
    return q0 * (v[m] + v[m + 4]) + (q1 * (v[m + 1] + v[m + 3]) + (q2 * v[m + 2] + start));
  };
  std::uint32_t out[P];
#pragma unroll
  for (int m = 0; m < P; ++m) {
    const std::uint32_t b = taps(blue, m, kRound);
    const std::uint32_t r = taps(e, m, kRedStart) - (b << 16);
    const std::uint32_t gsum = taps(gg, m, kRound);
    const std::uint32_t rgb = __byte_perm(__byte_perm(r, gsum, kRedGreenByte2), b, kAddBlueByte2);
    // Alpha byte m of `alpha` into byte 3.
    out[m] = __byte_perm(rgb, alpha, 0x0210U | ((4U + m) << 12));
  }
  if (store) reinterpret_cast<uint4*>(row)[u] = make_uint4(out[0], out[1], out[2], out[3]);
}

template <int P>
__global__ void __launch_bounds__(kThreads)
    gaussian_registers_kernel(DeviceImage in, DeviceImage out, Q5 weights, BorderMode border) {
  const int lane = static_cast<int>(threadIdx.x) % kWarp;
  const int warp =
      static_cast<int>(blockIdx.x) * kWarpsPerBlock + static_cast<int>(threadIdx.x) / kWarp;
  const int u = warp * kOutLanes - 1 + lane;
  // Edge units are gaussian_edge_kernel's; every lane still takes part in the shuffles.
  const bool store = lane >= 1 && lane <= kOutLanes && unit_interior<P>(u, in.width);
  const int y0 = static_cast<int>(blockIdx.y) * kStripRows;
  const int y1 = min(y0 + kStripRows, in.height);
  const int last = y1 - 1 + kRadius;  // the last input row
  // pend[s]: the column sums of output row o with (o - y0) mod 5 = s, split as R | B << 16
  // and G. Row r is tap j of output r + 2 - j.
  std::uint32_t pend_rb[kTaps][P] = {};
  std::uint32_t pend_g[kTaps][P] = {};
  std::uint32_t alpha[kTaps] = {};  // packed alpha bytes of row r, slot (r - y0) mod 5
  // Five rows in flight: slot `phase` holds row r until it is used, then row r + 5.
  Words<P> ahead[kTaps];
#pragma unroll
  for (int k = 0; k < kTaps; ++k) ahead[k] = fetch<P>(in, u, y0 - kRadius + k, border);
  for (int base = y0 - kRadius; base <= last; base += kTaps) {
#pragma unroll
    for (int phase = 0; phase < kTaps; ++phase) {
      const int r = base + phase;
      if (r > last) break;
      const Words<P> row = ahead[phase];
      if (r + kTaps <= last) ahead[phase] = fetch<P>(in, u, r + kTaps, border);
      // (r - y0) mod 5 = (phase + 3) mod 5, as base = y0 - 2 (mod 5).
      constexpr int kShift = kTaps - kRadius;
      alpha[(phase + kShift) % kTaps] = alphas<P>(row);
#pragma unroll
      for (int k = 0; k < P; ++k) {
        const std::uint32_t rb = row.w[k] & kRedBlue;
        const std::uint32_t g = __byte_perm(row.w[k], 0U, kGreenOnly);
#pragma unroll
        for (int j = 0; j < kTaps; ++j) {
          // Output o = r + 2 - j, slot (o - y0) mod 5 = (phase + 3 + 2 - j) mod 5.
          const int slot = (phase + kTaps - j) % kTaps;
          const auto q = static_cast<std::uint32_t>(weights.q[j]);
          pend_rb[slot][k] = j == 0 ? q * rb : q * rb + pend_rb[slot][k];
          pend_g[slot][k] = j == 0 ? q * g : q * g + pend_g[slot][k];
        }
      }
      const int o = r - kRadius;  // complete: its last tap was row r
      if (o < y0) continue;
      const int slot = (phase + kTaps - (kTaps - 1)) % kTaps;
      row_pass_store<P>(pend_rb[slot], pend_g[slot], alpha[slot], weights, mutable_row(out, o), u,
                        store);
    }
  }
}

template <int P>
void launch_columns_first(const DeviceImage& in, const DeviceImage& out, const Q5& weights,
                          BorderMode border, cudaStream_t stream) {
  const int units = (in.width + P - 1) / P;
  const int warps = (units + kOutLanes - 1) / kOutLanes;
  const dim3 grid(blocks_for(warps, kWarpsPerBlock), blocks_for(in.height, kStripRows));
  gaussian_registers_kernel<P><<<grid, kThreads, 0, stream>>>(in, out, weights, border);
  CUDA_CHECK_LAUNCH("gaussian_registers_kernel");
  // Interior units are one run from the first unit with two pixels on its left.
  const int first = (kRadius + P - 1) / P;
  int end = units;
  while (end > first && !unit_interior<P>(end - 1, in.width)) --end;
  const EdgeColumns edges = end > first ? EdgeColumns{P * first, P * end, in.width}
                                        : EdgeColumns{in.width, in.width, in.width};
  if (edges.count() == 0) return;
  gaussian_edge_kernel<<<edge_grid(edges, in.height), dim3(kEdgeBlockX, kEdgeBlockY), 0, stream>>>(
      in, out, weights, border, edges);
  CUDA_CHECK_LAUNCH("gaussian_edge_kernel");
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
  launch_columns_first<kQuadPixels>(in, out, weights, border, stream);
}

}  // namespace parfilter::cuda
