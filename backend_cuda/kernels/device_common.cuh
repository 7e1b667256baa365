// Device-side helpers every kernel file shares: border mapping, gray, quads of four pixels,
// packed-byte (SWAR) arithmetic and launch geometry. Mirrors filter_math.hpp exactly.
#pragma once

#include <cstdint>
#include <type_traits>

#include "../src/cuda_util.hpp"
#include "../src/launchers.hpp"
#include "filter_math.hpp"

namespace parfilter::cuda {

inline constexpr int kAlphaChannel = 3;
inline constexpr int kQuadPixels = 4;  ///< pixels per thread in the vectorized kernels
inline constexpr int kMaxSample = 255;

[[nodiscard]] inline unsigned int blocks_for(long long items, int per_block) {
  return static_cast<unsigned int>((items + per_block - 1) / per_block);
}

__device__ __forceinline__ const std::uint8_t* row_of(const DeviceImage& img, int y) {
  return img.data + static_cast<std::size_t>(y) * img.pitch;
}
__device__ __forceinline__ std::uint8_t* mutable_row(const DeviceImage& img, int y) {
  return img.data + static_cast<std::size_t>(y) * img.pitch;
}

/// filter_math's border_index: -1 means "use the constant".
__device__ __forceinline__ int border_index_dev(int i, int n, BorderKind kind) {
  if (i >= 0 && i < n) return i;
  if (kind == BorderKind::replicate) return i < 0 ? 0 : n - 1;
  if (kind == BorderKind::reflect101) {
    if (n == 1) return 0;
    while (i < 0 || i >= n) i = i < 0 ? -i : 2 * n - 2 - i;
    return i;
  }
  return -1;
}

/// Sample (x, y, c) of a C-channel image under a border mode.
template <int C>
__device__ __forceinline__ int bordered_sample(const DeviceImage& img, int x, int y, int c,
                                               BorderMode border) {
  const int bx = border_index_dev(x, img.width, border.kind);
  const int by = border_index_dev(y, img.height, border.kind);
  if (bx < 0 || by < 0) return border.value;
  return __ldg(row_of(img, by) + bx * C + c);
}

__device__ __forceinline__ int gray_dev(int r, int g, int b) {
  return (kGrayR * r + kGrayG * g + kGrayB * b + (1 << (kGrayShift - 1))) >> kGrayShift;
}

// OpenCV 4.6's 8-bit YCrCb conversion, with filter_math.hpp's constants: colour equalization
// needs it per pixel on the device.
inline constexpr int kYuvShift = ycrcb::kShift;
inline constexpr int kYuvRound = 1 << (kYuvShift - 1);
using ycrcb::kR2Y, ycrcb::kG2Y, ycrcb::kB2Y, ycrcb::kCrFromRMinusY, ycrcb::kCbFromBMinusY,
    ycrcb::kChromaOffset, ycrcb::kRFromCr, ycrcb::kGFromCr, ycrcb::kGFromCb, ycrcb::kBFromCb;

/// CV_DESCALE by kYuvShift (rounds half up; >> floors negative values).
__device__ __forceinline__ int descale(int v) { return (v + kYuvRound) >> kYuvShift; }

/// The Y of YCrCb (rgb_to_ycrcb(r, g, b).y).
__device__ __forceinline__ int luma_dev(int r, int g, int b) {
  return descale(kR2Y * r + kG2Y * g + kB2Y * b);
}

/// sum_c w_c v_c + round for the bytes R, G, B of `rgb` (byte 3 ignored), in two byte dot
/// products (IDP4A): each weight splits into its high and low byte.
template <int WR, int WG, int WB>
__device__ __forceinline__ int weighted_sum(std::uint32_t rgb, int round) {
  constexpr std::uint32_t kHigh = (WR >> 8) | ((WG >> 8) << 8) | ((WB >> 8) << 16);
  constexpr std::uint32_t kLow = (WR & 0xFF) | ((WG & 0xFF) << 8) | ((WB & 0xFF) << 16);
  return (__dp4a(rgb, kHigh, 0U) << 8) + __dp4a(rgb, kLow, static_cast<unsigned int>(round));
}

/// gray_dev of the R, G, B bytes of a word.
__device__ __forceinline__ int gray_of_word(std::uint32_t rgb) {
  return weighted_sum<kGrayR, kGrayG, kGrayB>(rgb, 1 << (kGrayShift - 1)) >> kGrayShift;
}

/// luma_dev of the R, G, B bytes of a word.
__device__ __forceinline__ int luma_of_word(std::uint32_t rgb) {
  return weighted_sum<kR2Y, kG2Y, kB2Y>(rgb, kYuvRound) >> kYuvShift;
}

/// Gray of pixel x of a C-channel row.
template <int C>
__device__ __forceinline__ int gray_at(const std::uint8_t* row, int x) {
  if constexpr (C == 1) {
    return __ldg(row + x);
  } else {
    return gray_dev(__ldg(row + x * C), __ldg(row + x * C + 1), __ldg(row + x * C + 2));
  }
}

// ---- quads: four consecutive pixels of a row, C 32-bit words -------------------------------
template <int C>
struct Quad {
  std::uint32_t w[C];
};

/// Quad qx of a row (byte offset 4 C qx: 16-byte aligned for C = 4, 4-byte aligned otherwise).
/// Inputs are read through the read-only path (__ldg): no kernel writes its own input, and the
/// compiler may then move these loads ahead of the kernel's stores.
template <int C>
__device__ __forceinline__ Quad<C> load_quad(const std::uint8_t* row, int qx) {
  Quad<C> q;
  const auto* words = reinterpret_cast<const std::uint32_t*>(row) + C * qx;
  if constexpr (C == 4) {
    const uint4 v = __ldg(reinterpret_cast<const uint4*>(words));
    q.w[0] = v.x;
    q.w[1] = v.y;
    q.w[2] = v.z;
    q.w[3] = v.w;
  } else {
#pragma unroll
    for (int i = 0; i < C; ++i) q.w[i] = __ldg(words + i);
  }
  return q;
}

template <int C>
__device__ __forceinline__ void store_quad(std::uint8_t* row, int qx, const Quad<C>& q) {
  auto* words = reinterpret_cast<std::uint32_t*>(row) + C * qx;
  if constexpr (C == 4) {
    *reinterpret_cast<uint4*>(words) = make_uint4(q.w[0], q.w[1], q.w[2], q.w[3]);
  } else {
#pragma unroll
    for (int i = 0; i < C; ++i) words[i] = q.w[i];
  }
}

/// Byte i (0 .. 4C-1) of a quad; i must be a compile-time constant after unrolling.
template <int C>
__device__ __forceinline__ int quad_byte(const Quad<C>& q, int i) {
  return static_cast<int>((q.w[i / 4] >> (8 * (i % 4))) & 0xFFU);
}

/// Pixel p (0..3) of a quad as one word: R, G, B in bytes 0..2 (byte 3: alpha or junk).
template <int C>
__device__ __forceinline__ std::uint32_t quad_pixel(const Quad<C>& q, int p) {
  if constexpr (C == 4) {
    return q.w[p];
  } else {
    static_assert(C == 3, "quad_pixel: RGB or RGBA");
    // Pixel p starts at byte 3p: in word 3p / 4, possibly running into the next one.
    const int first = 3 * p;
    const int k = first / 4;
    const int r = first % 4;
    const std::uint32_t next = k + 1 < C ? q.w[k + 1] : 0U;
    return __byte_perm(q.w[k], next, r | ((r + 1) << 4) | ((r + 2) << 8) | ((r + 3) << 12));
  }
}

/// The four gray values of a quad, packed little-endian in one word.
template <int C>
__device__ __forceinline__ std::uint32_t quad_gray(const Quad<C>& q) {
  if constexpr (C == 1) {
    return q.w[0];
  } else {
    std::uint32_t packed = 0;
#pragma unroll
    for (int p = 0; p < kQuadPixels; ++p) {
      packed |= static_cast<std::uint32_t>(gray_of_word(quad_pixel(q, p))) << (8 * p);
    }
    return packed;
  }
}

__device__ __forceinline__ std::uint32_t splat_byte(int v) {
  return static_cast<std::uint32_t>(v) * 0x01010101U;
}

// ---- SWAR: bytes in 16-bit lanes -----------------------------------------------------------
/// Bytes 0 and 2 of w in the low bytes of two 16-bit lanes.
__device__ __forceinline__ std::uint32_t even_lanes(std::uint32_t w) {
  return __byte_perm(w, 0U, 0x4240);
}
/// Bytes 1 and 3 of w in the low bytes of two 16-bit lanes.
__device__ __forceinline__ std::uint32_t odd_lanes(std::uint32_t w) {
  return __byte_perm(w, 0U, 0x4341);
}
/// Inverse of even_lanes/odd_lanes: the low bytes of the lanes back into one word.
__device__ __forceinline__ std::uint32_t merge_lanes(std::uint32_t even, std::uint32_t odd) {
  return __byte_perm(even, odd, 0x6240);
}

/// Bytes [off, off + 4) of the little-endian byte stream held in words w[0..N); `off` must be a
/// compile-time constant after unrolling.
template <int N>
__device__ __forceinline__ std::uint32_t stream_word(const std::uint32_t (&w)[N], int off) {
  const int k = off / 4;
  const int r = off % 4;
  if (r == 0) return w[k];
  return __byte_perm(w[k], w[k + 1], r | ((r + 1) << 4) | ((r + 2) << 8) | ((r + 3) << 12));
}

/// The alpha byte of each pixel word (C = 4) kept from `alpha_from`, the rest from `rgb`.
__device__ __forceinline__ std::uint32_t with_alpha(std::uint32_t rgb, std::uint32_t alpha_from) {
  return (rgb & 0x00FFFFFFU) | (alpha_from & 0xFF000000U);
}

// ---- edges of the quad kernels ---------------------------------------------------------------
/// The columns a quad kernel leaves to a thread-per-pixel edge kernel: [0, left) and
/// [right, width). A quad kernel's work per thread is a strip of rows; doing the bordered
/// edges there would leave a few threads working long after the others.
struct EdgeColumns {
  int left = 0;
  int right = 0;
  int width = 0;
  [[nodiscard]] __host__ __device__ int count() const { return left + width - right; }
  /// The i-th edge column.
  [[nodiscard]] __host__ __device__ int column(int i) const {
    return i < left ? i : right + i - left;
  }
};

/// The edge columns of a quad kernel whose quad qx is interior when interior(qx); interior
/// quads are one run starting at quad 1 (quad 0 always has a neighbour outside).
template <typename Interior>
EdgeColumns edge_columns(int width, Interior&& interior) {
  const int quads = (width + kQuadPixels - 1) / kQuadPixels;
  int end = quads;
  while (end > 1 && !interior(end - 1)) --end;
  if (end <= 1) return {width, width, width};
  return {kQuadPixels, kQuadPixels * end, width};
}

/// A grid of 32 x 8 threads over the edge columns and every row.
inline constexpr int kEdgeBlockX = 32;
inline constexpr int kEdgeBlockY = 8;
inline dim3 edge_grid(const EdgeColumns& edges, int height) {
  return dim3(blocks_for(edges.count(), kEdgeBlockX), blocks_for(height, kEdgeBlockY));
}

/// Calls fn(std::integral_constant<int, C>{}) for an image's channel count (1, 3 or 4): one
/// kernel instantiation per count.
template <typename Fn>
void with_channels(int channels, Fn&& fn) {
  switch (channels) {
    case 1:
      fn(std::integral_constant<int, 1>{});
      break;
    case 3:
      fn(std::integral_constant<int, 3>{});
      break;
    default:
      fn(std::integral_constant<int, 4>{});
      break;
  }
}

}  // namespace parfilter::cuda
