// Loading and saving images (through stb_image and stb_image_write), with limits for
// untrusted input and atomic writes.
#pragma once

#include <cstdint>
#include <filesystem>
#include <span>
#include <string>

#include "parfilter/image.hpp"

namespace parfilter {

/// Default cap on a decoded image's buffer: 2^31 bytes.
inline constexpr std::uint64_t kDefaultMaxImageBytes = std::uint64_t{1} << 31;

struct LoadOptions {
  /// Refuse images whose decoded buffer (width * height * channels) would exceed this.
  std::uint64_t max_bytes = kDefaultMaxImageBytes;
};

/// Loads BMP, PNG, JPEG, TGA or PNM. 16-bit samples are reduced to 8; palettes are expanded;
/// gray+alpha becomes RGBA. Throws InputError("<path>: <cause>") for an unreadable path, a
/// truncated or corrupt file, an unknown format, a zero dimension or a buffer over the limit.
/// A file larger than twice the limit plus 64 MiB (room for metadata) is refused unread.
[[nodiscard]] Image load_image(const std::filesystem::path& path, const LoadOptions& options = {});

/// The same from memory; `name` is used in error messages.
[[nodiscard]] Image load_image_from_memory(std::span<const std::uint8_t> bytes,
                                           const std::string& name,
                                           const LoadOptions& options = {});

enum class ImageFormat { png, bmp, jpeg, tga };

/// The save format for a path's extension (case-insensitive .png .bmp .jpg .jpeg .tga), or
/// throws InputError("<path>: unknown output extension ...").
[[nodiscard]] ImageFormat format_for_path(const std::filesystem::path& path);

/// Writes `bytes` to `path` atomically: into a hidden temporary file ".<name>.tmp.XXXXXX" in the
/// same directory, then renamed into place. On any failure the temporary is removed and an
/// existing file at `path` is left as it was. Throws RuntimeError naming the path and the cause.
/// A process killed while writing cannot remove its temporary: `path` is still the old file (or
/// absent), never a partial one, and the stale hidden temporary, which parfilter never reads,
/// may be deleted whenever no parfilter is writing into that directory.
void write_file_atomically(const std::filesystem::path& path, std::span<const std::uint8_t> bytes);

/// Encodes `image` in the format given by the extension of `path` and writes it atomically.
/// JPEG is written at quality 95. Throws InputError for an unknown extension (before any file
/// is touched) and RuntimeError for an encoding or write failure.
void save_image(const Image& image, const std::filesystem::path& path);

}  // namespace parfilter
