// The host side of the ops: device buffers in, kernels, host math (filter_math) between them,
// results out. Each run_*_op is called with the runtime's mutex held and a run begun.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "cl_runtime.hpp"
#include "parfilter/image.hpp"
#include "parfilter/op_set.hpp"

namespace parfilter::opencl {

// Variant names, the default of each op first in opencl_variants().
inline constexpr std::string_view kDefaultVariant = "default";
inline constexpr std::string_view kGaussianDirect = "direct";
inline constexpr std::string_view kGaussianLut = "lut";
inline constexpr std::string_view kGaussianSeparable = "separable";
inline constexpr std::string_view kGaussianStrip = "strip";
inline constexpr std::string_view kGaussianVector = "vector";
inline constexpr std::string_view kSobelScalar = "scalar";
inline constexpr std::string_view kSobelVload16 = "vload16";
inline constexpr std::string_view kSharpenNaive = "naive";
inline constexpr std::string_view kSharpenVector = "vector";
inline constexpr std::string_view kSharpenLocal = "local";
inline constexpr std::string_view kHistogramLocalAtomics = "local-atomics";
inline constexpr std::string_view kHistogramTwoKernel = "two-kernel";
inline constexpr std::string_view kSegmentWorkgroup = "workgroup";
inline constexpr std::string_view kSegmentPrivate = "private";
/// Morphology's default: vhgw for large rects, else columns (vector for small elements on CPUs).
inline constexpr std::string_view kMorphDefault = "default";
inline constexpr std::string_view kMorphNaive = "naive";
inline constexpr std::string_view kMorphVector = "vector";
inline constexpr std::string_view kMorphImage2d = "image2d";
inline constexpr std::string_view kMorphColumns = "columns";
inline constexpr std::string_view kMorphVhgw = "vhgw";

/// The variants of `op`; a CPU device (PoCL) lists first the schedules that suit it.
[[nodiscard]] std::vector<std::string> opencl_variants(Op op, bool cpu_device);

/// The work-group shape of the 2-D kernels, and of the tiled ones (TILE_W x TILE_H).
inline constexpr Range kTile{16, 16};
/// Output rows per work item of the strip kernels, and samples per work item of the 16-lane
/// vector kernels.
inline constexpr int kStripRows = 16;
inline constexpr std::size_t kVectorLanes = 16;
/// Work-group size of the 1-D kernels.
inline constexpr std::size_t kGroup1d = 256;

/// The input image in a new device buffer, rows packed.
[[nodiscard]] Buffer upload_image(Runtime& rt, const ConstImageView& input);
/// A device image of width x height x channels read back.
[[nodiscard]] Image download_image(Runtime& rt, const Buffer& buffer, int width, int height,
                                   int channels);
[[nodiscard]] std::size_t image_bytes(int width, int height, int channels);
/// "-D CN=<channels>" plus the tile shape.
[[nodiscard]] Defines image_defines(int channels);

/// The gray plane of a device image: the image itself when it has one channel.
[[nodiscard]] Buffer gray_plane(Runtime& rt, const Buffer& image, int width, int height,
                                int channels);

/// The histogram of `count` samples buffer[i * stride + offset], with the histogram variant
/// `method` (kHistogramLocalAtomics or kHistogramTwoKernel).
[[nodiscard]] HistogramBins device_histogram(Runtime& rt, const Buffer& buffer, std::uint64_t count,
                                             int stride, int offset, std::string_view method);

OpOutput run_filter_op(Runtime& rt, Op op, const ConstImageView& input, const OpParams& params,
                       std::string_view variant);
OpOutput run_histogram_op(Runtime& rt, Op op, const ConstImageView& input, const OpParams& params,
                          std::string_view variant);
OpOutput run_morphology_op(Runtime& rt, Op op, const ConstImageView& input, const OpParams& params,
                           std::string_view variant);

}  // namespace parfilter::opencl
