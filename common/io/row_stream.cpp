// open_row_reader and open_row_writer: the container from the magic bytes (reading) or the
// extension (writing), as load_image and save_image pick it, then the format's row codec.
#include "parfilter/row_stream.hpp"

#include <array>
#include <cstring>
#include <limits>
#include <vector>

#include "codecs.hpp"
#include "file_io.hpp"
#include "parfilter/error.hpp"
#include "row_stream_codecs.hpp"

namespace parfilter {
namespace io {

void check_stream_size(const std::string& name, std::int64_t width, std::int64_t height,
                       int channels, Depth depth, std::int64_t held_rows, std::uint64_t max_bytes) {
  if (width <= 0 || height <= 0) {
    fail(name, "zero dimension (" + std::to_string(width) + "x" + std::to_string(height) + ")");
  }
  if (width > kMaxImageDimension || height > kMaxImageDimension) {
    fail(name, "dimensions " + std::to_string(width) + "x" + std::to_string(height) +
                   " exceed the maximum of " + std::to_string(kMaxImageDimension));
  }
  check_image_size(name, width, std::min(held_rows, height), channels, max_bytes, depth);
}

void copy_rows(const std::uint8_t* rows, std::ptrdiff_t stride_bytes, std::uint8_t* dst,
               std::ptrdiff_t dst_stride, std::size_t row_bytes, int count) {
  for (int r = 0; r < count; ++r)
    std::memcpy(dst + r * dst_stride, rows + r * stride_bytes, row_bytes);
}

}  // namespace io

std::unique_ptr<RowReader> open_row_reader(const std::filesystem::path& path,
                                           const LoadOptions& options) {
  // The file's size is not refused here: a streamed image may be larger than memory, and
  // options.max_bytes bounds what the reader holds.
  auto file = std::make_unique<io::InputFile>(path, std::numeric_limits<std::uint64_t>::max());
  const std::string& name = file->name();
  if (file->size() == 0) io::fail(name, "empty file");
  std::array<std::uint8_t, io::kMagicBytes> magic{};
  const std::size_t got = file->read_at(0, magic);
  switch (io::detect_container(std::span(magic.data(), got), name)) {
    case io::Container::tiff:
#ifdef PARFILTER_HAVE_TIFF
      return io::open_tiff_row_reader(std::move(file), options);
#else
      return nullptr;
#endif
    case io::Container::png:
#ifdef PARFILTER_HAVE_SPNG
      return io::open_png_row_reader(std::move(file), options);
#else
      return nullptr;
#endif
    case io::Container::pnm:
      return io::open_pnm_row_reader(std::move(file), options);
    case io::Container::bmp:
      return io::open_bmp_row_reader(std::move(file), options);
    case io::Container::jpeg:
#ifdef PARFILTER_HAVE_LIBJPEG_TURBO
      return io::open_jpeg_row_reader(std::move(file), options);
#else
      return nullptr;
#endif
    case io::Container::unknown:
      break;
  }
  return nullptr;
}

namespace {

class DepthReader final : public RowReader {
 public:
  DepthReader(std::unique_ptr<RowReader> reader, Depth depth)
      : reader_(std::move(reader)), depth_(depth) {}
  [[nodiscard]] StreamShape shape() const override {
    StreamShape shape = reader_->shape();
    shape.depth = depth_;
    return shape;
  }
  void read_rows(std::uint8_t* dst, std::ptrdiff_t stride_bytes, int count) override {
    const StreamShape from = reader_->shape();
    const std::size_t row_bytes = from.row_bytes();
    rows_.resize(row_bytes * static_cast<std::size_t>(count));
    reader_->read_rows(rows_.data(), static_cast<std::ptrdiff_t>(row_bytes), count);
    const auto samples = static_cast<std::size_t>(from.width) * from.channels;
    for (int r = 0; r < count; ++r) {
      convert_depth_samples(rows_.data() + r * row_bytes, from.depth, dst + r * stride_bytes,
                            depth_, samples);
    }
  }
  void rewind() override { reader_->rewind(); }
  [[nodiscard]] bool seek(int row) override { return reader_->seek(row); }
  [[nodiscard]] std::size_t held_bytes() const override {
    return reader_->held_bytes() + rows_.capacity();
  }

 private:
  std::unique_ptr<RowReader> reader_;
  Depth depth_;
  std::vector<std::uint8_t> rows_;  // the rows of one read, at the file's depth
};

}  // namespace

std::unique_ptr<RowReader> read_at_depth(std::unique_ptr<RowReader> reader, Depth depth) {
  if (!reader || reader->shape().depth == depth) return reader;
  return std::make_unique<DepthReader>(std::move(reader), depth);
}

std::unique_ptr<RowWriter> open_row_writer(const std::filesystem::path& path,
                                           const StreamShape& shape, const SaveOptions& options) {
  const ImageFormat format = format_for_path(path);
  const std::string name = path.string();
  check_format_depth(format, shape.depth, name);
  if (shape.width <= 0 || shape.height <= 0) {
    throw RuntimeError(name + ": cannot save an empty image");
  }
  if (shape.channels != 1 && shape.channels != 3 && shape.channels != 4) {
    throw RuntimeError(name + ": cannot save an image of " + std::to_string(shape.channels) +
                       " channels");
  }
  if (options.png_level < kMinPngLevel || options.png_level > kMaxPngLevel) {
    throw UsageError("PNG level must be from 0 to 9, got " + std::to_string(options.png_level));
  }
  switch (format) {
    case ImageFormat::tiff:
#ifdef PARFILTER_HAVE_TIFF
      return io::open_tiff_row_writer(path, shape, options);
#else
      return nullptr;
#endif
    case ImageFormat::png:
#ifdef PARFILTER_HAVE_ZLIB
      return io::open_png_row_writer(path, shape, options);
#else
      return nullptr;
#endif
    case ImageFormat::pnm:
      return io::open_pnm_row_writer(path, shape, options);
    case ImageFormat::bmp:
      return io::open_bmp_row_writer(path, shape, options);
    case ImageFormat::jpeg:
#ifdef PARFILTER_HAVE_LIBJPEG_TURBO
      return io::open_jpeg_row_writer(path, shape, options);
#else
      return nullptr;
#endif
    case ImageFormat::tga:
      break;
  }
  return nullptr;
}

std::optional<PlacedRows> placed_rows(const std::filesystem::path& path, const StreamShape& shape) {
  try {
    switch (format_for_path(path)) {
      case ImageFormat::pnm:
        return io::placed_pnm_rows(shape);
      case ImageFormat::bmp:
        return io::placed_bmp_rows(shape);
      case ImageFormat::png:
      case ImageFormat::jpeg:
      case ImageFormat::tga:
      case ImageFormat::tiff:
        break;  // compressed, or not written in rows here
    }
    return std::nullopt;
  } catch (const InputError&) {  // an unknown extension
    return std::nullopt;
  }
}

}  // namespace parfilter
