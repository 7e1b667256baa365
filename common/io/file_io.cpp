// Reading inputs within the size limit.
#include "file_io.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <span>
#include <system_error>

#include "codecs.hpp"
#include "output_file.hpp"
#include "parfilter/error.hpp"
#include "parfilter/image_io.hpp"

namespace parfilter {
namespace io {
namespace {

constexpr std::uint64_t kMetadataAllowance = std::uint64_t{64} << 20;

}  // namespace

void check_file_size(const std::string& name, std::uint64_t size, std::uint64_t max_image_bytes) {
  std::uint64_t largest = 0;
  if (__builtin_mul_overflow(max_image_bytes, 2, &largest) ||
      __builtin_add_overflow(largest, kMetadataAllowance, &largest)) {
    return;  // no file is that large
  }
  if (size > largest) {
    fail(name, "file of " + std::to_string(size) +
                   " bytes is larger than any image within the limit of " +
                   std::to_string(max_image_bytes) + " bytes could be (--max-image-bytes)");
  }
}

InputFile::InputFile(const std::filesystem::path& path, std::uint64_t max_image_bytes)
    : name_(path.string()) {
  // O_NONBLOCK: opening a FIFO with no writer would block forever; it is refused below.
  fd_ = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd_ < 0) fail(name_, "cannot open: " + system_error_text(errno));
  try {
    struct stat info {};
    if (::fstat(fd_, &info) != 0) fail(name_, "cannot stat: " + system_error_text(errno));
    if (S_ISDIR(info.st_mode)) fail(name_, "is a directory, not an image file");
    if (!S_ISREG(info.st_mode)) fail(name_, "not a regular file");
    size_ = static_cast<std::uint64_t>(info.st_size);
    check_file_size(name_, size_, max_image_bytes);
  } catch (...) {
    ::close(fd_);
    throw;
  }
}

InputFile::~InputFile() { ::close(fd_); }

std::size_t InputFile::read_at(std::uint64_t offset, std::span<std::uint8_t> out) const {
  std::size_t done = 0;
  while (done < out.size()) {
    const ssize_t got =
        ::pread(fd_, out.data() + done, out.size() - done, static_cast<off_t>(offset + done));
    if (got < 0 && errno == EINTR) continue;
    if (got < 0) fail(name_, "read error: " + system_error_text(errno));
    if (got == 0) break;  // the end of the file (it may have shrunk since it was opened)
    done += static_cast<std::size_t>(got);
  }
  return done;
}

FileBytes InputFile::read_all() const {
  FileBytes bytes(static_cast<std::size_t>(size_));
  bytes.resize(read_at(0, bytes));
  return bytes;
}

FileBytes read_file_bounded(const std::filesystem::path& path, std::uint64_t max_image_bytes) {
  return InputFile(path, max_image_bytes).read_all();
}

}  // namespace io
}  // namespace parfilter
