// Images read and written a band of rows at a time, top to bottom, for images larger than
// memory (the strip pipeline, pipeline/strip_pipeline.hpp). A reader holds at most one of the
// file's own blocks (a TIFF strip or row of tiles, a few PNG rows); a writer at most one of
// the blocks it encodes. The samples are those load_image gives and the bytes written those
// save_image writes, for the same image: streaming never changes a result.
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>

#include "parfilter/image.hpp"
#include "parfilter/image_io.hpp"

namespace parfilter {

/// An image's size, channels and depth, known from its header before any row.
struct StreamShape {
  int width = 0;
  int height = 0;
  int channels = 0;
  Depth depth = Depth::u8;

  /// Bytes of one packed row.
  [[nodiscard]] std::size_t row_bytes() const {
    return static_cast<std::size_t>(width) * static_cast<std::size_t>(channels) *
           bytes_per_sample(depth);
  }
  /// Bytes of the whole image, packed.
  [[nodiscard]] std::uint64_t image_bytes() const {
    return static_cast<std::uint64_t>(row_bytes()) * static_cast<std::uint64_t>(height);
  }
};

/// Reads an image file's rows in order.
class RowReader {
 public:
  RowReader() = default;
  RowReader(const RowReader&) = delete;
  RowReader& operator=(const RowReader&) = delete;
  virtual ~RowReader() = default;

  [[nodiscard]] virtual StreamShape shape() const = 0;
  /// Reads the next `count` rows (the first call starts at row 0) into `dst`, rows
  /// `stride_bytes` apart, as load_image would hold them. InputError naming the file for a
  /// corrupt or truncated one; reading past the last row is a logic error.
  virtual void read_rows(std::uint8_t* dst, std::ptrdiff_t stride_bytes, int count) = 0;
  /// Starts again from row 0 (the second pass of a global op).
  virtual void rewind() = 0;
  /// Moves to `row`, so that the next read starts there, where the format allows it without
  /// decoding the rows above (PNM, BMP, TIFF: its rows or strips lie at known offsets);
  /// false, the reader unchanged, where it does not (PNG, JPEG).
  [[nodiscard]] virtual bool seek(int /*row*/) { return false; }
  /// The most bytes the reader holds at once for its own blocks.
  [[nodiscard]] virtual std::size_t held_bytes() const = 0;
};

/// A reader of `path`, checked as load_image checks it (the same refusals and messages for a
/// corrupt file, an absurd size; options.max_bytes then bounds what the reader holds, not the
/// image); null when the file's format or layout is not read in rows here (an interlaced PNG,
/// a JPEG, TGA, a BMP that is compressed or of a rare layout), which load_image then reads
/// whole.
[[nodiscard]] std::unique_ptr<RowReader> open_row_reader(const std::filesystem::path& path,
                                                         const LoadOptions& options = {});

/// `reader`'s rows at `depth`, converted as convert_depth converts them (--depth); `reader`
/// itself where it reads at that depth.
[[nodiscard]] std::unique_ptr<RowReader> read_at_depth(std::unique_ptr<RowReader> reader,
                                                       Depth depth);

/// Writes an image file's rows in order, atomically, as save_image does: into a hidden
/// temporary file renamed into place by commit(); destroyed without commit (an error, a
/// signal), the temporary is removed and an existing file at the path is left as it was.
class RowWriter {
 public:
  RowWriter() = default;
  RowWriter(const RowWriter&) = delete;
  RowWriter& operator=(const RowWriter&) = delete;
  virtual ~RowWriter() = default;

  /// Writes the next `count` rows from `src`, rows `stride_bytes` apart. RuntimeError naming
  /// the path for a write failure (a full disk).
  virtual void write_rows(const std::uint8_t* src, std::ptrdiff_t stride_bytes, int count) = 0;
  /// After the last row: completes the file and renames it into place.
  virtual void commit() = 0;
  /// Lets other processes write the rows (MPI ranks, each its own), for a format whose rows
  /// lie at fixed offsets (binary PNM, BMP): the temporary file, its header written, where
  /// they go at placed_rows()' offsets; commit() then takes them as written. nullopt, nothing
  /// changed, for a compressed format.
  [[nodiscard]] virtual std::optional<std::filesystem::path> hand_out_rows() {
    return std::nullopt;
  }
};

/// Where the rows of an output whose rows lie at fixed offsets are stored, and how: what a
/// process other than the writer needs to write some of them (RowWriter::hand_out_rows).
struct PlacedRows {
  std::uint64_t header_bytes = 0;
  std::uint64_t stored_row_bytes = 0;  ///< with the format's padding, which stays zero
  bool bottom_up = false;              ///< BMP: the image's last row comes first
  int height = 0;
  /// Stores one image row, packed as RowWriter::write_rows takes it, into `out` (whose
  /// padding is left as it is).
  void (*encode)(const std::uint8_t* row, const StreamShape& shape, std::uint8_t* out) = nullptr;

  [[nodiscard]] std::uint64_t offset(int row) const {
    const int stored = bottom_up ? height - 1 - row : row;
    return header_bytes + static_cast<std::uint64_t>(stored) * stored_row_bytes;
  }
};

/// How open_row_writer(path, shape) stores rows, where they lie at fixed offsets (binary PNM,
/// BMP); nullopt for a compressed format (PNG, TIFF, JPEG) or an unknown extension.
[[nodiscard]] std::optional<PlacedRows> placed_rows(const std::filesystem::path& path,
                                                    const StreamShape& shape);

/// A writer of an image of `shape` to `path` in the format of its extension, giving the bytes
/// save_image gives; null for a format not written in rows here (JPEG, TGA). InputError for
/// an unknown extension, UsageError for a depth the format cannot hold.
[[nodiscard]] std::unique_ptr<RowWriter> open_row_writer(const std::filesystem::path& path,
                                                         const StreamShape& shape,
                                                         const SaveOptions& options = {});

}  // namespace parfilter
