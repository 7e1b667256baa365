// Generated test images for the benchmarks: deterministic, made in memory (nothing committed),
// with gradients, tiles and noise so that every op does its ordinary work (no flat image that a
// histogram or a threshold finishes early, no zeros that flatter a kernel).
#pragma once

#include <cstdint>

#include "parfilter/image.hpp"

namespace parfilter::bench {

/// A width x height image of 1 (gray), 3 (RGB) or 4 (RGBA) channels. The same arguments give
/// the same bytes on every machine; an RGB image is the one parfilter-bench-cpu always used.
[[nodiscard]] Image synthetic_image(int width, int height, int channels,
                                    std::uint32_t seed = 0x9e3779b9U);

/// The same image at 16 bits, content in every bit: each sample 257 v plus noise in its low
/// byte (not 8-bit data times 257, which some 16-bit paths might flatter).
[[nodiscard]] Image synthetic_image_16(int width, int height, int channels,
                                       std::uint32_t seed = 0x9e3779b9U);

}  // namespace parfilter::bench
