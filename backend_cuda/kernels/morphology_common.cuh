// Helpers shared by the morphology kernels: pixels as 32-bit words (C bytes used), the min or
// max of two pixels per channel, and the neutral value that stands for "outside the image"
// (erosion ignores pixels outside by seeing 255, dilation by seeing 0).
#pragma once

#include "device_common.cuh"

namespace parfilter::cuda {

template <MorphOp Op>
struct Morph {
  static constexpr std::uint32_t kNeutral = Op == MorphOp::erode ? 0xFFFFFFFFU : 0U;
  /// Per byte: min for erosion, max for dilation.
  __device__ static __forceinline__ std::uint32_t combine(std::uint32_t a, std::uint32_t b) {
    if constexpr (Op == MorphOp::erode) {
      return __vminu4(a, b);
    } else {
      return __vmaxu4(a, b);
    }
  }
};

template <int C>
__device__ __forceinline__ std::uint32_t load_pixel(const std::uint8_t* row, int x) {
  // Read-only path: see load_quad.
  if constexpr (C == 4) {
    return __ldg(reinterpret_cast<const std::uint32_t*>(row) + x);
  } else if constexpr (C == 3) {
    const std::uint8_t* p = row + 3 * x;
    return static_cast<std::uint32_t>(__ldg(p)) | (static_cast<std::uint32_t>(__ldg(p + 1)) << 8) |
           (static_cast<std::uint32_t>(__ldg(p + 2)) << 16);
  } else {
    return __ldg(row + x);
  }
}

template <int C>
__device__ __forceinline__ void store_pixel(std::uint8_t* row, int x, std::uint32_t v) {
  if constexpr (C == 4) {
    reinterpret_cast<std::uint32_t*>(row)[x] = v;
  } else {
#pragma unroll
    for (int c = 0; c < C; ++c) row[C * x + c] = static_cast<std::uint8_t>(v >> (8 * c));
  }
}

/// The pixel at (x, y), or the neutral value outside the image.
template <int C, MorphOp Op>
__device__ __forceinline__ std::uint32_t pixel_or_neutral(const DeviceImage& img, int x, int y) {
  if (x < 0 || x >= img.width || y < 0 || y >= img.height) return Morph<Op>::kNeutral;
  return load_pixel<C>(row_of(img, y), x);
}

/// Stores a result; for RGBA the alpha byte comes from `alpha_src` at the same pixel.
template <int C>
__device__ __forceinline__ void store_result(const DeviceImage& out, const DeviceImage& alpha_src,
                                             int x, int y, std::uint32_t v) {
  if constexpr (C == 4) v = with_alpha(v, load_pixel<4>(row_of(alpha_src, y), x));
  store_pixel<C>(mutable_row(out, y), x, v);
}

/// Pixels split in two registers of 16-bit lanes (bytes 0 and 2, bytes 1 and 3): an extremum of
/// two pixels is then two VIMNMX instructions instead of __vminu4's emulation.
template <MorphOp Op>
struct SplitMorph {
  /// "Outside the image" per lane: 255 for erosion, 0 for dilation.
  static constexpr std::uint32_t kNeutral = Op == MorphOp::erode ? 0x00FF00FFU : 0U;
  __device__ static __forceinline__ uint2 combine(uint2 a, uint2 b) {
    if constexpr (Op == MorphOp::erode) {
      return make_uint2(__vminu2(a.x, b.x), __vminu2(a.y, b.y));
    } else {
      return make_uint2(__vmaxu2(a.x, b.x), __vmaxu2(a.y, b.y));
    }
  }
  /// The same for one half (one register of two 16-bit lanes).
  __device__ static __forceinline__ std::uint32_t combine1(std::uint32_t a, std::uint32_t b) {
    if constexpr (Op == MorphOp::erode) {
      return __vminu2(a, b);
    } else {
      return __vmaxu2(a, b);
    }
  }
  /// Three values of one half at once (VIMNMX3, one instruction on sm_90).
  __device__ static __forceinline__ std::uint32_t combine3(std::uint32_t a, std::uint32_t b,
                                                           std::uint32_t c) {
    if constexpr (Op == MorphOp::erode) {
      return __vimin3_u16x2(a, b, c);
    } else {
      return __vimax3_u16x2(a, b, c);
    }
  }
};

__device__ __forceinline__ uint2 split(std::uint32_t w) {
  return make_uint2(even_lanes(w), odd_lanes(w));
}

/// A pixel word for 16-bit-lane extrema. A 16-bit lane's extremum carries the extremum of the
/// lanes' high bytes, whatever their low bytes: the high half is the word itself (bytes 1 and
/// 3 high), the low half the word shifted up a byte (bytes 0 and 2 high). The shift is a
/// multiply, which the FMA pipe takes off the busier integer pipe (a mask would be a LOP3).
constexpr std::uint32_t kByteShift = 0x100U;
__device__ __forceinline__ std::uint32_t low_half(std::uint32_t v) { return v * kByteShift; }
/// The pixel back from its halves' extrema: bytes 1 and 3 of the low half, 1 and 3 of the high.
constexpr unsigned int kJoinHalves = 0x7351U;
__device__ __forceinline__ std::uint32_t join_halves(std::uint32_t low, std::uint32_t high) {
  return __byte_perm(low, high, kJoinHalves);
}

/// The prefix entries of a van Herk/Gil-Werman scan (the register kernel's horizontal pass).
/// Split: both halves per entry (no shift per use); otherwise a pixel word per entry, half the
/// registers for a shift per use. Words for rectangles up to 16 x 16 (the ellipse 15 x 15 1.04
/// -> 0.99 ms on the H200); split for the 32-entry kernels (as words the generic one spills,
/// and the RGBA 31 x 31 one ran 1% slower).
template <int N, bool Split>
struct PrefixEntries {
  std::uint32_t high[N];  ///< the high halves; not Split, the pixel words (which serve as them)
  std::uint32_t low[Split ? N : 1];

  __device__ __forceinline__ void set(int i, std::uint32_t low_half_value,
                                      std::uint32_t high_half_value) {
    if constexpr (Split) {
      low[i] = low_half_value;
      high[i] = high_half_value;
    } else {
      high[i] = join_halves(low_half_value, high_half_value);
    }
  }
  [[nodiscard]] __device__ __forceinline__ std::uint32_t low_at(int i) const {
    if constexpr (Split) return low[i];
    return low_half(high[i]);
  }
};

}  // namespace parfilter::cuda
