// Loading: the file is read into memory, its container identified by magic bytes, then for
// each format: dimensions from the header -> zero-dimension and size-limit checks -> checks
// that the data is complete (stb_image reads zeros past the end) -> decode. stb_image decodes
// PNG, JPEG, TGA and most BMPs; bmp_fallback decodes the BMPs stb rejects; PNM is decoded in
// format_checks.hpp. Gray BMPs and JPEGs load as RGB (those formats store gray that way).
// Saving: encode into memory with stb_image_write, then write_file_atomically.
#include "parfilter/image_io.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <cerrno>
#include <climits>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <optional>
#include <string_view>
#include <vector>

#include "bmp_fallback.hpp"
#include "format_checks.hpp"
#include "jpeg_checks.hpp"
#include "parfilter/error.hpp"

#define STBI_NO_STDIO
#define STBI_WRITE_NO_STDIO
#include <stb_image.h>
#include <stb_image_write.h>

namespace parfilter {
namespace {

constexpr int kJpegQuality = 95;
constexpr int kMaxJpegOrTgaDimension = 65535;  // 16-bit size fields
// stb_image_write computes sizes in int: keep encoded buffers well inside that range.
constexpr std::size_t kMaxEncodableBytes = INT_MAX / 2;
constexpr std::size_t kMaxTempNameStem = 200;  // keeps ".<stem>.tmp.XXXXXX" under NAME_MAX
constexpr mode_t kNewFileMode = 0666;          // before the umask, as open(2) would create it
constexpr std::string_view kSupportedFormats = "BMP, PNG, JPEG, TGA and PNM";

[[noreturn]] void fail(const std::string& name, const std::string& cause) {
  throw InputError(name + ": " + cause);
}

std::string system_error_text(int error) { return std::strerror(error); }

enum class Container { bmp, png, jpeg, pnm, unknown };

bool starts_with(std::span<const std::uint8_t> bytes, std::string_view magic) {
  return bytes.size() >= magic.size() &&
         std::equal(magic.begin(), magic.end(), bytes.begin(),
                    [](char m, std::uint8_t b) { return static_cast<std::uint8_t>(m) == b; });
}

// Identifies the container by its magic bytes; TGA has none and is left to stb's probe.
Container detect_container(std::span<const std::uint8_t> bytes, const std::string& name) {
  using namespace std::string_view_literals;
  if (starts_with(bytes, "BM")) return Container::bmp;
  if (starts_with(bytes, "\x89PNG\r\n\x1a\n"sv)) return Container::png;
  if (starts_with(bytes, "\xff\xd8"sv)) return Container::jpeg;
  if (starts_with(bytes, "P5") || starts_with(bytes, "P6")) return Container::pnm;
  struct Unsupported {
    std::string_view magic;
    std::string_view format;
  };
  constexpr std::array kUnsupported{
      Unsupported{"P1", "ASCII PBM (P1)"}, Unsupported{"P2", "ASCII PGM (P2)"},
      Unsupported{"P3", "ASCII PPM (P3)"}, Unsupported{"P4", "PBM bitmap (P4)"},
      Unsupported{"P7", "PAM (P7)"},       Unsupported{"GIF8", "GIF"},
      Unsupported{"8BPS", "PSD"},          Unsupported{"#?RADIANCE", "HDR"},
      Unsupported{"#?RGBE", "HDR"},        Unsupported{"II*\0"sv, "TIFF"},
      Unsupported{"MM\0*"sv, "TIFF"},      Unsupported{"RIFF", "RIFF (WebP?)"},
  };
  for (const auto& entry : kUnsupported) {
    if (starts_with(bytes, entry.magic)) {
      fail(name, "unsupported format " + std::string(entry.format) + " (parfilter reads " +
                     std::string(kSupportedFormats) + ")");
    }
  }
  return Container::unknown;
}

std::string container_name(Container container) {
  switch (container) {
    case Container::bmp:
      return "BMP";
    case Container::png:
      return "PNG";
    case Container::jpeg:
      return "JPEG";
    case Container::pnm:
      return "PNM";
    case Container::unknown:
      break;
  }
  return "TGA";
}

// Refuses a zero dimension and a decoded buffer over the limit, before anything is allocated.
void check_size(const std::string& name, std::int64_t width, std::int64_t height, int channels,
                std::uint64_t max_bytes) {
  if (width <= 0 || height <= 0) {
    fail(name, "zero dimension (" + std::to_string(width) + "x" + std::to_string(height) + ")");
  }
  const auto w = static_cast<std::uint64_t>(width);
  const auto h = static_cast<std::uint64_t>(height);
  const auto c = static_cast<std::uint64_t>(channels);
  std::uint64_t needed = 0;
  const bool overflow =
      __builtin_mul_overflow(w, h, &needed) || __builtin_mul_overflow(needed, c, &needed);
  if (overflow || needed > max_bytes) {
    fail(name, "image of " + std::to_string(w) + "x" + std::to_string(h) + " with " +
                   std::to_string(channels) + " channels needs " +
                   (overflow ? std::string("over 2^64") : std::to_string(needed)) +
                   " bytes, over the limit of " + std::to_string(max_bytes) +
                   " (--max-image-bytes)");
  }
  if (w > static_cast<std::uint64_t>(detail::kMaxImageDimension) ||
      h > static_cast<std::uint64_t>(detail::kMaxImageDimension)) {
    fail(name, "dimensions " + std::to_string(w) + "x" + std::to_string(h) +
                   " exceed the maximum of " + std::to_string(detail::kMaxImageDimension));
  }
}

using StbPixels = std::unique_ptr<stbi_uc, decltype(&stbi_image_free)>;

Image copy_pixels(const stbi_uc* pixels, int width, int height, int channels) {
  Image image(width, height, channels);
  std::copy_n(pixels, image.size_bytes(), image.data());
  return image;
}

std::string stb_reason() {
  const char* reason = stbi_failure_reason();
  return reason != nullptr ? reason : "unknown error";
}

Image load_bmp(std::span<const std::uint8_t> bytes, const std::string& name,
               const LoadOptions& options) {
  auto parsed = detail::parse_bmp(bytes);
  if (const auto* cause = std::get_if<std::string>(&parsed)) fail(name, *cause);
  const auto& layout = std::get<detail::BmpLayout>(parsed);
  const int channels = layout.channels();
  check_size(name, layout.width, layout.height, channels, options.max_bytes);
  if (auto cause = detail::check_bmp_pixel_data(bytes, layout)) fail(name, *cause);
  // stb_image decodes the common cases. It rejects RLE and palettes in 16/24/32-bit files, and
  // leaves palette entries past a short palette uninitialized: those go to the fallback.
  const bool short_palette =
      !layout.palette.empty() && layout.palette.size() < (std::size_t{1} << layout.bits_per_pixel);
  if (!short_palette && bytes.size() <= static_cast<std::size_t>(INT_MAX)) {
    int width = 0;
    int height = 0;
    int file_channels = 0;
    StbPixels pixels(stbi_load_from_memory(bytes.data(), static_cast<int>(bytes.size()), &width,
                                           &height, &file_channels, channels),
                     &stbi_image_free);
    if (pixels && width == layout.width && height == layout.height) {
      return copy_pixels(pixels.get(), width, height, channels);
    }
  }
  auto decoded = detail::decode_bmp(bytes, layout);
  if (const auto* cause = std::get_if<std::string>(&decoded)) fail(name, *cause);
  return std::move(std::get<Image>(decoded));
}

// PNM is decoded here: stb_image 2.27 reads 16-bit samples in the wrong byte order and ignores
// maxval. The header and the data's length are checked first.
Image load_pnm(std::span<const std::uint8_t> bytes, const std::string& name,
               const LoadOptions& options) {
  detail::PnmHeader header;
  if (auto cause = detail::parse_pnm_header(bytes, header)) fail(name, *cause);
  check_size(name, static_cast<std::int64_t>(header.width),
             static_cast<std::int64_t>(header.height), header.channels, options.max_bytes);
  const std::uint64_t needed =
      header.width * header.height * header.channels * header.bytes_per_sample;
  if (header.data_offset + needed > bytes.size()) {
    fail(name, "truncated file: the PNM pixel data needs " + std::to_string(needed) +
                   " bytes, the file has " + std::to_string(bytes.size() - header.data_offset));
  }
  return detail::decode_pnm(bytes, header);
}

// Decodes with stb_image into `channels` channels once the size has been checked.
Image decode_with_stb(std::span<const std::uint8_t> bytes, const std::string& name,
                      Container container, int width, int height, int channels) {
  int decoded_width = 0;
  int decoded_height = 0;
  int file_channels = 0;
  StbPixels pixels(stbi_load_from_memory(bytes.data(), static_cast<int>(bytes.size()),
                                         &decoded_width, &decoded_height, &file_channels, channels),
                   &stbi_image_free);
  if (!pixels) {
    fail(name, "corrupt or truncated " + container_name(container) +
                   " (stb_image: " + stb_reason() + ")");
  }
  if (decoded_width != width || decoded_height != height) {
    fail(name, "inconsistent " + container_name(container) + " dimensions");
  }
  return copy_pixels(pixels.get(), width, height, channels);
}

// PNG: dimensions and channels from IHDR (stb's probe refuses PNGs over 1 GiB before the limit
// could be reported), then every chunk must be present.
Image load_png(std::span<const std::uint8_t> bytes, const std::string& name,
               const LoadOptions& options) {
  detail::PngInfo info;
  if (auto cause = detail::parse_png(bytes, info)) fail(name, *cause);
  check_size(name, static_cast<std::int64_t>(info.width), static_cast<std::int64_t>(info.height),
             info.channels, options.max_bytes);
  if (info.incomplete) fail(name, *info.incomplete);
  return decode_with_stb(bytes, name, Container::png, static_cast<int>(info.width),
                         static_cast<int>(info.height), info.channels);
}

// JPEG and TGA: dimensions from stb's probe.
Image load_probed_by_stb(std::span<const std::uint8_t> bytes, const std::string& name,
                         Container container, const LoadOptions& options) {
  // stb_image 2.27 overruns oversized JPEG Huffman tables even in its header probe
  // (jpeg_checks.hpp lists what else it mishandles).
  detail::JpegCheck jpeg;
  if (container == Container::jpeg) jpeg = detail::check_jpeg_segments(bytes);
  if (jpeg.corrupt) fail(name, *jpeg.corrupt);
  int width = 0;
  int height = 0;
  int file_channels = 0;
  if (stbi_info_from_memory(bytes.data(), static_cast<int>(bytes.size()), &width, &height,
                            &file_channels) == 0) {
    if (container == Container::unknown) {
      fail(name, "not a recognized image file (wrong magic; parfilter reads " +
                     std::string(kSupportedFormats) + ")");
    }
    fail(name,
         "corrupt " + container_name(container) + " header (stb_image: " + stb_reason() + ")");
  }
  // Gray stays gray; gray+alpha becomes RGBA, as Image has no 2-channel form.
  const int channels = file_channels == 2 ? 4 : file_channels;
  if (channels != 1 && channels != 3 && channels != 4) {
    fail(name, "unsupported channel count " + std::to_string(file_channels));
  }
  check_size(name, width, height, channels, options.max_bytes);
  // stb reads zeros past the end of a truncated JPEG or TGA.
  const auto incomplete =
      container == Container::jpeg ? jpeg.undecodable : detail::check_tga_data(bytes);
  if (incomplete) fail(name, *incomplete);
  return decode_with_stb(bytes, name, container, width, height, channels);
}

// The largest file an image within the limit can come in: 16-bit samples double the bytes
// (PNM, a stored PNG), and headers, palettes and metadata (ICC profiles, text) add some. A
// larger file is refused before it is read: it could only exhaust memory.
constexpr std::uint64_t kMetadataAllowance = std::uint64_t{64} << 20;

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

std::vector<std::uint8_t> read_whole_file(const std::filesystem::path& path,
                                          std::uint64_t max_image_bytes) {
  const std::string name = path.string();
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) fail(name, "cannot open: " + system_error_text(errno));
  struct Closer {
    int fd;
    ~Closer() { ::close(fd); }
  } closer{fd};
  struct stat info {};
  if (::fstat(fd, &info) != 0) fail(name, "cannot stat: " + system_error_text(errno));
  if (S_ISDIR(info.st_mode)) fail(name, "is a directory, not an image file");
  if (!S_ISREG(info.st_mode)) fail(name, "not a regular file");
  check_file_size(name, static_cast<std::uint64_t>(info.st_size), max_image_bytes);
  std::vector<std::uint8_t> bytes(static_cast<std::size_t>(info.st_size));
  std::size_t done = 0;
  while (done < bytes.size()) {
    const ssize_t got = ::read(fd, bytes.data() + done, bytes.size() - done);
    if (got < 0 && errno == EINTR) continue;
    if (got < 0) fail(name, "read error: " + system_error_text(errno));
    if (got == 0) break;  // the file shrank while we read it
    done += static_cast<std::size_t>(got);
  }
  bytes.resize(done);
  return bytes;
}

}  // namespace

