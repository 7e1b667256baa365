// Internal: the codecs behind row_stream.hpp, one reader and one writer per format that
// streams rows. row_stream.cpp picks the codec by the file's magic bytes (reading) or the
// path's extension (writing). Each returns null where its format's file is not read in rows.
#pragma once

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>

#include "file_io.hpp"
#include "parfilter/image_io.hpp"
#include "parfilter/row_stream.hpp"

namespace parfilter::io {

/// A file's bytes read in pieces of about this size (a PNM's rows, a BMP's).
inline constexpr std::size_t kStreamBandBytes = std::size_t{256} << 10;

/// A band reader's read_rows (PNM's, BMP's): `count` rows from `next_row` on into `dst`, rows
/// `stride_bytes` apart, at most `band_rows` at a time. read_band(row, n, dst) writes image
/// rows [row, row + n) from dst on; `checkpoint` (when set) runs after each band, and
/// `next_row` moves past it.
template <class ReadBand>
void read_in_bands(std::uint8_t* dst, std::ptrdiff_t stride_bytes, int count, int band_rows,
                   int& next_row, const Checkpoint& checkpoint, const ReadBand& read_band) {
  while (count > 0) {
    const int n = std::min(count, band_rows);
    read_band(next_row, n, dst);
    if (checkpoint) checkpoint();
    dst += n * stride_bytes;
    next_row += n;
    count -= n;
  }
}

/// The checks of check_image_size for a streamed image: sides from 1 to kMaxImageDimension,
/// and `held_rows` rows (what the reader holds) within `max_bytes`.
void check_stream_size(const std::string& name, std::int64_t width, std::int64_t height,
                       int channels, Depth depth, std::int64_t held_rows, std::uint64_t max_bytes);

/// Rows of `count` rows from `rows` (`stride_bytes` apart) into `dst`, `dst_stride` apart.
void copy_rows(const std::uint8_t* rows, std::ptrdiff_t stride_bytes, std::uint8_t* dst,
               std::ptrdiff_t dst_stride, std::size_t row_bytes, int count);

[[nodiscard]] std::unique_ptr<RowReader> open_tiff_row_reader(std::unique_ptr<InputFile> file,
                                                              const LoadOptions& options);
[[nodiscard]] std::unique_ptr<RowReader> open_png_row_reader(std::unique_ptr<InputFile> file,
                                                             const LoadOptions& options);
[[nodiscard]] std::unique_ptr<RowReader> open_pnm_row_reader(std::unique_ptr<InputFile> file,
                                                             const LoadOptions& options);
[[nodiscard]] std::unique_ptr<RowReader> open_bmp_row_reader(std::unique_ptr<InputFile> file,
                                                             const LoadOptions& options);

/// A baseline JPEG that EXIF does not turn; null for a progressive one or one it turns.
[[nodiscard]] std::unique_ptr<RowReader> open_jpeg_row_reader(std::unique_ptr<InputFile> file,
                                                              const LoadOptions& options);
[[nodiscard]] std::unique_ptr<RowWriter> open_jpeg_row_writer(const std::filesystem::path& path,
                                                              const StreamShape& shape,
                                                              const SaveOptions& options);

[[nodiscard]] std::unique_ptr<RowWriter> open_tiff_row_writer(const std::filesystem::path& path,
                                                              const StreamShape& shape,
                                                              const SaveOptions& options);
[[nodiscard]] std::unique_ptr<RowWriter> open_png_row_writer(const std::filesystem::path& path,
                                                             const StreamShape& shape,
                                                             const SaveOptions& options);
[[nodiscard]] std::unique_ptr<RowWriter> open_pnm_row_writer(const std::filesystem::path& path,
                                                             const StreamShape& shape,
                                                             const SaveOptions& options);
[[nodiscard]] std::unique_ptr<RowWriter> open_bmp_row_writer(const std::filesystem::path& path,
                                                             const StreamShape& shape,
                                                             const SaveOptions& options);
/// placed_rows (row_stream.hpp) of the PNM and BMP writers.
[[nodiscard]] PlacedRows placed_pnm_rows(const StreamShape& shape);
[[nodiscard]] PlacedRows placed_bmp_rows(const StreamShape& shape);

}  // namespace parfilter::io
