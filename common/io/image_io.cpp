// load_image and save_image: the container from the magic bytes (loading) or the extension
// (saving), then the codec of that format on the chosen path (codecs.hpp).
#include "parfilter/image_io.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <cstring>
#include <stdexcept>
#include <string_view>
#include <thread>

#include "codecs.hpp"
#include "file_io.hpp"
#include "output_file.hpp"
#include "parallel.hpp"
#include "parfilter/error.hpp"

namespace parfilter {
namespace io {
namespace {

constexpr std::string_view kSupportedFormats = "BMP, PNG, JPEG, TGA, PNM and TIFF";

bool starts_with(std::span<const std::uint8_t> bytes, std::string_view magic) {
  return bytes.size() >= magic.size() &&
         std::equal(magic.begin(), magic.end(), bytes.begin(),
                    [](char m, std::uint8_t b) { return static_cast<std::uint8_t>(m) == b; });
}

}  // namespace

Container detect_container(std::span<const std::uint8_t> bytes, const std::string& name) {
  using namespace std::string_view_literals;
  if (starts_with(bytes, "BM")) return Container::bmp;
  if (starts_with(bytes, "\x89PNG\r\n\x1a\n"sv)) return Container::png;
  if (starts_with(bytes, "\xff\xd8"sv)) return Container::jpeg;
  if (starts_with(bytes, "P5") || starts_with(bytes, "P6")) return Container::pnm;
  // Classic TIFF (42) and BigTIFF (43), little- and big-endian.
  if (starts_with(bytes, "II*\0"sv) || starts_with(bytes, "MM\0*"sv) ||
      starts_with(bytes, "II+\0"sv) || starts_with(bytes, "MM\0+"sv)) {
    if (!have_tiff()) fail(name, "TIFF: this build has no libtiff (Debian: libtiff-dev)");
    return Container::tiff;
  }
  struct Unsupported {
    std::string_view magic;
    std::string_view format;
  };
  constexpr std::array kUnsupported{
      Unsupported{"P1", "ASCII PBM (P1)"}, Unsupported{"P2", "ASCII PGM (P2)"},
      Unsupported{"P3", "ASCII PPM (P3)"}, Unsupported{"P4", "PBM bitmap (P4)"},
      Unsupported{"P7", "PAM (P7)"},       Unsupported{"GIF8", "GIF"},
      Unsupported{"8BPS", "PSD"},          Unsupported{"#?RADIANCE", "HDR"},
      Unsupported{"#?RGBE", "HDR"},        Unsupported{"RIFF", "RIFF (WebP?)"},
  };
  for (const auto& entry : kUnsupported) {
    if (starts_with(bytes, entry.magic)) {
      fail(name, "unsupported format " + std::string(entry.format) + " (parfilter reads " +
                     std::string(kSupportedFormats) + ")");
    }
  }
  return Container::unknown;
}

void fail(const std::string& name, const std::string& cause) {
  throw InputError(name + ": " + cause);
}

void check_image_size(const std::string& name, std::int64_t width, std::int64_t height,
                      int channels, std::uint64_t max_bytes, Depth depth) {
  if (width <= 0 || height <= 0) {
    fail(name, "zero dimension (" + std::to_string(width) + "x" + std::to_string(height) + ")");
  }
  const auto w = static_cast<std::uint64_t>(width);
  const auto h = static_cast<std::uint64_t>(height);
  const auto c = static_cast<std::uint64_t>(channels) * bytes_per_sample(depth);
  std::uint64_t needed = 0;
  const bool overflow =
      __builtin_mul_overflow(w, h, &needed) || __builtin_mul_overflow(needed, c, &needed);
  if (overflow || needed > max_bytes) {
    fail(name, "image of " + std::to_string(w) + "x" + std::to_string(h) + " with " +
                   std::to_string(channels) + (channels == 1 ? " channel" : " channels") +
                   " needs " + (overflow ? std::string("over 2^64") : std::to_string(needed)) +
                   " bytes, over the limit of " + std::to_string(max_bytes) +
                   " (--max-image-bytes)");
  }
  if (w > static_cast<std::uint64_t>(kMaxImageDimension) ||
      h > static_cast<std::uint64_t>(kMaxImageDimension)) {
    fail(name, "dimensions " + std::to_string(w) + "x" + std::to_string(h) +
                   " exceed the maximum of " + std::to_string(kMaxImageDimension));
  }
}

bool have_fast_png_decoder() {
#ifdef PARFILTER_HAVE_SPNG
  return true;
#else
  return false;
#endif
}

bool have_fast_png_encoder() {
#ifdef PARFILTER_HAVE_ZLIB
  return true;
#else
  return false;
#endif
}

bool have_tiff() {
#ifdef PARFILTER_HAVE_TIFF
  return true;
#else
  return false;
#endif
}

bool have_fast_jpeg() {
#ifdef PARFILTER_HAVE_LIBJPEG_TURBO
  return true;
#else
  return false;
#endif
}

namespace {

Image decode_container(std::span<const std::uint8_t> bytes, const std::string& name,
                       const LoadOptions& options, CodecPath path) {
  if (bytes.empty()) fail(name, "empty file");
  check_file_size(name, bytes.size(), options.max_bytes);
  switch (detect_container(bytes, name)) {
    case Container::bmp:
      return decode_bmp_file(bytes, name, options);
    case Container::pnm:
      return decode_pnm_file(bytes, name, options);
    case Container::png:
      if (path == CodecPath::fast && have_fast_png_decoder()) {
        return decode_png_spng(bytes, name, options);
      }
      return decode_with_stb(bytes, name, options, "PNG");
    case Container::jpeg:
      if (path == CodecPath::fast && have_fast_jpeg()) {
        return decode_jpeg_turbo(bytes, name, options);
      }
      return decode_with_stb(bytes, name, options, "JPEG");
    case Container::tiff:
      return decode_tiff(bytes, name, options);
    case Container::unknown:
      break;
  }
  return decode_with_stb(bytes, name, options, "");
}

}  // namespace

Image decoder_image(int width, int height, int channels, std::shared_ptr<SampleAllocator> allocator,
                    bool map_pages_first, Depth depth) {
  Image image = Image::uninitialized(width, height, channels, depth, std::move(allocator));
  if (map_pages_first) detail::prefault_samples(image.bytes(), image.size_bytes());
  return image;
}

Image decode_image(std::span<const std::uint8_t> bytes, const std::string& name,
                   const LoadOptions& options, CodecPath path) {
  Image image = decode_container(bytes, name, options, path);
  if (!options.allocator || image.allocator() == options.allocator) return image;
  // A decoder that allocates on its own (stb, the general BMP decoder, a turned JPEG).
  Image moved = Image::uninitialized(image.width(), image.height(), image.channels(), image.depth(),
                                     options.allocator);
  std::copy_n(image.bytes(), image.size_bytes(), moved.bytes());
  return moved;
}

void encode_image(const ConstImageView& image, ImageFormat format, const SaveOptions& options,
                  const std::string& name, CodecPath path, const ByteSink& sink) {
  if (image.width() <= 0 || image.height() <= 0 || image.first_row() == nullptr) {
    throw RuntimeError(name + ": cannot save an empty image");
  }
  if (image.rows() != RowRange{0, image.height()}) {
    throw RuntimeError(name + ": encode_image needs a view of every row");
  }
  if (options.png_level < kMinPngLevel || options.png_level > kMaxPngLevel) {
    throw UsageError("PNG level must be from 0 to 9, got " + std::to_string(options.png_level));
  }
  if (options.jpeg_quality < kMinJpegQuality || options.jpeg_quality > kMaxJpegQuality) {
    throw UsageError("JPEG quality must be from 1 to 100, got " +
                     std::to_string(options.jpeg_quality));
  }
  switch (format) {
    case ImageFormat::bmp:
      encode_bmp(image, sink);
      return;
    case ImageFormat::png:
      if (path == CodecPath::fast && have_fast_png_encoder()) {
        encode_png_banded(image, options, sink);
        return;
      }
      break;
    case ImageFormat::jpeg:
      if (path == CodecPath::fast && have_fast_jpeg()) {
        sink(encode_jpeg_turbo(image, options, name));
        return;
      }
      break;
    case ImageFormat::tga:
      break;
    case ImageFormat::pnm:
      encode_pnm(Image::copy_of(image), name, sink);
      return;
    case ImageFormat::tiff:
      sink(encode_tiff(Image::copy_of(image), options, name));
      return;
  }
  sink(encode_with_stb(image, format, options, name));
}

/// encode_image at either depth: 8 bits as above, 16 bits by the formats that hold them.
void encode_any_depth(const Image& image, ImageFormat format, const SaveOptions& options,
                      const std::string& name, const ByteSink& sink) {
  if (image.depth() == Depth::u8) {
    if (format == ImageFormat::pnm) return encode_pnm(image, name, sink);
    if (format == ImageFormat::tiff) return sink(encode_tiff(image, options, name));
    return encode_image(image.view(), format, options, name, CodecPath::fast, sink);
  }
  check_format_depth(format, image.depth(), name);
  if (image.empty()) throw RuntimeError(name + ": cannot save an empty image");
  switch (format) {
    case ImageFormat::png:
#ifdef PARFILTER_HAVE_ZLIB
      encode_png_banded(image.view_of<std::uint16_t>(), options, sink);
      return;
#else
      throw RuntimeError(name + ": a 16-bit PNG needs zlib (Debian: zlib1g-dev) in this build");
#endif
    case ImageFormat::pnm:
      encode_pnm(image, name, sink);
      return;
    case ImageFormat::tiff:
      sink(encode_tiff(image, options, name));
      return;
    case ImageFormat::bmp:
    case ImageFormat::jpeg:
    case ImageFormat::tga:
      break;
  }
  throw std::logic_error("encode_any_depth: no 16-bit encoder");
}

std::vector<std::uint8_t> encode_image(const ConstImageView& image, ImageFormat format,
                                       const SaveOptions& options, const std::string& name,
                                       CodecPath path) {
  std::vector<std::uint8_t> bytes;
  encode_image(image, format, options, name, path, [&](std::span<const std::uint8_t> piece) {
    bytes.insert(bytes.end(), piece.begin(), piece.end());
  });
  return bytes;
}

}  // namespace io

Image load_image(const std::filesystem::path& path, const LoadOptions& options) {
  const io::InputFile file(path, options.max_bytes);
  if (auto image = io::load_bmp_rows(file, options)) return std::move(*image);
  return io::decode_image(file.read_all(), path.string(), options, io::CodecPath::fast);
}

std::vector<std::uint8_t> read_image_file(const std::filesystem::path& path,
                                          std::uint64_t max_bytes) {
  // The public type is a plain vector; the copy costs a file's size, small beside a decode.
  const io::FileBytes bytes = io::read_file_bounded(path, max_bytes);
  return {bytes.begin(), bytes.end()};
}

Image load_image_from_memory(std::span<const std::uint8_t> bytes, const std::string& name,
                             const LoadOptions& options) {
  return io::decode_image(bytes, name, options, io::CodecPath::fast);
}

ImageFormat format_for_path(const std::filesystem::path& path) {
  std::string extension = path.extension().string();
  std::transform(extension.begin(), extension.end(), extension.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  if (extension == ".png") return ImageFormat::png;
  if (extension == ".bmp") return ImageFormat::bmp;
  if (extension == ".jpg" || extension == ".jpeg") return ImageFormat::jpeg;
  if (extension == ".tga") return ImageFormat::tga;
  if (extension == ".pgm" || extension == ".ppm" || extension == ".pnm") return ImageFormat::pnm;
  if (extension == ".tif" || extension == ".tiff") {
    if (!io::have_tiff()) {
      throw InputError(path.string() + ": TIFF: this build has no libtiff (Debian: libtiff-dev)");
    }
    return ImageFormat::tiff;
  }
  const std::string shown = extension.empty() ? "none" : "\"" + extension + "\"";
  throw InputError(path.string() + ": unknown output extension " + shown +
                   " (use .png, .tif, .tiff, .bmp, .jpg, .jpeg, .tga, .pgm, .ppm or .pnm)");
}

bool holds_16_bit(ImageFormat format) {
  switch (format) {
    case ImageFormat::png:
    case ImageFormat::pnm:
    case ImageFormat::tiff:
      return true;
    case ImageFormat::bmp:
    case ImageFormat::jpeg:
    case ImageFormat::tga:
      return false;
  }
  return false;
}

std::string_view format_name(ImageFormat format) {
  switch (format) {
    case ImageFormat::png:
      return "PNG";
    case ImageFormat::bmp:
      return "BMP";
    case ImageFormat::jpeg:
      return "JPEG";
    case ImageFormat::tga:
      return "TGA";
    case ImageFormat::pnm:
      return "PNM";
    case ImageFormat::tiff:
      return "TIFF";
  }
  return "?";
}

void check_format_depth(ImageFormat format, Depth depth, const std::string& name) {
  if (depth == Depth::u8 || holds_16_bit(format)) return;
  throw UsageError(name + ": " + std::string(format_name(format)) +
                   " holds 8-bit samples only and the result is 16-bit: add --depth 8, or save "
                   "as .png, .tif or .pgm/.ppm");
}

std::optional<TiffCompression> parse_tiff_compression(std::string_view text) {
  if (text == "none") return TiffCompression::none;
  if (text == "lzw") return TiffCompression::lzw;
  if (text == "deflate") return TiffCompression::deflate;
  if (text == "packbits") return TiffCompression::packbits;
  return std::nullopt;
}

void convert_depth_samples(const std::uint8_t* in, Depth from, std::uint8_t* out, Depth to,
                           std::size_t count) {
  constexpr std::uint32_t kScale16 = 257;  // 255 * 257 = 65535
  constexpr std::uint32_t kTop8 = 255;
  constexpr std::uint32_t kTop16 = 65535;
  if (from == to) {
    std::memcpy(out, in, count * bytes_per_sample(from));
  } else if (to == Depth::u16) {
    auto* wide = reinterpret_cast<std::uint16_t*>(out);
    for (std::size_t i = 0; i < count; ++i) wide[i] = static_cast<std::uint16_t>(in[i] * kScale16);
  } else {
    const auto* wide = reinterpret_cast<const std::uint16_t*>(in);
    for (std::size_t i = 0; i < count; ++i) {
      out[i] = static_cast<std::uint8_t>((kTop8 * wide[i] + kTop16 / 2) / kTop16);
    }
  }
}

Image convert_depth(const Image& image, Depth depth) {
  if (image.empty() || image.depth() == depth) return image;
  Image out = Image::uninitialized(image.width(), image.height(), image.channels(), depth);
  convert_depth_samples(image.bytes(), image.depth(), out.bytes(), depth,
                        image.size_bytes() / bytes_per_sample(image.depth()));
  return out;
}

std::vector<std::uint8_t> encode_image(const Image& image, ImageFormat format,
                                       const SaveOptions& options, const std::string& name) {
  std::vector<std::uint8_t> bytes;
  io::encode_any_depth(image, format, options, name, [&](std::span<const std::uint8_t> piece) {
    bytes.insert(bytes.end(), piece.begin(), piece.end());
  });
  return bytes;
}

std::vector<std::uint8_t> encode_image(const ConstImageView& image, ImageFormat format,
                                       const SaveOptions& options, const std::string& name) {
  return io::encode_image(image, format, options, name, io::CodecPath::fast);
}

void save_image(const Image& image, const std::filesystem::path& path, const SaveOptions& options) {
  const ImageFormat format = format_for_path(path);
  check_format_depth(format, image.depth(), path.string());
  io::OutputFile file(path);
  io::encode_any_depth(image, format, options, path.string(),
                       [&](std::span<const std::uint8_t> piece) { file.write(piece); });
  file.commit(options.sync);
}

ParallelFor parallel_for_threads(int threads) {
  const int count = threads <= 0 ? static_cast<int>(std::thread::hardware_concurrency()) : threads;
  return [count](std::size_t tasks, const std::function<void(std::size_t)>& task) {
    io::run_on_threads(std::max(1, count), tasks, task);
  };
}

}  // namespace parfilter
