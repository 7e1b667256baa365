// The register-blocked separable Gaussian for RGBA images (variant "registers"), column pass
// first. A thread takes a quad (4 pixels, one 16-byte copy per row) and slides down a strip of
// rows; a warp's 32 lanes cover 32 consecutive quads and the two lanes at its ends only feed
// their neighbours. The rows go ahead by cp.async into a per-warp ring in shared memory
// (kDepth rows in flight, no registers held). Strips are short (kStripRows): a block's apron
// rows are then still in L2 from the neighbouring strip, read at about the same time.
//
// Column pass: a row's colour samples are split per channel into pairs of adjacent pixels in
// 16-bit lanes (c_k | c_{k+1} << 16), six words per row and thread. The last five rows are kept
// so, and output row o is q0 (row o-2 + row o+2) + q1 (row o-1 + row o+1) + q2 row o on those
// words, exact in 16-bit lanes (every partial sum is at most 256 * 255).
// Row pass: the pair on each side comes from the neighbouring lane (warp shuffles), and each
// output sample is three IDP2A (a 16-bit pair times two weight bytes plus the accumulator,
// which starts at the rounding constant); even and odd pixels take different weight-byte
// pairs. The final (sum + 32768) >> 16 is byte 2 of the sum (below 2^24), picked by PRMT
// together with the alpha byte.
// Edges: a quad with a pixel outside the row (the lanes just past either end and a partial
// last quad) gathers its four pixels through the horizontal border, a 4-byte copy each (their
// byte offsets are worked out once, in shared memory), so every quad of the row is written
// here, a partial one pixel by pixel. The weights must fit a byte: q = (0, 0, 256, 0, 0) and
// gray and RGB images take the separable tile.
#include "async_copy.cuh"
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
/// Output rows per block: short strips, so that the two blocks reading an apron row do so close
/// together in time and the second finds it in L2.
constexpr int kStripRows = 12;
constexpr int kDepth = 8;                                   ///< rows in flight per thread
constexpr unsigned int kSlotBytes = kWarp * sizeof(uint4);  ///< a warp's row in the ring
constexpr int kRgba = 4;
constexpr int kP = kQuadPixels;      ///< pixels per thread
constexpr int kPairs = kP / 2;       ///< pairs of adjacent pixels per thread
constexpr int kColours = kRgba - 1;  ///< R, G, B (alpha is copied)
constexpr int kMaxByteWeight = 255;
constexpr int kBitsPerByte = 8;
constexpr unsigned int kFullMask = 0xFFFFFFFFU;
constexpr std::uint32_t kRound = 1U << (kGaussianShift - 1);  ///< the + 32768
constexpr std::uint32_t kLowBytes = 0x00FF00FFU;              ///< the low byte of each 16-bit lane
constexpr unsigned int kRedGreen = 0x5410;       ///< PRMT: R, G of pixel a, then R, G of pixel b
constexpr unsigned int kBlueAlpha = 0x7632;      ///< PRMT: B, A of pixel a, then B, A of pixel b
constexpr unsigned int kOddLanes = 0x4341;       ///< PRMT: bytes 1 and 3 into two 16-bit lanes
constexpr unsigned int kRedGreenByte2 = 0x0062;  ///< PRMT: byte 2 of each of two sums
constexpr unsigned int kBlueByte2 = 0x0610;      ///< PRMT: ... then byte 2 of the third
constexpr unsigned int kFirstAlpha = 5;          ///< PRMT selector of pixel a's alpha in B|A words
constexpr unsigned int kSecondAlpha = 7;         ///< ... and of pixel b's

/// The weights: q0, q1, q2 for the column pass (q symmetric), and the three words of weight
/// bytes the row pass's IDP2A take: (q0 q1 | q2 q3), (q4 0 | 0 q0), (q1 q2 | q3 q4).
struct Weights {
  int q[kTaps];
  std::uint32_t wa;
  std::uint32_t wb;
  std::uint32_t wc;
};

