#include "support/codec_paths.hpp"

#include "file_io.hpp"
#include "parfilter/error.hpp"

namespace parfilter::test {

std::string codec_path_name(io::CodecPath path) {
  return path == io::CodecPath::fast ? "fast" : "stb";
}

bool fast_png_decoder() { return io::have_fast_png_decoder(); }
bool fast_png_encoder() { return io::have_fast_png_encoder(); }
bool fast_jpeg() { return io::have_fast_jpeg(); }

bool uses_fast_library(io::CodecPath path, ImageFormat format) {
  if (path != io::CodecPath::fast) return false;
  if (format == ImageFormat::png) return fast_png_decoder() && fast_png_encoder();
  if (format == ImageFormat::jpeg) return fast_jpeg();
  return false;
}

Image load_with(io::CodecPath path, const std::filesystem::path& file, const LoadOptions& options) {
  const auto bytes = io::read_file_bounded(file, options.max_bytes);
  return io::decode_image(bytes, file.string(), options, path);
}

void save_with(io::CodecPath path, const Image& image, const std::filesystem::path& file,
               const SaveOptions& options) {
  const ImageFormat format = format_for_path(file);
  const auto bytes = io::encode_image(image.view(), format, options, file.string(), path);
  write_file_atomically(file, bytes, options.sync);
}

Image decode_with(io::CodecPath path, const files::Bytes& bytes, const std::string& name,
                  const LoadOptions& options) {
  return io::decode_image(bytes, name, options, path);
}

files::Bytes encode_with(io::CodecPath path, const Image& image, ImageFormat format,
                         const SaveOptions& options) {
  return io::encode_image(image.view(), format, options, "image", path);
}

std::string decode_error(io::CodecPath path, const files::Bytes& bytes, const std::string& name,
                         const LoadOptions& options) {
  try {
    (void)io::decode_image(bytes, name, options, path);
    return "";
  } catch (const InputError& e) {
    return e.what();
  }
}

}  // namespace parfilter::test
