// Internal: reading an input file within the size limit, for load_image.
#pragma once

#include <cstdint>
#include <filesystem>
#include <span>
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

/// An input file, open for reading: checked as read_file_bounded checks it, so that a loader
/// that can read its pixels where they go (BMP rows) need not first copy the whole file.
class InputFile {
 public:
  /// InputError for an unreadable path, a directory, a special file or a file too large.
  InputFile(const std::filesystem::path& path, std::uint64_t max_image_bytes);
  InputFile(const InputFile&) = delete;
  InputFile& operator=(const InputFile&) = delete;
  ~InputFile();

  [[nodiscard]] const std::string& name() const { return name_; }
  [[nodiscard]] std::uint64_t size() const { return size_; }
  /// Fills `out` from `offset` on; the count read, less than out.size() only at the end of the
  /// file (or where it shrank since it was opened). InputError on a read error.
  [[nodiscard]] std::size_t read_at(std::uint64_t offset, std::span<std::uint8_t> out) const;
  /// Every byte of the file.
  [[nodiscard]] FileBytes read_all() const;

 private:
  std::string name_;
  int fd_ = -1;
  std::uint64_t size_ = 0;
};

/// The whole file, after check_file_size on its size; InputError for an unreadable path, a
/// directory or a special file.
[[nodiscard]] FileBytes read_file_bounded(const std::filesystem::path& path,
                                          std::uint64_t max_image_bytes);

}  // namespace parfilter::io