/// The six column words (channel c, pair h: c_{2h} | c_{2h+1} << 16) and the two B|A words of
/// one row of a thread's quad.
struct Split {
  std::uint32_t c[kColours][kPairs];
  std::uint32_t alpha[kPairs];
};

__device__ __forceinline__ Split split(const uint4& v) {
  const std::uint32_t w[kP] = {v.x, v.y, v.z, v.w};
  Split s;
#pragma unroll
  for (int h = 0; h < kPairs; ++h) {
    const std::uint32_t rg = __byte_perm(w[2 * h], w[2 * h + 1], kRedGreen);
    const std::uint32_t ba = __byte_perm(w[2 * h], w[2 * h + 1], kBlueAlpha);
    s.c[0][h] = rg & kLowBytes;
    s.c[1][h] = __byte_perm(rg, 0U, kOddLanes);
    s.c[2][h] = ba & kLowBytes;
    s.alpha[h] = ba;
  }
  return s;
}

/// Byte offset of row y >= 0 (one 32 x 32 -> 64-bit multiply).
__device__ __forceinline__ std::size_t wide(int y, unsigned int pitch) {
  return static_cast<std::size_t>(static_cast<unsigned int>(y)) * pitch;
}

/// Row y through the vertical border: -1 for the border constant.
__device__ __forceinline__ int source_row(int y, int height, BorderMode border) {
  return static_cast<unsigned int>(y) < static_cast<unsigned int>(height)
             ? y
             : border_index_dev(y, height, border.kind);
}

/// One output sample of an even (odd) pixel m from the pairs x = c_{m-2} | c_{m-1},
/// y = c_m | c_{m+1}, z = c_{m+2} | c_{m+3} (for odd m, the pairs of m - 1).
__device__ __forceinline__ std::uint32_t even_sum(std::uint32_t x, std::uint32_t y, std::uint32_t z,
                                                  const Weights& w) {
  return __dp2a_lo(z, w.wb, __dp2a_hi(y, w.wa, __dp2a_lo(x, w.wa, kRound)));
}
__device__ __forceinline__ std::uint32_t odd_sum(std::uint32_t x, std::uint32_t y, std::uint32_t z,
                                                 const Weights& w) {
  return __dp2a_hi(z, w.wc, __dp2a_lo(y, w.wc, __dp2a_hi(x, w.wb, kRound)));
}

/// The row pass of one output row from the column words and writes the quad with the alpha
/// bytes of its B|A words (only the first `pixels` where fewer than four lie in the row).
__device__ __forceinline__ void row_pass_store(const std::uint32_t (&col)[kColours][kPairs],
                                               const std::uint32_t (&alpha)[kPairs],
                                               const Weights& w, std::uint8_t* dst, bool store,
                                               int pixels) {
  std::uint32_t sum[kColours][kP];
#pragma unroll
  for (int c = 0; c < kColours; ++c) {
    // Pairs -1 .. 2 of the window: pixels -2 .. 5 of the unit.
    const std::uint32_t left = __shfl_up_sync(kFullMask, col[c][kPairs - 1], 1);
    const std::uint32_t right = __shfl_down_sync(kFullMask, col[c][0], 1);
    const std::uint32_t pair[kPairs + 2] = {left, col[c][0], col[c][1], right};
#pragma unroll
    for (int h = 0; h < kPairs; ++h) {
      sum[c][2 * h] = even_sum(pair[h], pair[h + 1], pair[h + 2], w);
      sum[c][2 * h + 1] = odd_sum(pair[h], pair[h + 1], pair[h + 2], w);
    }
  }
  std::uint32_t out[kP];
#pragma unroll
  for (int m = 0; m < kP; ++m) {
    const std::uint32_t rgb =
        __byte_perm(__byte_perm(sum[0][m], sum[1][m], kRedGreenByte2), sum[2][m], kBlueByte2);
    const unsigned int a = m % 2 == 0 ? kFirstAlpha : kSecondAlpha;
    out[m] = __byte_perm(rgb, alpha[m / 2], 0x0210U | (a << 12));
  }
  if (!store) return;
  if (pixels >= kP) {
    *reinterpret_cast<uint4*>(dst) = make_uint4(out[0], out[1], out[2], out[3]);
  } else {
#pragma unroll
    for (int m = 0; m < kP; ++m) {
      if (m < pixels) reinterpret_cast<std::uint32_t*>(dst)[m] = out[m];
    }
  }
}

