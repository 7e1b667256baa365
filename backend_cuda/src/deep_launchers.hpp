// The launchers of the 16-bit kernels (kernels/deep_filters.cu, kernels/deep_levels.cu), which
// deep_device.cpp drives through common/kernels/device_chain_16.hpp. Images are packed rows of
// `shape.channels` 16-bit samples in device memory; every launcher enqueues on `stream` and checks
// its launch.
#pragma once

#include <cuda_runtime_api.h>

#include <array>
#include <cstdint>

#include "device_chain_16.hpp"
#include "filter_math.hpp"
#include "parfilter/op_set.hpp"

namespace parfilter::cuda::deep16 {

using Sample = std::uint16_t;
using Shape = deep::Shape;
using GaussianTaps = std::array<int, kGaussianTaps>;

void launch_gray(const Sample* in, Sample* out, Shape shape, cudaStream_t stream);
/// The spec's 5x5 sum (direct) or its row and column passes through `row_sums` (separable,
/// shape.samples() 32-bit sums; null for direct).
void launch_gaussian(const Sample* in, Sample* out, std::uint32_t* row_sums, Shape shape,
                     const GaussianTaps& q, BorderMode border, cudaStream_t stream);
void launch_sobel(const Sample* gray, Sample* out, Shape shape, BorderMode border,
                  SobelOutput output, cudaStream_t stream);
void launch_sharpen(const Sample* in, Sample* out, Shape shape, BorderMode border,
                    cudaStream_t stream);
/// Adds to `bins` (65536 32-bit counts) the samples in[first + k * stride], k < count.
void launch_histogram(const Sample* in, std::uint64_t first, int stride, std::uint32_t count,
                      std::uint32_t* bins, cudaStream_t stream);
/// Adds the YCrCb luma of pixels first .. first + count - 1 of an RGB(A) image.
void launch_luma_histogram(const Sample* in, std::uint64_t first, int channels, std::uint32_t count,
                           std::uint32_t* bins, cudaStream_t stream);
void launch_apply_lut(const Sample* in, Sample* out, Shape shape, const std::uint16_t* lut,
                      cudaStream_t stream);
void launch_equalize_color(const Sample* in, Sample* out, Shape shape, const std::uint16_t* lut,
                           cudaStream_t stream);
void launch_threshold(const Sample* gray, Sample* out, Shape shape, int t, cudaStream_t stream);
void launch_adaptive_segment(const Sample* gray, Sample* out, Shape shape, int window,
                             int min_contrast, int global_t, cudaStream_t stream);
/// One erosion or dilation over the element `mask` (se.width x se.height bytes on the device).
void launch_morphology(const Sample* in, Sample* out, Shape shape, const std::uint8_t* mask,
                       const StructuringElement& se, MorphOp op, cudaStream_t stream);
void launch_pool(const Sample* in, Sample* out, Shape in_shape, Shape out_shape,
                 cudaStream_t stream);

}  // namespace parfilter::cuda::deep16
