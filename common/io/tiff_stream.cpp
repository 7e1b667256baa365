// TIFF rows streamed through libtiff (row_stream.hpp): the reader decodes one band at a time
// (a strip, all of its planes for a planar file, or a row of tiles) and copies rows out; the
// writer sets encode_tiff's tags and writes each strip when its rows are complete, through
// client procedures over the files, so that the bytes are encode_tiff's.
#ifdef PARFILTER_HAVE_TIFF

#include <exception>
#include <iostream>
#include <stdexcept>
#include <vector>

#include "codecs.hpp"
#include "output_file.hpp"
#include "parfilter/error.hpp"
#include "row_stream_codecs.hpp"
#include "tiff_layout.hpp"
#include "tiff_strips.hpp"

namespace parfilter::io {
namespace {

using Bytes = std::vector<std::uint8_t, DefaultInitAllocator<std::uint8_t>>;

/// What libtiff reads (an input file) or writes (an output file) through.
struct StreamFile {
  const InputFile* input = nullptr;
  OutputFile* output = nullptr;
  std::uint64_t at = 0;
  std::uint64_t size = 0;  ///< writing: the end of the furthest byte written
  /// Once the file is complete, TIFFClose's writes go nowhere, as encode_tiff's do.
  bool discard = false;
  std::string error;              ///< libtiff's first error message
  std::exception_ptr io_failure;  ///< a read or write error, rethrown once libtiff returns
};

StreamFile& file_of(thandle_t handle) { return *static_cast<StreamFile*>(handle); }

tmsize_t read_proc(thandle_t handle, void* buffer, tmsize_t size) {
  StreamFile& file = file_of(handle);
  if (file.input == nullptr || size < 0) return 0;  // writing: as encode_tiff's memory file
  try {
    const std::size_t got = file.input->read_at(
        file.at, std::span(static_cast<std::uint8_t*>(buffer), static_cast<std::size_t>(size)));
    file.at += got;
    return static_cast<tmsize_t>(got);
  } catch (...) {
    file.io_failure = std::current_exception();
    return -1;
  }
}

tmsize_t write_proc(thandle_t handle, void* buffer, tmsize_t size) {
  StreamFile& file = file_of(handle);
  if (file.output == nullptr || size < 0) return -1;
  if (file.discard) return size;
  try {
    const auto n = static_cast<std::size_t>(size);
    file.output->write_at(file.at, std::span(static_cast<const std::uint8_t*>(buffer), n));
    file.at += n;
    file.size = std::max(file.size, file.at);
    return size;
  } catch (...) {
    file.io_failure = std::current_exception();
    return -1;
  }
}

toff_t seek_proc(thandle_t handle, toff_t offset, int whence) {
  StreamFile& file = file_of(handle);
  const std::uint64_t base = whence == SEEK_CUR ? file.at : whence == SEEK_END ? file.size : 0;
  file.at = base + offset;
  return file.at;
}

int close_proc(thandle_t /*handle*/) { return 0; }
toff_t size_proc(thandle_t handle) { return file_of(handle).size; }

constexpr TiffProcs kProcs{read_proc, write_proc, seek_proc, close_proc, size_proc};

/// A read or write error's own exception, else InputError with libtiff's message.
[[noreturn]] void fail_stream(const std::string& name, const std::string& what,
                              const StreamFile& file) {
  if (file.io_failure) std::rethrow_exception(file.io_failure);
  fail_tiff(name, what, file.error);
}

class TiffRowReader final : public RowReader {
 public:
  TiffRowReader(std::unique_ptr<InputFile> file, const LoadOptions& options)
      : file_(std::move(file)), checkpoint_(options.checkpoint) {
    const std::string& name = file_->name();
    stream_.input = file_.get();
    stream_.size = file_->size();
    tif_ = open_tiff_client(name, "rm", &stream_, kProcs, stream_.error, options.max_bytes);
    if (!tif_) fail_stream(name, "corrupt or truncated TIFF", stream_);
    layout_ = read_layout(tif_.get(), name, stream_.error);
    shape_ = {static_cast<int>(layout_.width), static_cast<int>(layout_.height), layout_.channels,
              layout_.depth};
    check_stream_size(name, layout_.width, layout_.height, layout_.channels, layout_.depth, 1,
                      options.max_bytes);
    const std::uint64_t image_bytes = shape_.image_bytes();
    blocks_ = read_blocks(tif_.get(), layout_, name, stream_.error,
                          std::min(options.max_bytes, image_bytes + kTiffBlockMarginBytes));
    // The band is what is held in the image's layout: a strip's rows, or a row of tiles'.
    check_stream_size(name, layout_.width, layout_.height, layout_.channels, layout_.depth,
                      blocks_.height, options.max_bytes);
    band_rows_ = static_cast<int>(std::min(blocks_.height, layout_.height));
    band_.resize(shape_.row_bytes() * static_cast<std::size_t>(band_rows_));
    block_.resize(static_cast<std::size_t>(blocks_.bytes) + sizeof(std::uint16_t));
    if (TIFFLastDirectory(tif_.get()) == 0) {
      std::cerr << name << ": a multi-page TIFF; parfilter reads its first page\n";
    }
  }

