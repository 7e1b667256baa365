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

/// A file descriptor closed on scope exit.
struct FileDescriptor {
  explicit FileDescriptor(int descriptor) : fd(descriptor) {}
  FileDescriptor(const FileDescriptor&) = delete;
  FileDescriptor& operator=(const FileDescriptor&) = delete;
  ~FileDescriptor() {
    if (fd >= 0) ::close(fd);
  }
  int fd;
};

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

FileBytes read_file_bounded(const std::filesystem::path& path, std::uint64_t max_image_bytes) {
  const std::string name = path.string();
  // O_NONBLOCK: opening a FIFO with no writer would block forever; it is refused below.
  const FileDescriptor file{::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK)};
  if (file.fd < 0) fail(name, "cannot open: " + system_error_text(errno));
  struct stat info {};
  if (::fstat(file.fd, &info) != 0) fail(name, "cannot stat: " + system_error_text(errno));
  if (S_ISDIR(info.st_mode)) fail(name, "is a directory, not an image file");
  if (!S_ISREG(info.st_mode)) fail(name, "not a regular file");
  check_file_size(name, static_cast<std::uint64_t>(info.st_size), max_image_bytes);
  FileBytes bytes(static_cast<std::size_t>(info.st_size));
  std::size_t done = 0;
  while (done < bytes.size()) {
    const ssize_t got = ::read(file.fd, bytes.data() + done, bytes.size() - done);
    if (got < 0 && errno == EINTR) continue;
    if (got < 0) fail(name, "read error: " + system_error_text(errno));
    if (got == 0) break;  // the file shrank while we read it
    done += static_cast<std::size_t>(got);
  }
  bytes.resize(done);
  return bytes;
}

}  // namespace io
}  // namespace parfilter
