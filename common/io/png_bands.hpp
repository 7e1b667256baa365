// Internal to png_encode.cpp (whole images) and png_stream.cpp (rows): the banded PNG
// encoder's pieces, so that a streamed PNG is encoded by the same BandEncoder and its bytes
// are encode_png_banded's. A band is encoded from the rows it covers and the history rows
// before it (deflate's window at levels 2+, and the row above for the filters).
#pragma once
#ifdef PARFILTER_HAVE_ZLIB

#include <cstddef>
#include <cstdint>
#include <vector>

#include "parfilter/image.hpp"
#include "parfilter/image_io.hpp"
#include "parfilter/row_stream.hpp"

namespace parfilter::io {

/// One band's part of the stream: its IDAT chunk (complete with CRC), and the Adler-32 and
/// length of its uncompressed (filtered) bytes.
struct PngBand {
  std::vector<std::uint8_t> chunk;
  std::uint32_t adler = 0;
  std::size_t filtered_bytes = 0;
};

/// How an image is cut into bands.
struct PngBandLayout {
  std::size_t filtered_row_bytes = 0;  ///< a row's bytes with its filter byte
  int band_rows = 1;
  int bands = 1;
  /// Rows before a band whose bytes fill deflate's window (0 at levels 0 and 1); the band's
  /// encoding also reads the row before those (the filters' row above).
  int history_rows = 0;
};

[[nodiscard]] PngBandLayout png_band_layout(const StreamShape& shape, int level);

/// Band `band` of the image `rows` is a view of: rows() must cover the band and, before it,
/// history_rows + 1 rows (or all rows from 0).
[[nodiscard]] PngBand encode_png_band(const ConstImageView& rows, int band,
                                      const SaveOptions& options);
[[nodiscard]] PngBand encode_png_band(const ConstImageView16& rows, int band,
                                      const SaveOptions& options);

/// The signature and IHDR; the last IDAT (the zlib stream's Adler-32) and IEND.
[[nodiscard]] std::vector<std::uint8_t> png_head(const StreamShape& shape);
[[nodiscard]] std::vector<std::uint8_t> png_tail(std::uint32_t adler);
/// The Adler-32 of an empty stream, and the stream's after `band`.
inline constexpr std::uint32_t kPngAdlerStart = 1;
[[nodiscard]] std::uint32_t png_add_band(std::uint32_t adler, const PngBand& band);

}  // namespace parfilter::io

#endif  // PARFILTER_HAVE_ZLIB