Image load_image(const std::filesystem::path& path, const LoadOptions& options) {
  const auto bytes = read_whole_file(path, options.max_bytes);
  return load_image_from_memory(bytes, path.string(), options);
}

Image load_image_from_memory(std::span<const std::uint8_t> bytes, const std::string& name,
                             const LoadOptions& options) {
  if (bytes.empty()) fail(name, "empty file");
  check_file_size(name, bytes.size(), options.max_bytes);
  const Container container = detect_container(bytes, name);
  switch (container) {
    case Container::bmp:
      return load_bmp(bytes, name, options);
    case Container::pnm:
      return load_pnm(bytes, name, options);
    default:
      break;
  }
  if (bytes.size() > static_cast<std::size_t>(INT_MAX)) {  // stb takes an int length
    fail(name, "file of " + std::to_string(bytes.size()) + " bytes is too large to decode");
  }
  if (container == Container::png) return load_png(bytes, name, options);
  return load_probed_by_stb(bytes, name, container, options);
}

// ---- saving ----

ImageFormat format_for_path(const std::filesystem::path& path) {
  std::string extension = path.extension().string();
  std::transform(extension.begin(), extension.end(), extension.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  if (extension == ".png") return ImageFormat::png;
  if (extension == ".bmp") return ImageFormat::bmp;
  if (extension == ".jpg" || extension == ".jpeg") return ImageFormat::jpeg;
  if (extension == ".tga") return ImageFormat::tga;
  const std::string shown = extension.empty() ? "none" : "\"" + extension + "\"";
  throw InputError(path.string() + ": unknown output extension " + shown +
                   " (use .png, .bmp, .jpg, .jpeg or .tga)");
}

namespace {

void append_to_buffer(void* context, void* data, int size) {
  auto* buffer = static_cast<std::vector<std::uint8_t>*>(context);
  const auto* bytes = static_cast<const std::uint8_t*>(data);
  buffer->insert(buffer->end(), bytes, bytes + size);
}

std::vector<std::uint8_t> encode(const Image& image, ImageFormat format, const std::string& name) {
  if (image.empty()) throw RuntimeError(name + ": cannot save an empty image");
  if (image.size_bytes() > kMaxEncodableBytes) {
    throw RuntimeError(name + ": image of " + std::to_string(image.size_bytes()) +
                       " bytes is too large for the encoder");
  }
  const bool sixteen_bit_sizes = format == ImageFormat::jpeg || format == ImageFormat::tga;
  if (sixteen_bit_sizes &&
      (image.width() > kMaxJpegOrTgaDimension || image.height() > kMaxJpegOrTgaDimension)) {
    throw RuntimeError(name + ": " + std::to_string(image.width()) + "x" +
                       std::to_string(image.height()) + " is too large for this format (max " +
                       std::to_string(kMaxJpegOrTgaDimension) + " per side)");
  }
  std::vector<std::uint8_t> buffer;
  const int w = image.width();
  const int h = image.height();
  const int c = image.channels();
  const void* pixels = image.data();
  int ok = 0;
  switch (format) {
    case ImageFormat::png:
      ok = stbi_write_png_to_func(append_to_buffer, &buffer, w, h, c, pixels,
                                  static_cast<int>(image.stride()));
      break;
    case ImageFormat::bmp:
      ok = stbi_write_bmp_to_func(append_to_buffer, &buffer, w, h, c, pixels);
      break;
    case ImageFormat::tga:
      ok = stbi_write_tga_to_func(append_to_buffer, &buffer, w, h, c, pixels);
      break;
    case ImageFormat::jpeg:
      ok = stbi_write_jpg_to_func(append_to_buffer, &buffer, w, h, c, pixels, kJpegQuality);
      break;
  }
  if (ok == 0 || buffer.empty()) throw RuntimeError(name + ": encoding failed");
  return buffer;
}

mode_t new_file_mode() {
  // umask can only be read by setting it; do it once.
  static const mode_t mode = [] {
    const mode_t mask = ::umask(0);
    ::umask(mask);
    return kNewFileMode & ~mask;
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

}  // namespace

void write_file_atomically(const std::filesystem::path& path, std::span<const std::uint8_t> bytes) {
  const std::string name = path.string();
  const std::string file_name = path.filename().string();
  if (file_name.empty() || file_name == "." || file_name == "..") {
    throw RuntimeError(name + ": not a file name");
  }
  const std::filesystem::path directory = path.has_parent_path() ? path.parent_path() : ".";
  // Appended piecewise: GCC 12 warns falsely (-Wrestrict) on "." + std::string.
  std::string temporary_name(1, '.');
  temporary_name.append(file_name, 0, kMaxTempNameStem).append(".tmp.XXXXXX");
  std::string pattern = (directory / temporary_name).string();
  const int fd = ::mkstemp(pattern.data());
  if (fd < 0) {
    throw RuntimeError(name + ": cannot create a temporary file in " + directory.string() + ": " +
                       system_error_text(errno));
  }
  TemporaryFile temporary(pattern, fd);
  auto failure = [&](const std::string& what) {
    return RuntimeError(name + ": " + what + ": " + system_error_text(errno));
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
  if (::fsync(fd) != 0) throw failure("fsync failed");
  if (temporary.close() != 0) throw failure("close failed");
  if (::rename(temporary.path().c_str(), path.c_str()) != 0)
    throw failure("cannot rename into place");
  temporary.commit();
  // Make the rename durable too; a failure here leaves a complete file, so it is not an error.
  const int directory_fd = ::open(directory.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (directory_fd >= 0) {
    ::fsync(directory_fd);
    ::close(directory_fd);
  }
}

void save_image(const Image& image, const std::filesystem::path& path) {
  const ImageFormat format = format_for_path(path);
  const auto bytes = encode(image, format, path.string());
  write_file_atomically(path, bytes);
}

}  // namespace parfilter