  [[nodiscard]] StreamShape shape() const override { return shape_; }

  void read_rows(std::uint8_t* dst, std::ptrdiff_t stride_bytes, int count) override {
    if (count < 0 || next_row_ + count > shape_.height) {
      throw std::logic_error("TiffRowReader: read past the last row");
    }
    const std::size_t row_bytes = shape_.row_bytes();
    while (count > 0) {
      if (band_first_ < 0 || next_row_ < band_first_ || next_row_ >= band_first_ + band_rows_) {
        decode_band(next_row_ / band_rows_ * band_rows_);
      }
      const int n = std::min(count, band_first_ + band_rows_ - next_row_);
      copy_rows(band_.data() + static_cast<std::size_t>(next_row_ - band_first_) * row_bytes,
                static_cast<std::ptrdiff_t>(row_bytes), dst, stride_bytes, row_bytes, n);
      dst += n * stride_bytes;
      next_row_ += n;
      count -= n;
    }
  }

  void rewind() override { next_row_ = 0; }
  [[nodiscard]] bool seek(int row) override {  // a strip or row of tiles is decoded on its own
    if (row < 0 || row > shape_.height) throw std::logic_error("TiffRowReader: seek past the end");
    next_row_ = row;
    return true;
  }

  [[nodiscard]] std::size_t held_bytes() const override { return band_.size() + block_.size(); }

 private:
  void decode_band(int first) {
    if (shape_.depth == Depth::u8) {
      decode_band_of<std::uint8_t>(first);
    } else {
      decode_band_of<std::uint16_t>(first);
    }
    band_first_ = first;
  }

  template <typename Sample>
  void decode_band_of(int first) {
    band_first_ = -1;  // until the band is complete
    const int end = std::min(shape_.height, first + band_rows_);
    const BasicImageView<Sample> out(
        reinterpret_cast<Sample*>(band_.data()), shape_.width, shape_.height, shape_.channels,
        static_cast<std::ptrdiff_t>(shape_.width) * shape_.channels, RowRange{first, end});
    const auto y = static_cast<std::uint32_t>(first);
    for (int plane = 0; plane < blocks_.planes; ++plane) {
      for (std::uint32_t x = 0; x < layout_.width; x += blocks_.width) {
        if (!read_block(tif_.get(), blocks_, x, y, plane, block_.data())) {
          fail_stream(file_->name(), "corrupt or truncated TIFF", stream_);
        }
        place(layout_, reinterpret_cast<const Sample*>(block_.data()), blocks_.width, x, y,
              blocks_.height, plane, out);
        checkpoint_every(checkpoint_, blocks_done_++);
      }
    }
  }

  std::unique_ptr<InputFile> file_;
  Checkpoint checkpoint_;
  StreamFile stream_;
  Tiff tif_;
  Layout layout_;
  Blocks blocks_;
  StreamShape shape_;
  int band_rows_ = 1;
  Bytes band_;
  Bytes block_;
  int band_first_ = -1;
  int next_row_ = 0;
  int blocks_done_ = 0;
};

class TiffRowWriter final : public RowWriter {
 public:
  TiffRowWriter(const std::filesystem::path& path, const StreamShape& shape,
                const SaveOptions& options)
      : file_(path), name_(path.string()), shape_(shape), options_(options) {
    stream_.output = &file_;
    tif_ = open_tiff_client(name_, is_big_tiff(shape) ? "w8" : "w", &stream_, kProcs, stream_.error,
                            0);
    if (!tif_) fail_write("cannot start a TIFF");
    set_tiff_tags(tif_.get(), shape, options.tiff_compression, options.tiff_level);
#ifdef PARFILTER_HAVE_ZLIB
    deflate_ = options.tiff_compression == TiffCompression::deflate;
#endif
    if (deflate_) {
      rows_per_strip_ = tiff_rows_per_strip(shape);
      TIFFSetField(tif_.get(), TIFFTAG_ROWSPERSTRIP, static_cast<std::uint32_t>(rows_per_strip_));
      strip_.reserve(shape.row_bytes() * static_cast<std::size_t>(rows_per_strip_));
    } else {
      TIFFSetField(tif_.get(), TIFFTAG_ROWSPERSTRIP, TIFFDefaultStripSize(tif_.get(), 0));
      strip_.resize(shape.row_bytes());
    }
  }

  ~TiffRowWriter() override {
    stream_.discard = true;  // an abandoned file: nothing more goes to the temporary
    tif_.reset();
  }

