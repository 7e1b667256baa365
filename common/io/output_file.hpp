// Internal: an output written atomically. The bytes go to a hidden temporary file
// ".<name>.tmp.XXXXXX" in the target's directory, renamed into place by commit(); on any
// failure, or destruction without commit, the temporary is removed and an existing file at the
// target is left as it was. Encoders write through it in pieces (a BMP's rows, a PNG's bands),
// so no whole encoded file need be held in memory.
#pragma once

#include <cstdint>
#include <filesystem>
#include <span>
#include <string>

namespace parfilter::io {

/// Names an errno for a one-line message (EFBIG: the file-size limit).
[[nodiscard]] std::string system_error_text(int error);

class OutputFile {
 public:
  /// Creates the temporary; RuntimeError naming the path when it cannot.
  explicit OutputFile(const std::filesystem::path& path);
  OutputFile(const OutputFile&) = delete;
  OutputFile& operator=(const OutputFile&) = delete;
  ~OutputFile();

  /// Appends `bytes`; RuntimeError naming the path and the cause (a full disk, ulimit -f).
  void write(std::span<const std::uint8_t> bytes);
  /// Writes `bytes` at `offset` (a format whose rows or directory go out of order: BMP's
  /// bottom-up rows, TIFF's offsets); the same errors as write.
  void write_at(std::uint64_t offset, std::span<const std::uint8_t> bytes);
  /// Gives the file its mode, makes it durable when `sync`, and renames it into place.
  void commit(bool sync);
  /// The temporary's path, for writers in other processes (MPI ranks, each its own rows).
  [[nodiscard]] const std::string& temporary() const { return temporary_; }

 private:
  std::filesystem::path path_;
  std::string temporary_;
  int fd_ = -1;
  bool committed_ = false;
  bool written_ = false;
};

}  // namespace parfilter::io