__global__ void __launch_bounds__(kThreads)
    gaussian_registers_kernel(DeviceImage in, DeviceImage out, Weights weights, BorderMode border,
                              int column_blocks) {
  // Blocks go across the row first, then down the strips (a 1-D grid: any height).
  const int column_block = static_cast<int>(blockIdx.x) % column_blocks;
  const int strip = static_cast<int>(blockIdx.x) / column_blocks;
  __shared__ uint4 ring[kDepth * kThreads];
  __shared__ int4 gather_offsets[kThreads];
  const int lane = static_cast<int>(threadIdx.x) % kWarp;
  const int warp = column_block * kWarpsPerBlock + static_cast<int>(threadIdx.x) / kWarp;
  const int u = warp * kOutLanes - 1 + lane;
  const int x0 = kP * u;
  const int pixels = in.width - x0;  // of the quad inside the row (at least kP: all)
  const bool store = lane >= 1 && lane <= kOutLanes && pixels > 0;
  // A quad with a pixel outside the row gathers its pixels through the border (offsets in
  // bytes, -1 for the constant). Lanes beyond the one after the last quad feed no output.
  const bool gather = x0 < 0 || pixels < kP;
  if (gather) {
    int o[kP];
#pragma unroll
    for (int k = 0; k < kP; ++k) {
      const int bx = border_index_dev(x0 + k, in.width, border.kind);
      o[k] = bx < 0 ? -1 : kRgba * bx;
    }
    gather_offsets[threadIdx.x] = make_int4(o[0], o[1], o[2], o[3]);
  }
  const std::uint8_t* column = in.data + sizeof(uint4) * static_cast<unsigned int>(max(u, 0));
  std::uint8_t* out_column = out.data + sizeof(uint4) * static_cast<unsigned int>(max(u, 0));
  // Pitches below 4 GiB: one wide multiply-add per row address.
  const auto in_pitch = static_cast<unsigned int>(in.pitch);
  const auto out_pitch = static_cast<unsigned int>(out.pitch);
  const int y0 = strip * kStripRows;
  const int y1 = min(y0 + kStripRows, in.height);
  const int first = y0 - kRadius;                   // the first input row
  const int last = y1 - 1 + kRadius;                // the last input row
  const int plain_last = min(last, in.height - 1);  // rows up to here need no border mapping
  const auto q0 = static_cast<std::uint32_t>(weights.q[0]);
  const auto q1 = static_cast<std::uint32_t>(weights.q[1]);
  const auto q2 = static_cast<std::uint32_t>(weights.q[2]);
  const std::uint32_t constant = splat_byte(border.value);
  const unsigned int my_ring =
      shared_address(ring + (static_cast<int>(threadIdx.x) / kWarp) * kWarp * kDepth + lane);
  // Ring slot of row y (kDepth is a power of two).
  const auto slot = [&](int y) {
    return my_ring + (static_cast<unsigned int>(y - first) % kDepth) * kSlotBytes;
  };
  // Source row s (-1: the constant) into ring slot dst, s >= 0 known when `plain`.
  const auto copy_row = [&](unsigned int dst, int s, bool plain) {
    if (!plain && s < 0) {
#pragma unroll
      for (int k = 0; k < kP; ++k) store_shared(dst + k * sizeof(std::uint32_t), constant);
    } else if (!gather) {
      copy_async16(dst, column + wide(s, in_pitch));
    } else {
      const std::uint8_t* row = in.data + wide(s, in_pitch);
      const int4 g = gather_offsets[threadIdx.x];
      const int o[kP] = {g.x, g.y, g.z, g.w};
#pragma unroll
      for (int k = 0; k < kP; ++k) {
        const unsigned int word = dst + k * sizeof(std::uint32_t);
        if (o[k] >= 0) {
          copy_async4(word, row + o[k]);
        } else {
          store_shared(word, constant);
        }
      }
    }
  };
  for (int k = 0; k < kDepth - 1; ++k) {
    const int y = first + k;
    copy_row(slot(y), source_row(y, in.height, border), false);
    commit_async();
  }
  // rows[(r - first) mod 5]: the split row r, kept while it is a tap of a pending output.
  Split rows[kTaps];
  for (int base = first; base <= last; base += kTaps) {
    unsigned int previous = slot(base - 1);
#pragma unroll
    for (int phase = 0; phase < kTaps; ++phase) {
      const int r = base + phase;
      if (r > last) break;
      // Row r + kDepth - 1 goes into the slot of row r - 1 (used up); a group per row (empty
      // past the strip) keeps the count uniform.
      const int y = r + kDepth - 1;
      if (y <= plain_last) {
        copy_row(previous, y, true);
      } else if (y <= last) {
        copy_row(previous, source_row(y, in.height, border), false);
      }
      commit_async();
      wait_async<kDepth - 1>();
      const unsigned int current = slot(r);
      rows[phase] = split(load_shared(current));
      previous = current;
      const int o = r - kRadius;  // complete: its last tap is row r
      if (o < y0) continue;
      // Rows o - 2 .. o + 2 are in slots phase + 1 .. phase + 5 (mod 5).
      const Split& a = rows[(phase + 1) % kTaps];
      const Split& b = rows[(phase + 2) % kTaps];
      const Split& c = rows[(phase + 3) % kTaps];
      const Split& d = rows[(phase + 4) % kTaps];
      const Split& e = rows[phase];
      std::uint32_t col[kColours][kPairs];
#pragma unroll
      for (int ch = 0; ch < kColours; ++ch) {
#pragma unroll
        for (int h = 0; h < kPairs; ++h) {
          col[ch][h] =
              q0 * (a.c[ch][h] + e.c[ch][h]) + (q1 * (b.c[ch][h] + d.c[ch][h]) + q2 * c.c[ch][h]);
        }
      }
      row_pass_store(col, c.alpha, weights, out_column + wide(o, out_pitch), store, pixels);
    }
  }
}

}  // namespace