  void write_rows(const std::uint8_t* src, std::ptrdiff_t stride_bytes, int count) override {
    if (count < 0 || next_row_ + count > shape_.height) {
      throw std::logic_error("TiffRowWriter: write past the last row");
    }
    const std::size_t row_bytes = shape_.row_bytes();
    if (deflate_) {
      for (int r = 0; r < count; ++r) {
        const std::uint8_t* row = src + r * stride_bytes;
        strip_.insert(strip_.end(), row, row + row_bytes);
      }
      next_row_ += count;
      write_complete_strips();
      return;
    }
    for (int r = 0; r < count; ++r, ++next_row_) {
      // TIFFWriteScanline may change its buffer in place (the predictor): a copy of the row.
      std::copy_n(src + r * stride_bytes, row_bytes, strip_.data());
      if (TIFFWriteScanline(tif_.get(), strip_.data(), static_cast<std::uint32_t>(next_row_), 0) !=
          1) {
        fail_write("TIFF encoding failed");
      }
      checkpoint_every(options_.checkpoint, next_row_);
    }
  }

  void commit() override {
    if (next_row_ != shape_.height) {
      throw std::logic_error("TiffRowWriter: commit before the last row");
    }
    if (TIFFWriteDirectory(tif_.get()) != 1) fail_write("TIFF encoding failed");
    TIFFFlush(tif_.get());
    if (stream_.io_failure) std::rethrow_exception(stream_.io_failure);
    stream_.discard = true;
    tif_.reset();
    file_.commit(options_.sync);
  }

 private:
  /// The strips whose rows are all in strip_ (the rows after the last written strip),
  /// compressed side by side on options_.parallel_for, written in order.
  void write_complete_strips() {
#ifdef PARFILTER_HAVE_ZLIB
    const int first_row = written_strips_ * rows_per_strip_;
    const int complete = next_row_ == shape_.height
                             ? (shape_.height - first_row + rows_per_strip_ - 1) / rows_per_strip_
                             : (next_row_ - first_row) / rows_per_strip_;
    if (complete == 0) return;
    const auto row_bytes = static_cast<std::ptrdiff_t>(shape_.row_bytes());
    std::vector<std::vector<std::uint8_t>> compressed(static_cast<std::size_t>(complete));
    const auto compress = [&](std::size_t i) {
      const int first = first_row + static_cast<int>(i) * rows_per_strip_;
      const int rows = std::min(rows_per_strip_, shape_.height - first);
      compressed[i] = deflate_tiff_strip(shape_, strip_.data() + (first - first_row) * row_bytes,
                                         row_bytes, rows, options_.tiff_level);
    };
    if (options_.parallel_for && complete > 1) {
      options_.parallel_for(compressed.size(), compress);
    } else {
      for (std::size_t i = 0; i < compressed.size(); ++i) compress(i);
    }
    for (std::vector<std::uint8_t>& bytes : compressed) {
      if (TIFFWriteRawStrip(tif_.get(), static_cast<std::uint32_t>(written_strips_), bytes.data(),
                            static_cast<tmsize_t>(bytes.size())) < 0) {
        fail_write("TIFF encoding failed");
      }
      ++written_strips_;
    }
    const std::size_t used = std::min(
        strip_.size(), static_cast<std::size_t>(complete) * rows_per_strip_ * shape_.row_bytes());
    strip_.erase(strip_.begin(), strip_.begin() + static_cast<std::ptrdiff_t>(used));
    if (options_.checkpoint) options_.checkpoint();
#endif
  }

  /// A write error's own RuntimeError, else one naming libtiff's message.
  [[noreturn]] void fail_write(const std::string& what) const {
    if (stream_.io_failure) std::rethrow_exception(stream_.io_failure);
    throw RuntimeError(name_ + ": " + what +
                       (stream_.error.empty() ? "" : " (libtiff: " + stream_.error + ")"));
  }

  OutputFile file_;
  std::string name_;
  StreamShape shape_;
  SaveOptions options_;
  StreamFile stream_;
  Tiff tif_;
  bool deflate_ = false;
  int rows_per_strip_ = 1;
  int written_strips_ = 0;
  Bytes strip_;  ///< Deflate: the rows after the last written strip
  int next_row_ = 0;
};

}  // namespace

std::unique_ptr<RowReader> open_tiff_row_reader(std::unique_ptr<InputFile> file,
                                                const LoadOptions& options) {
  return std::make_unique<TiffRowReader>(std::move(file), options);
}

std::unique_ptr<RowWriter> open_tiff_row_writer(const std::filesystem::path& path,
                                                const StreamShape& shape,
                                                const SaveOptions& options) {
  return std::make_unique<TiffRowWriter>(path, shape, options);
}

}  // namespace parfilter::io

#endif  // PARFILTER_HAVE_TIFF
