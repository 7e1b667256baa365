// Launchers shared between the kernel files of backend_cuda/kernels (not part of the
// interface the host code uses, launchers.hpp).
#pragma once

#include <array>

#include "../src/launchers.hpp"

namespace parfilter::cuda {

/// The separable Gaussian: a shared-memory tile, row and column passes in one kernel.
void launch_gaussian_separable(const DeviceImage& in, const DeviceImage& out,
                               const std::array<int, 5>& q, BorderMode border, cudaStream_t stream);

/// The register-blocked separable variant (RGBA; other images take the shared-memory tile).
void launch_gaussian_registers(const DeviceImage& in, const DeviceImage& out,
                               const std::array<int, 5>& q, BorderMode border, cudaStream_t stream);

/// The texture variant: address modes implement the borders where the hardware can.
void launch_gaussian_texture(const DeviceImage& in, const DeviceImage& out,
                             const std::array<int, 5>& q, BorderMode border, cudaStream_t stream);

/// The 2-D van Herk/Gil-Werman tile for one rectangle of a structuring element; false when the
/// rectangle is too large for a tile (the caller then runs the two 1-D passes).
bool launch_morphology_vhgw_tile(MorphOp op, const DeviceImage& in, const DeviceImage& out,
                                 const MorphRect& rect, bool combine, cudaStream_t stream);

/// A rectangle within 5 x 5 of an RGBA image by direct extrema in registers (vHGW gains nothing
/// there); false when the rectangle or image does not qualify.
bool launch_morphology_small_rect(MorphOp op, const DeviceImage& in, const DeviceImage& out,
                                  const MorphRect& rect, bool combine, cudaStream_t stream);

/// A square ellipse or cross from 3 x 3 to 15 x 15, both passes in one kernel
/// (morphology_levels.cu); false for any other element (the caller then runs its rectangles).
bool launch_morphology_levels(MorphOp op, const DeviceImage& in, const DeviceImage& out,
                              const MorphSpans& spans, cudaStream_t stream);

}  // namespace parfilter::cuda
