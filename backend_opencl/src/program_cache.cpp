#include "program_cache.hpp"

#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <iterator>
#include <sstream>
#include <vector>

#include "cl_device.hpp"
#include "parfilter/backend.hpp"
#include "parfilter/error.hpp"

namespace parfilter::opencl {
namespace {

namespace fs = std::filesystem;

// The entry file: magic, then the key and the binary each preceded by its 64-bit size, then a
// checksum of both. Bump the magic's version when the layout changes.
constexpr std::string_view kMagic = "parfilter-opencl-binary 1\n";
constexpr std::uint64_t kFnvOffset = 14695981039346656037ULL;
constexpr std::uint64_t kFnvPrime = 1099511628211ULL;
constexpr int kHexDigitsPerByte = 2;
constexpr int kBitsPerByte = 8;

std::string hex(std::uint64_t value) {
  std::ostringstream out;
  out << std::hex;
  out.width(static_cast<std::streamsize>(sizeof(value)) * kHexDigitsPerByte);
  out.fill('0');
  out << value;
  return out.str();
}

void put_u64(std::string& out, std::uint64_t value) {
  for (std::size_t i = 0; i < sizeof(value); ++i) {
    out.push_back(static_cast<char>((value >> (kBitsPerByte * i)) & 0xFFU));
  }
}

/// Reads the bytes of a file written by store(); each read fails on a short file.
class EntryReader {
 public:
  explicit EntryReader(std::string_view bytes) : bytes_(bytes) {}
  bool u64(std::uint64_t& value) {
    value = 0;
    if (bytes_.size() - pos_ < sizeof(value)) return false;
    for (std::size_t i = 0; i < sizeof(value); ++i) {
      value |= static_cast<std::uint64_t>(static_cast<unsigned char>(bytes_[pos_ + i]))
               << (kBitsPerByte * i);
    }
    pos_ += sizeof(value);
    return true;
  }
  /// A 64-bit size, then that many bytes.
  bool field(std::string_view& out) {
    std::uint64_t size = 0;
    if (!u64(size) || bytes_.size() - pos_ < size) return false;
    out = bytes_.substr(pos_, size);
    pos_ += size;
    return true;
  }
  [[nodiscard]] bool at_end() const { return pos_ == bytes_.size(); }

