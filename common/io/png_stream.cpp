// PNG rows streamed (row_stream.hpp). The reader is libspng's progressive decoder over the
// file, a row at a time, with png_spng.cpp's checks (the whole-file chunk walk aside: libspng
// reports a truncated or corrupt file as it reaches it). The writer feeds png_encode.cpp's
// BandEncoder each band as soon as its rows are in, with the history rows before it, and
// writes its IDAT chunk: the bytes are encode_png_banded's.
#include <cstring>
#include <exception>
#include <stdexcept>
#include <vector>

#include "codecs.hpp"
#include "output_file.hpp"
#include "parfilter/error.hpp"
#include "png_bands.hpp"
#include "png_spng.hpp"
#include "row_stream_codecs.hpp"

namespace parfilter::io {
namespace {

using Bytes = std::vector<std::uint8_t, DefaultInitAllocator<std::uint8_t>>;

#ifdef PARFILTER_HAVE_SPNG

/// What libspng holds while decoding, besides its chunk buffers: the scanline, the previous
/// one and a converted row, and the inflate window.
constexpr std::uint64_t kPngDecodeRows = 3;
constexpr std::size_t kInflateWindowBytes = std::size_t{32} << 10;

/// The file libspng reads, in order, from its start.
struct PngSource {
  const InputFile* file = nullptr;
  std::uint64_t at = 0;
  std::exception_ptr io_failure;  ///< a read error, rethrown once libspng returns
};

int read_source(spng_ctx* /*ctx*/, void* user, void* dst, std::size_t length) {
  auto& source = *static_cast<PngSource*>(user);
  try {
    const std::size_t got =
        source.file->read_at(source.at, std::span(static_cast<std::uint8_t*>(dst), length));
    source.at += got;
    return got == length ? 0 : SPNG_IO_EOF;
  } catch (...) {
    source.io_failure = std::current_exception();
    return SPNG_IO_ERROR;
  }
}

class PngRowReader final : public RowReader {
 public:
  PngRowReader(std::unique_ptr<InputFile> file, const LoadOptions& options)
      : file_(std::move(file)), options_(options) {
    options_.allocator.reset();  // only the limits and the checkpoint are used
    start();
  }

  [[nodiscard]] bool interlaced() const { return ihdr_.interlace_method != SPNG_INTERLACE_NONE; }
  [[nodiscard]] StreamShape shape() const override { return shape_; }

  void read_rows(std::uint8_t* dst, std::ptrdiff_t stride_bytes, int count) override {
    if (count < 0 || next_row_ + count > shape_.height) {
      throw std::logic_error("PngRowReader: read past the last row");
    }
    const std::size_t row_bytes = shape_.row_bytes();
    for (int r = 0; r < count; ++r, ++next_row_) {
      const int error = spng_decode_row(ctx_.get(), dst + r * stride_bytes, row_bytes);
      // The last row's decode says so (SPNG_EOI), having decoded it.
      const bool last = next_row_ + 1 == shape_.height;
      if (error != 0 && !(last && error == SPNG_EOI)) {
        if (source_.io_failure) std::rethrow_exception(source_.io_failure);
        fail_spng(file_->name(), "corrupt or truncated PNG", error);
      }
      checkpoint_every(options_.checkpoint, next_row_);
    }
  }

  void rewind() override {
    if (next_row_ != 0) start();
  }

  [[nodiscard]] std::size_t held_bytes() const override {
    return static_cast<std::size_t>(kPngDecodeRows) * shape_.row_bytes() + kInflateWindowBytes;
  }

 private:
  void start() {
    const std::string& name = file_->name();
    ctx_ = new_png_context();
    source_ = PngSource{file_.get(), 0, {}};
    if (const int error = spng_set_png_stream(ctx_.get(), read_source, &source_)) {
      fail_spng(name, "cannot read PNG", error);
    }
    try {
      target_ = read_png_header(ctx_.get(), name, options_, ihdr_, kPngDecodeRows);
    } catch (const InputError&) {
      if (source_.io_failure) std::rethrow_exception(source_.io_failure);
      throw;
    }
    shape_ = {static_cast<int>(ihdr_.width), static_cast<int>(ihdr_.height), target_.channels,
              target_.depth};
    if (interlaced()) return;  // not read here: the factory gives null
    start_png_decode(ctx_.get(), target_, name);
    next_row_ = 0;
  }

