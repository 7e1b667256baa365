// Reading inputs within the size limit; writing outputs atomically (a hidden temporary renamed
// into place) after checking, before any work, that the output's directory can take them.
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
#include "parfilter/error.hpp"
#include "parfilter/image_io.hpp"

namespace parfilter {
namespace io {
namespace {

constexpr std::uint64_t kMetadataAllowance = std::uint64_t{64} << 20;
constexpr std::size_t kMaxTempNameStem = 200;  // keeps ".<stem>.tmp.XXXXXX" under NAME_MAX
constexpr mode_t kNewFileMode = 0666;          // before the umask, as open(2) would create it

std::string system_error_text(int error) {
  if (error == EFBIG) return "file too large (over the file-size limit, see ulimit -f)";
  return std::strerror(error);
}

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

std::vector<std::uint8_t> read_file_bounded(const std::filesystem::path& path,
                                            std::uint64_t max_image_bytes) {
  const std::string name = path.string();
  // O_NONBLOCK: opening a FIFO with no writer would block forever; it is refused below.
  const FileDescriptor file{::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK)};
  if (file.fd < 0) fail(name, "cannot open: " + system_error_text(errno));
  struct stat info {};
  if (::fstat(file.fd, &info) != 0) fail(name, "cannot stat: " + system_error_text(errno));
  if (S_ISDIR(info.st_mode)) fail(name, "is a directory, not an image file");
  if (!S_ISREG(info.st_mode)) fail(name, "not a regular file");
  check_file_size(name, static_cast<std::uint64_t>(info.st_size), max_image_bytes);
  std::vector<std::uint8_t> bytes(static_cast<std::size_t>(info.st_size));
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

namespace {

mode_t new_file_mode() {
  // umask can only be read by setting it; do it once.
  static const mode_t mode = [] {
    const mode_t mask = ::umask(0);
    ::umask(mask);
    return io::kNewFileMode & ~mask;
  }();
  return mode;
}

// TEST-ONLY fault injection, inert unless the variable is set: the process SIGKILLs itself once
// half of the temporary file is written, as a crash or `kill -9` during a save would
// (tests/test_data_safety.cpp shows that the old file survives).
bool test_kill_during_save() {
  static const bool requested = std::getenv("PARFILTER_TEST_KILL_DURING_SAVE") != nullptr;
  return requested;
}

// The temporary file: closed and removed on scope exit unless committed.
class TemporaryFile {
 public:
  TemporaryFile(std::string path, int fd) : path_(std::move(path)), fd_(fd) {}
  TemporaryFile(const TemporaryFile&) = delete;
  TemporaryFile& operator=(const TemporaryFile&) = delete;
  ~TemporaryFile() {
    if (fd_ >= 0) ::close(fd_);
    if (!committed_) ::unlink(path_.c_str());
  }
  [[nodiscard]] int fd() const { return fd_; }
  [[nodiscard]] const std::string& path() const { return path_; }
  int close() {
    const int result = ::close(fd_);
    fd_ = -1;
    return result;
  }
  void commit() { committed_ = true; }

 private:
  std::string path_;
  int fd_;
  bool committed_ = false;
};

std::filesystem::path directory_of(const std::filesystem::path& path) {
  return path.has_parent_path() ? path.parent_path() : std::filesystem::path(".");
}

/// Creates the hidden temporary file next to `path`; RuntimeError when it cannot.
TemporaryFile create_temporary(const std::filesystem::path& path) {
  const std::string name = path.string();
  const std::string file_name = path.filename().string();
  if (file_name.empty() || file_name == "." || file_name == "..") {
    throw RuntimeError(name + ": not a file name");
  }
  // Appended piecewise: GCC 12 warns falsely (-Wrestrict) on "." + std::string.
  std::string temporary_name(1, '.');
  temporary_name.append(file_name, 0, io::kMaxTempNameStem).append(".tmp.XXXXXX");
  const std::filesystem::path directory = directory_of(path);
  std::string pattern = (directory / temporary_name).string();
  const int fd = ::mkstemp(pattern.data());
  if (fd < 0) {
    throw RuntimeError(name + ": cannot create a file in " + directory.string() + ": " +
                       io::system_error_text(errno));
  }
  return {pattern, fd};
}

/// `dir` or its nearest ancestor that exists; empty when none does. InputError when one cannot
/// be examined (a directory on the way without search permission).
std::filesystem::path nearest_existing(const std::filesystem::path& dir, const std::string& name) {
  namespace fs = std::filesystem;
  for (fs::path at = dir;; at = at.parent_path()) {
    std::error_code ec;
    const fs::file_status status = fs::status(at, ec);
    if (fs::exists(status)) return at;
    // ENOENT and ENOTDIR give not_found; any other failure leaves the type unknown.
    if (status.type() != fs::file_type::not_found) {
      throw InputError(name + ": cannot access '" + at.string() + "': " + ec.message());
    }
    if (!at.has_parent_path() || at.parent_path() == at) return {};
  }
}

}  // namespace

void check_output_path(const std::filesystem::path& path) {
  (void)format_for_path(path);
  check_output_directory(path);
}

void check_output_directory(const std::filesystem::path& path) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (fs::is_directory(path, ec)) throw InputError(path.string() + ": is a directory");
  const fs::path dir = directory_of(path);
  // The nearest ancestor that exists tells a regular file in the way from a missing directory.
  const fs::path existing = nearest_existing(dir, path.string());
  if (!existing.empty() && !fs::is_directory(existing, ec)) {
    throw InputError(path.string() + ": '" + existing.string() + "' is not a directory");
  }
  if (existing != dir) {
    throw InputError(path.string() + ": directory '" + dir.string() + "' does not exist");
  }
  // access() says yes to root even where creating a file fails (a read-only mount, a
  // directory such as /proc): a temporary file created and removed again tells the truth.
  try {
    (void)create_temporary(path);
  } catch (const RuntimeError& e) {
    throw InputError(e.what());
  }
}

void write_file_atomically(const std::filesystem::path& path, std::span<const std::uint8_t> bytes,
                           bool sync) {
  const std::string name = path.string();
  TemporaryFile temporary = create_temporary(path);
  const int fd = temporary.fd();
  auto failure = [&](const std::string& what) {
    return RuntimeError(name + ": " + what + ": " + io::system_error_text(errno));
  };
  std::size_t done = 0;
  auto write_until = [&](std::size_t end) {
    while (done < end) {
      const ssize_t wrote = ::write(fd, bytes.data() + done, end - done);
      if (wrote < 0 && errno == EINTR) continue;
      if (wrote < 0) throw failure("write error");
      done += static_cast<std::size_t>(wrote);
    }
  };
  if (test_kill_during_save()) {
    write_until(bytes.size() / 2);
    ::raise(SIGKILL);
  }
  write_until(bytes.size());
  if (::fchmod(fd, new_file_mode()) != 0) throw failure("cannot set permissions");
  if (sync && ::fsync(fd) != 0) throw failure("fsync failed");
  if (temporary.close() != 0) throw failure("close failed");
  if (::rename(temporary.path().c_str(), path.c_str()) != 0) {
    throw failure("cannot rename into place");
  }
  temporary.commit();
  if (sync) {
    // Makes the rename durable too; a failure here leaves a complete file, so not an error.
    const io::FileDescriptor directory{
        ::open(directory_of(path).c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC)};
    if (directory.fd >= 0) ::fsync(directory.fd);
  }
}

}  // namespace parfilter