 private:
  std::string_view bytes_;
  std::size_t pos_ = 0;
};

std::optional<std::string> read_file(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return std::nullopt;
  std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (in.bad()) return std::nullopt;
  return bytes;
}

std::string build_log(cl_program program, cl_device_id device) {
  std::size_t size = 0;
  if (clGetProgramBuildInfo(program, device, CL_PROGRAM_BUILD_LOG, 0, nullptr, &size) !=
      CL_SUCCESS) {
    return "(no build log)";
  }
  std::string log(size, '\0');
  if (clGetProgramBuildInfo(program, device, CL_PROGRAM_BUILD_LOG, size, log.data(), nullptr) !=
      CL_SUCCESS) {
    return "(no build log)";
  }
  while (!log.empty() && log.back() == '\0') log.pop_back();
  return log;
}

}  // namespace

std::optional<fs::path> default_cache_dir() {
  if (const char* xdg = std::getenv("XDG_CACHE_HOME"); xdg != nullptr && *xdg != '\0') {
    return fs::path(xdg) / "parfilter";
  }
  if (const char* home = std::getenv("HOME"); home != nullptr && *home != '\0') {
    return fs::path(home) / ".cache" / "parfilter";
  }
  return std::nullopt;
}

std::uint64_t fnv1a(std::string_view bytes, std::uint64_t seed) {
  std::uint64_t hash = kFnvOffset ^ seed;
  for (const char c : bytes) {
    hash ^= static_cast<unsigned char>(c);
    hash *= kFnvPrime;
  }
  return hash;
}

ProgramCache::ProgramCache(Context context, cl_device_id device, std::optional<fs::path> cache_dir)
    : context_(std::move(context)), device_(device), dir_(std::move(cache_dir)) {
  cl_platform_id platform = nullptr;
  check(clGetDeviceInfo(device, CL_DEVICE_PLATFORM, sizeof(platform), &platform, nullptr),
        "clGetDeviceInfo(CL_DEVICE_PLATFORM)");
  device_identity_ = "platform: " + platform_string(platform, CL_PLATFORM_NAME) + " " +
                     platform_string(platform, CL_PLATFORM_VERSION) +
                     "\ndevice: " + device_string(device, CL_DEVICE_NAME) + " (" +
                     device_string(device, CL_DEVICE_VERSION) +
                     ")\ndriver: " + device_string(device, CL_DRIVER_VERSION) + "\n";
}

std::string ProgramCache::key_text(std::string_view source, const std::string& options) const {
  return device_identity_ + "options: " + options + "\nsource: " + hex(fnv1a(source)) + " " +
         std::to_string(source.size()) + " bytes\n";
}

std::optional<fs::path> ProgramCache::entry_path(std::string_view name, std::string_view source,
                                                 const std::string& options) const {
  if (!dir_) return std::nullopt;
  return *dir_ / "opencl" /
         (std::string(name) + "-" + hex(fnv1a(key_text(source, options))) + ".bin");
}

const Program& ProgramCache::get(std::string_view name, std::string_view source,
                                 const std::string& options, double* build_ms) {
  const std::string key = key_text(source, options);
  if (const auto it = programs_.find(key); it != programs_.end()) {
    ++stats_.memory_hits;
    return it->second;
  }
  const auto start = std::chrono::steady_clock::now();
  const auto path = entry_path(name, source, options);
  Program program;
  if (path) program = load(*path, key, options);
  if (program) {
    ++stats_.loaded;
  } else {
    program = compile(name, source, options);
    ++stats_.compiled;
    if (path) store(*path, key, program);
  }
  if (build_ms != nullptr) *build_ms += elapsed_ms(start);
  return programs_.emplace(key, std::move(program)).first->second;
}

Program ProgramCache::load(const fs::path& path, const std::string& key,
                           const std::string& options) {
  std::error_code ec;
  if (!fs::exists(path, ec)) return {};
  const auto reject = [this] {
    ++stats_.rejected;
    return Program();
  };
  const auto bytes = read_file(path);
  if (!bytes || bytes->compare(0, kMagic.size(), kMagic) != 0) return reject();
  EntryReader reader(std::string_view(*bytes).substr(kMagic.size()));
  std::string_view stored_key;
  std::string_view binary;
  std::uint64_t checksum = 0;
  if (!reader.field(stored_key) || !reader.field(binary) || !reader.u64(checksum) ||
      !reader.at_end() || stored_key != key || binary.empty() ||
      checksum != fnv1a(binary, fnv1a(stored_key))) {
    return reject();
  }
  const auto* data = reinterpret_cast<const unsigned char*>(binary.data());
  const std::size_t size = binary.size();
  cl_int binary_status = CL_SUCCESS;
  cl_int status = CL_SUCCESS;
  Program program(clCreateProgramWithBinary(context_.get(), 1, &device_, &size, &data,
                                            &binary_status, &status));
  if (status != CL_SUCCESS || binary_status != CL_SUCCESS || !program) return reject();
  if (clBuildProgram(program.get(), 1, &device_, options.c_str(), nullptr, nullptr) != CL_SUCCESS) {
    return reject();
  }
  return program;
}

bool ProgramCache::builds(std::string_view name, std::string_view source,
                          const std::string& options) {
  const std::string key = key_text(source, options);
  if (programs_.contains(key)) return true;
  const auto path = entry_path(name, source, options);
  Program program;
  if (path) program = load(*path, key, options);
  if (!program) {
    program = compile(name, source, options, true);
    if (!program) return false;
    if (path) store(*path, key, program);
  }
  programs_.emplace(key, std::move(program));
  return true;
}

Program ProgramCache::compile(std::string_view name, std::string_view source,
                              const std::string& options, bool quiet) {
  const char* text = source.data();
  const std::size_t size = source.size();
  Program program =
      create_checked<cl_program>(call_name("clCreateProgramWithSource", name), [&](cl_int* error) {
        return clCreateProgramWithSource(context_.get(), 1, &text, &size, error);
      });
  const cl_int status =
      clBuildProgram(program.get(), 1, &device_, options.c_str(), nullptr, nullptr);
  if (status != CL_SUCCESS && quiet) return {};
  if (status != CL_SUCCESS) {
    std::cerr << "OpenCL build log of " << name << " (options: " << options << "):\n"
              << build_log(program.get(), device_) << '\n';
    throw RuntimeError(call_name("clBuildProgram", name) + ": " + error_name(status) +
                       " (build log above)");
  }
  return program;
}

void ProgramCache::store(const fs::path& path, const std::string& key, const Program& program) {
  std::size_t size = 0;
  if (clGetProgramInfo(program.get(), CL_PROGRAM_BINARY_SIZES, sizeof(size), &size, nullptr) !=
          CL_SUCCESS ||
      size == 0) {
    return;  // the driver offers no binary: nothing to cache
  }
  std::string binary(size, '\0');
  auto* data = reinterpret_cast<unsigned char*>(binary.data());
  if (clGetProgramInfo(program.get(), CL_PROGRAM_BINARIES, sizeof(data), &data, nullptr) !=
      CL_SUCCESS) {
    return;
  }
  std::string bytes(kMagic);
  put_u64(bytes, key.size());
  bytes += key;
  put_u64(bytes, binary.size());
  bytes += binary;
  put_u64(bytes, fnv1a(binary, fnv1a(key)));

  // A failure to write only costs the next process a compile.
  static std::atomic<unsigned> counter{0};
  std::error_code ec;
  fs::create_directories(path.parent_path(), ec);
  const fs::path temp = path.string() + ".tmp." + std::to_string(getpid()) + "." +
                        std::to_string(counter.fetch_add(1));
  {
    std::ofstream out(temp, std::ios::binary | std::ios::trunc);
    out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    if (!out.flush()) {
      out.close();
      fs::remove(temp, ec);
      return;
    }
  }
  fs::rename(temp, path, ec);
  if (ec) fs::remove(temp, ec);
}

}  // namespace parfilter::opencl