void launch_gaussian_registers(const DeviceImage& in, const DeviceImage& out,
                               const std::array<int, 5>& q, BorderMode border,
                               cudaStream_t stream) {
  bool bytes = true;
  for (const int v : q) bytes = bytes && v >= 0 && v <= kMaxByteWeight;
  if (in.channels != kRgba || !bytes) {
    launch_gaussian_separable(in, out, q, border, stream);
    return;
  }
  Weights weights{};
  for (int i = 0; i < kTaps; ++i) weights.q[i] = q[i];
  // Weight q[i] as byte k of a word.
  const auto byte = [&](int i, int k) {
    return static_cast<std::uint32_t>(q[i]) << (kBitsPerByte * k);
  };
  weights.wa = byte(0, 0) | byte(1, 1) | byte(2, 2) | byte(3, 3);
  weights.wb = byte(4, 0) | byte(0, 3);
  weights.wc = byte(1, 0) | byte(2, 1) | byte(3, 2) | byte(4, 3);
  const int units = (in.width + kP - 1) / kP;
  const int warps = (units + kOutLanes - 1) / kOutLanes;
  const unsigned int column_blocks = blocks_for(warps, kWarpsPerBlock);
  const unsigned int blocks = column_blocks * blocks_for(in.height, kStripRows);
  gaussian_registers_kernel<<<blocks, kThreads, 0, stream>>>(in, out, weights, border,
                                                             static_cast<int>(column_blocks));
  CUDA_CHECK_LAUNCH("gaussian_registers_kernel");
}

}  // namespace parfilter::cuda