  std::unique_ptr<InputFile> file_;
  LoadOptions options_;
  PngSource source_;
  Context ctx_;
  spng_ihdr ihdr_{};
  PngTarget target_;
  StreamShape shape_;
  int next_row_ = 0;
};

#endif  // PARFILTER_HAVE_SPNG

#ifdef PARFILTER_HAVE_ZLIB

class PngRowWriter final : public RowWriter {
 public:
  PngRowWriter(const std::filesystem::path& path, const StreamShape& shape,
               const SaveOptions& options)
      : file_(path),
        shape_(shape),
        options_(options),
        layout_(png_band_layout(shape, options.png_level)),
        keep_rows_(layout_.history_rows + 1) {
    file_.write(png_head(shape));
    buffer_.resize(shape.row_bytes() * static_cast<std::size_t>(keep_rows_ + layout_.band_rows));
  }

  void write_rows(const std::uint8_t* src, std::ptrdiff_t stride_bytes, int count) override {
    if (count < 0 || next_row_ + count > shape_.height) {
      throw std::logic_error("PngRowWriter: write past the last row");
    }
    const std::size_t row_bytes = shape_.row_bytes();
    for (int r = 0; r < count; ++r) {
      std::memcpy(buffer_.data() + static_cast<std::size_t>(buffered_) * row_bytes,
                  src + r * stride_bytes, row_bytes);
      ++buffered_;
      ++next_row_;
      const int band_end = std::min(shape_.height, (band_ + 1) * layout_.band_rows);
      if (next_row_ == band_end) encode_band();
    }
  }

  void commit() override {
    if (next_row_ != shape_.height) {
      throw std::logic_error("PngRowWriter: commit before the last row");
    }
    file_.write(png_tail(adler_));
    file_.commit(options_.sync);
  }

 private:
  void encode_band() {
    const RowRange rows{next_row_ - buffered_, next_row_};
    const auto stride = static_cast<std::ptrdiff_t>(shape_.width) * shape_.channels;
    const PngBand band =
        shape_.depth == Depth::u8
            ? encode_png_band(ConstImageView(buffer_.data(), shape_.width, shape_.height,
                                             shape_.channels, stride, rows),
                              band_, options_)
            : encode_png_band(
                  ConstImageView16(reinterpret_cast<const std::uint16_t*>(buffer_.data()),
                                   shape_.width, shape_.height, shape_.channels, stride, rows),
                  band_, options_);
    file_.write(band.chunk);
    adler_ = png_add_band(adler_, band);
    ++band_;
    // The last rows stay: the next band's history and row above.
    const int kept = std::min(keep_rows_, buffered_);
    const std::size_t row_bytes = shape_.row_bytes();
    std::memmove(buffer_.data(),
                 buffer_.data() + static_cast<std::size_t>(buffered_ - kept) * row_bytes,
                 static_cast<std::size_t>(kept) * row_bytes);
    buffered_ = kept;
  }

  OutputFile file_;
  StreamShape shape_;
  SaveOptions options_;
  PngBandLayout layout_;
  int keep_rows_;
  Bytes buffer_;  ///< rows [next_row_ - buffered_, next_row_)
  int buffered_ = 0;
  int next_row_ = 0;
  int band_ = 0;  ///< the band being filled
  std::uint32_t adler_ = kPngAdlerStart;
};

#endif  // PARFILTER_HAVE_ZLIB

}  // namespace

#ifdef PARFILTER_HAVE_SPNG
std::unique_ptr<RowReader> open_png_row_reader(std::unique_ptr<InputFile> file,
                                               const LoadOptions& options) {
  auto reader = std::make_unique<PngRowReader>(std::move(file), options);
  if (reader->interlaced()) return nullptr;
  return reader;
}
#endif

#ifdef PARFILTER_HAVE_ZLIB
std::unique_ptr<RowWriter> open_png_row_writer(const std::filesystem::path& path,
                                               const StreamShape& shape,
                                               const SaveOptions& options) {
  return std::make_unique<PngRowWriter>(path, shape, options);
}
#endif

}  // namespace parfilter::io
