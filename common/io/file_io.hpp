// Internal: reading an input file within the size limit, for load_image.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "parfilter/image.hpp"

namespace parfilter::io {

/// Refuses a file larger than any image within `max_image_bytes` could be: 16-bit samples
/// double the bytes (PNM, a stored PNG), and headers, palettes and metadata (ICC profiles,
/// text) add some. Such a file could only exhaust memory.
void check_file_size(const std::string& name, std::uint64_t size, std::uint64_t max_image_bytes);

/// A file's bytes, left unwritten until read into (no zero-fill of a buffer about to be
/// overwritten).
using FileBytes = std::vector<std::uint8_t, DefaultInitAllocator<std::uint8_t>>;

/// The whole file, after check_file_size on its size; InputError for an unreadable path, a
/// directory or a special file.
[[nodiscard]] FileBytes read_file_bounded(const std::filesystem::path& path,
                                          std::uint64_t max_image_bytes);

}  // namespace parfilter::io
