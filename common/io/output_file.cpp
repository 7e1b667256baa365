#include "output_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <system_error>

#include "parfilter/error.hpp"
#include "parfilter/image_io.hpp"

namespace parfilter {
namespace io {
namespace {

constexpr std::size_t kMaxTempNameStem = 200;  // keeps ".<stem>.tmp.XXXXXX" under NAME_MAX
constexpr mode_t kNewFileMode = 0666;          // before the umask, as open(2) would create it

mode_t new_file_mode() {
  // umask can only be read by setting it; do it once.
  static const mode_t mode = [] {
    const mode_t mask = ::umask(0);
    ::umask(mask);
    return kNewFileMode & ~mask;
  }();
  return mode;
}

// TEST-ONLY fault injection, inert unless the variable is set: the process SIGKILLs itself in
// the middle of the first write into the temporary file, as a crash or `kill -9` during a save
// would (tests/cli/test_data_safety.cpp shows that the old file survives).
bool test_kill_during_save() {
  static const bool requested = std::getenv("PARFILTER_TEST_KILL_DURING_SAVE") != nullptr;
  return requested;
}

std::filesystem::path directory_of(const std::filesystem::path& path) {
  return path.has_parent_path() ? path.parent_path() : std::filesystem::path(".");
}

/// The nearest of `dir` and its ancestors that exists, or empty.
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

std::string system_error_text(int error) {
  if (error == EFBIG) return "file too large (over the file-size limit, see ulimit -f)";
  return std::strerror(error);
}

OutputFile::OutputFile(const std::filesystem::path& path) : path_(path) {
  const std::string name = path.string();
  const std::string file_name = path.filename().string();
  if (file_name.empty() || file_name == "." || file_name == "..") {
    throw RuntimeError(name + ": not a file name");
  }
  // Appended piecewise: GCC 12 warns falsely (-Wrestrict) on "." + std::string.
  std::string temporary_name(1, '.');
  temporary_name.append(file_name, 0, kMaxTempNameStem).append(".tmp.XXXXXX");
  const std::filesystem::path directory = directory_of(path);
  temporary_ = (directory / temporary_name).string();
  fd_ = ::mkstemp(temporary_.data());
  if (fd_ < 0) {
    throw RuntimeError(name + ": cannot create a file in " + directory.string() + ": " +
                       system_error_text(errno));
  }
}

OutputFile::~OutputFile() {
  if (fd_ >= 0) ::close(fd_);
  if (!committed_) ::unlink(temporary_.c_str());
}

void OutputFile::write(std::span<const std::uint8_t> bytes) {
  std::size_t done = 0;
  std::size_t end = bytes.size();
  const bool kill = test_kill_during_save() && !written_ && !bytes.empty();
  if (kill) end = bytes.size() / 2;
  written_ = written_ || !bytes.empty();
  while (done < end) {
    const ssize_t wrote = ::write(fd_, bytes.data() + done, end - done);
    if (wrote < 0 && errno == EINTR) continue;
    if (wrote < 0) {
      throw RuntimeError(path_.string() + ": write error: " + system_error_text(errno));
    }
    done += static_cast<std::size_t>(wrote);
  }
  if (kill) ::raise(SIGKILL);
}

void OutputFile::write_at(std::uint64_t offset, std::span<const std::uint8_t> bytes) {
  written_ = written_ || !bytes.empty();
  std::size_t done = 0;
  while (done < bytes.size()) {
    const ssize_t wrote =
        ::pwrite(fd_, bytes.data() + done, bytes.size() - done, static_cast<off_t>(offset + done));
    if (wrote < 0 && errno == EINTR) continue;
    if (wrote < 0) {
      throw RuntimeError(path_.string() + ": write error: " + system_error_text(errno));
    }
    done += static_cast<std::size_t>(wrote);
  }
}

void OutputFile::commit(bool sync) {
  const auto failure = [&](const std::string& what) {
    return RuntimeError(path_.string() + ": " + what + ": " + system_error_text(errno));
  };
  if (::fchmod(fd_, new_file_mode()) != 0) throw failure("cannot set permissions");
  if (sync && ::fsync(fd_) != 0) throw failure("fsync failed");
  const int result = ::close(fd_);
  fd_ = -1;
  if (result != 0) throw failure("close failed");
  if (!sync) {
    // ext4 (auto_da_alloc) starts writing out a file renamed over an existing one at once;
    // sixteen 28 MB BMPs replacing earlier outputs took 450-500 ms instead of 115. Unlinked
    // first, the path holds the old file, none, then the complete new one: never a partial
    // one. Survival of a power loss is --fsync's (the rename then replaces atomically). An
    // unlink that fails (no such file, a directory) leaves the answer to rename.
    (void)::unlink(path_.c_str());
  }
  if (::rename(temporary_.c_str(), path_.c_str()) != 0) throw failure("cannot rename into place");
  committed_ = true;
  if (sync) {
    // Makes the rename durable too; a failure here leaves a complete file, so not an error.
    const int directory = ::open(directory_of(path_).c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (directory >= 0) {
      ::fsync(directory);
      ::close(directory);
    }
  }
}

}  // namespace io

void check_output_path(const std::filesystem::path& path) {
  (void)format_for_path(path);
  check_output_directory(path);
}

void check_output_directory(const std::filesystem::path& path) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (fs::is_directory(path, ec)) throw InputError(path.string() + ": is a directory");
  const fs::path dir = io::directory_of(path);
  // The nearest ancestor that exists tells a regular file in the way from a missing directory.
  const fs::path existing = io::nearest_existing(dir, path.string());
  if (!existing.empty() && !fs::is_directory(existing, ec)) {
    throw InputError(path.string() + ": '" + existing.string() + "' is not a directory");
  }
  if (existing != dir) {
    throw InputError(path.string() + ": directory '" + dir.string() + "' does not exist");
  }
  // access() says yes to root even where creating a file fails (a read-only mount, a
  // directory such as /proc): a temporary file created and removed again tells the truth.
  try {
    const io::OutputFile probe(path);
  } catch (const RuntimeError& e) {
    throw InputError(e.what());
  }
}

void write_file_atomically(const std::filesystem::path& path, std::span<const std::uint8_t> bytes,
                           bool sync) {
  io::OutputFile file(path);
  file.write(bytes);
  file.commit(sync);
}

}  // namespace parfilter
