// Internal: a TIFF's Deflate strips compressed apart from libtiff, so that a save spreads them
// over threads (SaveOptions::parallel_for) as the PNG encoder spreads its bands; libtiff then
// writes them as raw strips. The bytes are what libtiff's own Deflate codec with the
// horizontal predictor would store, at the save's zlib level (SaveOptions::tiff_level).
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "parfilter/image.hpp"
#include "parfilter/row_stream.hpp"

namespace parfilter::io {

/// Rows per strip of a saved TIFF: about kTiffStripBytes of samples, so that a strip is worth a
/// thread's task, at least one row.
inline constexpr std::size_t kTiffStripBytes = std::size_t{256} << 10;
[[nodiscard]] int tiff_rows_per_strip(const StreamShape& shape);
[[nodiscard]] int tiff_rows_per_strip(const Image& image);

/// Rows [first, first + count) of `image`, horizontally differenced per channel (TIFF's
/// predictor 2, on samples of the image's depth, in native byte order) and deflated as one
/// zlib stream at `level`. Throws RuntimeError when zlib fails.
[[nodiscard]] std::vector<std::uint8_t> deflate_tiff_strip(const Image& image, int first, int count,
                                                           int level);
/// The same for `count` rows of an image of `shape`, the first at `rows`, `stride_bytes` apart.
[[nodiscard]] std::vector<std::uint8_t> deflate_tiff_strip(const StreamShape& shape,
                                                           const std::uint8_t* rows,
                                                           std::ptrdiff_t stride_bytes, int count,
                                                           int level);

}  // namespace parfilter::io
