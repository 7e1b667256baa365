// The kernel launchers of the CUDA backend that several ops or the kernel benchmark (bench/cuda)
// call: one function per op family and variant, each enqueueing its kernels on a stream.
// Implemented in backend_cuda/kernels/*.cu (sharpen's in src/ops/sharpen.cu); plain C++ types
// only, so the host code (src/ops/*.cpp, cuda_ops.cpp) compiles with the C++ compiler. Every
// launcher checks its launches (RuntimeError on failure).
#pragma once

#include <cuda_runtime_api.h>

#include <array>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "filter_math.hpp"
#include "parfilter/op_set.hpp"

namespace parfilter::cuda {

/// An image in device memory: 8-bit samples, `channels` interleaved, rows `pitch` bytes apart.
/// Pitches are multiples of kPitchAlignment, so every row starts 16-byte aligned.
struct DeviceImage {
  std::uint8_t* data = nullptr;
  int width = 0;
  int height = 0;
  int channels = 0;
  std::size_t pitch = 0;
};

inline constexpr std::size_t kPitchAlignment = 256;  ///< also satisfies texture pitch limits

/// The pitch of a row of `width` pixels of `channels` samples.
[[nodiscard]] constexpr std::size_t aligned_pitch(int width, int channels) {
  const auto bytes = static_cast<std::size_t>(width) * static_cast<std::size_t>(channels);
  return (bytes + kPitchAlignment - 1) / kPitchAlignment * kPitchAlignment;
}

// ---- point ops (kernels/point.cu) ----------------------------------------------------------
/// in: 1, 3 or 4 channels; out: 1 channel.
void launch_gray(const DeviceImage& in, const DeviceImage& out, cudaStream_t stream);
/// out = 255 where gray > t, else 0.
void launch_threshold(const DeviceImage& gray, const DeviceImage& out, int t, cudaStream_t stream);
/// Gray equalization: out = lut[in] (lut: 256 bytes in device memory).
void launch_apply_lut(const DeviceImage& in, const DeviceImage& out, const std::uint8_t* lut,
                      cudaStream_t stream);
/// Colour equalization: (lut[Y], Cr, Cb) back to RGB; alpha copied.
void launch_equalize_color(const DeviceImage& in, const DeviceImage& out, const std::uint8_t* lut,
                           cudaStream_t stream);
/// 2x2 max pooling; out is ceil(W/2) x ceil(H/2).
void launch_pool(const DeviceImage& in, const DeviceImage& out, cudaStream_t stream);

// ---- gaussian (kernels/gaussian_pixel.cu, kernels/gaussian_separable.cu) ---------------------
enum class GaussianVariant : std::uint8_t { registers, separable, direct, unrolled, lut, texture };

/// Device-side tables for one sigma: the 25 weights (direct) and the 6 x 256 products (lut).
struct GaussianTables {
  const int* weights = nullptr;        ///< 25 ints, row-major w(i, j) = q_i q_j
  const std::uint32_t* lut = nullptr;  ///< 6 x 256
};

void launch_gaussian(GaussianVariant variant, const DeviceImage& in, const DeviceImage& out,
                     const std::array<int, 5>& q, const GaussianTables& tables, BorderMode border,
                     cudaStream_t stream);

// ---- sharpen (src/ops/sharpen.cu) -----------------------------------------------------------
enum class SharpenVariant : std::uint8_t { vector, tile, naive };
void launch_sharpen(SharpenVariant variant, const DeviceImage& in, const DeviceImage& out,
                    BorderMode border, cudaStream_t stream);

// ---- sobel (kernels/sobel.cu) -----------------------------------------------------------------
/// A thread per pixel over a gray plane (made by launch_gray).
void launch_sobel_pixel(const DeviceImage& gray, const DeviceImage& out, BorderMode border,
                        SobelOutput output, cudaStream_t stream);
/// Gray fused in: four pixels per thread, vector loads, rows kept in registers.
void launch_sobel_multi(const DeviceImage& in, const DeviceImage& out, BorderMode border,
                        SobelOutput output, cudaStream_t stream);

// ---- histograms (kernels/histogram.cu) --------------------------------------------------------
enum class HistogramVariant : std::uint8_t { shared_atomics, no_atomics };
/// What is counted: gray (one histogram), the Y of YCrCb (one) or every channel (one each).
enum class HistogramSource : std::uint8_t { gray, luma, channels };

/// Scratch bytes launch_histogram needs for this image.
[[nodiscard]] std::size_t histogram_scratch_bytes(HistogramVariant variant, const DeviceImage& in);

/// counts: (channels for HistogramSource::channels, else 1) x 256 64-bit counts, overwritten.
/// With shared atomics and gray source, gray_out (if non-null data) also receives the gray
/// plane, fused into the same pass.
void launch_histogram(HistogramVariant variant, HistogramSource source, const DeviceImage& in,
                      unsigned long long* counts, void* scratch, const DeviceImage& gray_out,
                      cudaStream_t stream);

// ---- adaptive segmentation (kernels/segment.cu) ------------------------------------------------
void launch_adaptive_segment(const DeviceImage& gray, const DeviceImage& out, int window,
                             int min_contrast, int global_threshold, cudaStream_t stream);

// ---- morphology (kernels/morphology*.cu)
// ---------------------------------------------------------
enum class MorphVariant : std::uint8_t { vhgw, separable, naive };

/// A rectangle of the structuring element, relative to its anchor: columns [x0, x1), rows
/// [y0, y1). An element is the union of such rectangles (structuring_element_rects).
using MorphRect = SeRect;

/// The element as the naive kernel reads it: per row, the set columns [x0, x1) relative to
/// the anchor (x0 == x1 for an empty row).
struct MorphSpans {
  std::vector<MorphRect> rows;  ///< one per element row, y0 = y1 - 1 = row - anchor_y
};

/// One erosion or dilation of `in` into `out` (alpha copied from `in`). `scratch` must hold
/// an image of in's size (separable and vhgw use it between their passes).
void launch_morphology(MorphVariant variant, MorphOp op, const DeviceImage& in,
                       const DeviceImage& out, const DeviceImage& scratch,
                       const std::vector<MorphRect>& rects, const MorphSpans& spans,
                       cudaStream_t stream);

}  // namespace parfilter::cuda
