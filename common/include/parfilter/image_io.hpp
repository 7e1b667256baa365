// Loading and saving images: PNG (libspng, and a banded parallel encoder over zlib), JPEG
// (libjpeg-turbo), BMP and PNM (parfilter's own), TGA (stb_image, also the fallback for PNG and
// JPEG where their libraries are missing). Limits for untrusted input, atomic writes.
// docs/IO.md describes every format's choices.
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "parfilter/image.hpp"

namespace parfilter {

/// Default cap on a decoded image's buffer: 2^31 bytes.
inline constexpr std::uint64_t kDefaultMaxImageBytes = std::uint64_t{1} << 31;

/// Called now and then by a decoder or encoder (every few rows or row bands) on its own
/// thread: the point where a scheduler may pause the work (docs/PIPELINE.md). It may throw to
/// abort the load or save.
using Checkpoint = std::function<void()>;

struct LoadOptions {
  /// Refuse images whose decoded buffer (width * height * channels) would exceed this.
  std::uint64_t max_bytes = kDefaultMaxImageBytes;
  /// Turn a JPEG upright by its EXIF orientation, as cameras and phones record it (and as
  /// OpenCV and libvips do by default).
  bool apply_exif_orientation = true;
  Checkpoint checkpoint;
  /// Where the decoded samples go: a device backend's page-locked pool, so that the upload
  /// needs no staging copy. Null: ordinary heap memory.
  std::shared_ptr<SampleAllocator> allocator;
  /// Map a new image's pages in one call before decoding into it, rather than one page fault
  /// per 4 KiB as the decoder writes: faster for a load that runs alone (a fifth of a 27 MB
  /// BMP's load), slower where several threads decode at once (a batch leaves it off).
  bool map_pages_first = false;
};

/// Loads BMP, PNG, JPEG, TGA, PNM or TIFF. 16-bit PNG, PNM (maxval over 255) and TIFF give a
/// 16-bit image; palettes are expanded (a palette of grays only gives a gray image);
/// gray+alpha becomes RGBA. Throws
/// InputError("<path>: <cause>") for an unreadable path, a truncated or corrupt file, an unknown
/// format, a zero dimension or a buffer over the limit, which is checked from the header
/// before any pixel buffer is allocated. A file larger than twice the limit plus 64 MiB (room
/// for metadata) is refused unread.
[[nodiscard]] Image load_image(const std::filesystem::path& path, const LoadOptions& options = {});

/// The bytes of an image file, read as load_image reads them before decoding (the same size
/// limit, the same refusals and messages): for a process that ships a file to another that
/// decodes it (parfilter-mpi --files-on root).
[[nodiscard]] std::vector<std::uint8_t> read_image_file(
    const std::filesystem::path& path, std::uint64_t max_bytes = kDefaultMaxImageBytes);

/// The same from memory; `name` is used in error messages.
[[nodiscard]] Image load_image_from_memory(std::span<const std::uint8_t> bytes,
                                           const std::string& name,
                                           const LoadOptions& options = {});

enum class ImageFormat { png, bmp, jpeg, tga, pnm, tiff };

/// Whether `format` holds 16-bit samples (PNG, PNM, TIFF); the others hold 8 bits only.
[[nodiscard]] bool holds_16_bit(ImageFormat format);
/// The format's name in messages ("JPEG").
[[nodiscard]] std::string_view format_name(ImageFormat format);

/// How a TIFF is compressed (--compression): Deflate and LZW with the horizontal predictor.
enum class TiffCompression { none, lzw, deflate, packbits };
[[nodiscard]] std::optional<TiffCompression> parse_tiff_compression(std::string_view text);

/// `image` at `depth`: 8 -> 16 is 257 v, 16 -> 8 is floor((255 v + 32767) / 65535)
/// (--depth); the image itself when it has that depth.
[[nodiscard]] Image convert_depth(const Image& image, Depth depth);
/// convert_depth on `count` samples: from `in` at depth `from` to `out` at depth `to`.
void convert_depth_samples(const std::uint8_t* in, Depth from, std::uint8_t* out, Depth to,
                           std::size_t count);

/// The save format for a path's extension (case-insensitive .png .bmp .jpg .jpeg .tga), or
/// throws InputError("<path>: unknown output extension ...").
[[nodiscard]] ImageFormat format_for_path(const std::filesystem::path& path);

/// PNG compression: 0 stores, 1 (the default) is zlib's run-length or Huffman-only coding,
/// whichever suits each band, 2 to 9 are zlib's levels. Every level picks each row's filter.
inline constexpr int kMinPngLevel = 0;
inline constexpr int kMaxPngLevel = 9;
inline constexpr int kDefaultPngLevel = 1;
/// TIFF Deflate: zlib's level. 1, the default, is the fastest (libtiff's and libvips's own
/// default, 6, writes noisy 16-bit images a third smaller at several times the time).
inline constexpr int kMinTiffLevel = 1;
inline constexpr int kMaxTiffLevel = 9;
inline constexpr int kDefaultTiffLevel = 1;
/// JPEG quality (libjpeg's scale), 4:2:0 chroma as OpenCV writes by default.
inline constexpr int kMinJpegQuality = 1;
inline constexpr int kMaxJpegQuality = 100;
inline constexpr int kDefaultJpegQuality = 95;

/// Runs task(0) .. task(count - 1), in any order and possibly at the same time, and returns
/// when all have returned, rethrowing a failure of one of them.
using ParallelFor =
    std::function<void(std::size_t count, const std::function<void(std::size_t)>& task)>;

/// A ParallelFor over `threads` threads started for each call (the calling thread is one of
/// them); 1 runs every task on the calling thread.
[[nodiscard]] ParallelFor parallel_for_threads(int threads);

struct SaveOptions {
  int png_level = kDefaultPngLevel;
  TiffCompression tiff_compression = TiffCompression::deflate;
  int tiff_level = kDefaultTiffLevel;  ///< TIFF Deflate's zlib level
  int jpeg_quality = kDefaultJpegQuality;
  /// Where a PNG's row bands are compressed; empty: on the calling thread. The bytes written
  /// do not depend on it.
  ParallelFor parallel_for;
  /// fsync the file before it is renamed into place (and its directory after), for outputs
  /// that must survive a power loss. Off by default, as in OpenCV and libvips: the rename
  /// alone already keeps a failed or killed run from leaving a partial file.
  bool sync = false;
  Checkpoint checkpoint;
};

/// Encodes `image` at its depth in `format`: a 16-bit image in a format of 8 bits throws
/// UsageError naming --depth 8.
[[nodiscard]] std::vector<std::uint8_t> encode_image(const Image& image, ImageFormat format,
                                                     const SaveOptions& options,
                                                     const std::string& name);

/// UsageError when `format` cannot hold samples of `depth`.
void check_format_depth(ImageFormat format, Depth depth, const std::string& name);

/// Encodes `image` (a view of every row of its image) in `format`. A gray image is written
/// with one channel in every format (JPEG: with libjpeg-turbo; stb_image_write, the fallback
/// where it is missing, writes every JPEG as YCbCr); JPEG has no alpha, so RGBA is written as
/// RGB. Throws RuntimeError("<name>: ...") when the format cannot hold the image.
[[nodiscard]] std::vector<std::uint8_t> encode_image(const ConstImageView& image,
                                                     ImageFormat format, const SaveOptions& options,
                                                     const std::string& name);

/// Throws InputError when no file could be written at `path`: a missing directory, a parent
/// that is not a directory, a directory at `path` itself, or a directory this process cannot
/// create files in (tried by creating and removing a temporary file). Run it before the work
/// whose result goes there.
void check_output_directory(const std::filesystem::path& path);

/// check_output_directory, and an extension format_for_path knows.
void check_output_path(const std::filesystem::path& path);

/// Writes `bytes` to `path` atomically: into a hidden temporary file ".<name>.tmp.XXXXXX" in the
/// same directory, then renamed into place. On any failure (a full disk, the file-size limit)
/// the temporary is removed and an existing file at `path` is left as it was. Throws
/// RuntimeError naming the path and the cause. A process killed while writing cannot remove
/// its temporary: `path` is still the old file (or absent), never a partial one, and the stale
/// hidden temporary, which parfilter never reads, may be deleted whenever no parfilter is
/// writing into that directory.
void write_file_atomically(const std::filesystem::path& path, std::span<const std::uint8_t> bytes,
                           bool sync = false);

/// Encodes `image` in the format given by the extension of `path` and writes it atomically.
/// Throws InputError for an unknown extension (before any file is touched) and RuntimeError
/// for an encoding or write failure.
void save_image(const Image& image, const std::filesystem::path& path,
                const SaveOptions& options = {});

}  // namespace parfilter
