// The SIMD row loops of the CPU kernels (Google Highway): each is compiled once per x86 target
// (SSE4, AVX2, AVX-512) and each call runs the best target the CPU has (docs/CPU_KERNELS.md).
//
// Every loop computes a leading part of its range in whole vectors, with exactly the integer
// expression of the plain C++ loop it stands in for, and returns where it stopped: the caller
// runs its plain loop over the rest (the tail, a row shorter than a vector, or the whole range
// on a CPU below SSE4 and in a build without Highway, where every loop returns its start). So
// each kernel has one definition of its edge and tail handling, and the SIMD loops only
// ever see interiors.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "filter_math.hpp"
#include "row_kernels_luma.hpp"

namespace parfilter::kernels::simd {

/// How a SIMD loop stores the output row it computes (the loops that take one).
struct RowStore {
  /// An RGBA row whose alpha bytes (byte 3 of each pixel) replace the computed ones (out must
  /// then start on a pixel), or null: alpha is put back in the same pass, not in another one.
  const std::uint8_t* alpha = nullptr;
  /// Streaming (non-temporal) stores where aligned: for a large output that nothing reads
  /// soon, they save reading each output line into the cache before writing it. The loop
  /// then stores its first vector twice (ordinary, then streamed), so out must not alias its
  /// inputs, unless recomputing is harmless (min and max).
  bool stream = false;
};

// Point loops ------------------------------------------------------------------------------
/// out[x] = the luma (w) of pixel x of an RGB(A) row of `channels` channels, for x from 0.
int luma_row(const std::uint8_t* in, std::uint8_t* out, int width, int channels,
             detail::LumaWeights w, RowStore store = {});
/// out[i] = in[i] > threshold ? 255 : 0 for i from 0 (threshold in 0..255).
std::ptrdiff_t threshold_row(const std::uint8_t* in, std::uint8_t* out, std::ptrdiff_t n,
                             int threshold, RowStore store = {});
/// out[i] = lut[in[i]] for i from 0.
std::ptrdiff_t lut_row(const std::uint8_t* in, std::uint8_t* out, std::ptrdiff_t n,
                       const std::uint8_t* lut, RowStore store = {});
/// The 2x2 max pool of output pixels from 0 whose windows are whole (out_pixels of them):
/// out pixel p = max over input pixels 2p and 2p + 1 of row0 and row1 (RGB: never streamed).
int pool_row(const std::uint8_t* row0, const std::uint8_t* row1, std::uint8_t* out, int out_pixels,
             int channels, RowStore store = {});
/// Alpha (byte 3 of each pixel) of `from` copied into an RGBA row of `pixels` pixels, from 0.
int copy_alpha_row(const std::uint8_t* from, std::uint8_t* to, int pixels);

/// Colour equalization's YCrCb round trip of an RGB(A) row (row_kernels_point.cpp), given each
/// pixel's luma and its equalized luma; alpha is copied. From pixel 0.
int equalize_row(const std::uint8_t* in, const std::uint8_t* luma, const std::uint8_t* new_luma,
                 std::uint8_t* out, int width, int channels);

// Neighbourhood loops ----------------------------------------------------------------------
/// The Gaussian's symmetric 1-D weights q0 = q_-2 = q_2, q1 = q_-1 = q_1, q2 the centre.
struct GaussianTaps {
  int q0, q1, q2;
};
/// Row pass: out[i] = q0 (in[i - 2C] + in[i + 2C]) + q1 (in[i - C] + in[i + C]) + q2 in[i], for
/// samples i from begin up to end (C = channels; the caller keeps the taps inside the row).
std::ptrdiff_t gaussian_row(const std::uint8_t* in, std::uint16_t* out, std::ptrdiff_t begin,
                            std::ptrdiff_t end, int channels, GaussianTaps q);
/// Column pass over rows r[0..4] of row sums: out[i] = (sum_k q_k r_k[i] + 32768) >> 16.
std::ptrdiff_t gaussian_column(const std::uint16_t* const* r, std::uint8_t* out, std::ptrdiff_t n,
                               GaussianTaps q, RowStore store = {});
/// out[i] = sat(5 mid[i] - up[i] - down[i] - mid[i - C] - mid[i + C]), i from begin to end
/// (begin on a pixel).
std::ptrdiff_t sharpen_row(const std::uint8_t* up, const std::uint8_t* mid,
                           const std::uint8_t* down, std::uint8_t* out, std::ptrdiff_t begin,
                           std::ptrdiff_t end, int channels, RowStore store = {});
/// sobel's output of gray pixels x from begin to end (their 3x3 neighbourhoods in the rows).
int sobel_row(const std::uint8_t* up, const std::uint8_t* mid, const std::uint8_t* down,
              std::uint8_t* out, int begin, int end, SobelOutput output, RowStore store = {});

// Morphology -------------------------------------------------------------------------------
/// out[i] = op(a[i], b[i]) from 0 (out may be a or b).
std::size_t combine(const std::uint8_t* a, const std::uint8_t* b, std::uint8_t* out, std::size_t n,
                    MorphOp op, RowStore store = {});
/// out[i] = op(a[i], b[i], c[i]) from 0 (out may be a, b or c).
std::size_t combine3(const std::uint8_t* a, const std::uint8_t* b, const std::uint8_t* c,
                     std::uint8_t* out, std::size_t n, MorphOp op, RowStore store = {});

// Targets ------------------------------------------------------------------------------------
/// The targets compiled in that this CPU runs, best first (Highway's names: "AVX3" is
/// AVX-512, "SCALAR" the plain C++ loops); just "SCALAR" in a build without Highway.
[[nodiscard]] std::vector<std::string> targets();
/// The target the loops run on now.
[[nodiscard]] std::string active_target();
/// Runs the loops on `name` (one of targets()) from now on; an empty name undoes the pin.
/// Returns false, changing nothing, for a name this CPU or build does not have. For tests and
/// benchmarks; call it while no kernel runs. The environment variable PARFILTER_SIMD_TARGETS
/// pins a target the same way for a whole process, before the first kernel runs.
bool pin_target(std::string_view name);

/// The environment variable that pins a target for a process (pin_target's names).
inline constexpr const char* kTargetEnvironment = "PARFILTER_SIMD_TARGETS";

}  // namespace parfilter::kernels::simd
