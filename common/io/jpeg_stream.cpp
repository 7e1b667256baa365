// JPEG rows with libjpeg-turbo's scanline API, read through a source over the input file and
// written through a destination over the output's temporary: the samples decode_jpeg_turbo
// gives and the bytes encode_jpeg_turbo writes. libjpeg holds an MCU row or so of a baseline
// file; a progressive one, whose coefficients it holds whole, and one that EXIF turns are read
// whole instead (null reader). Failures longjmp to the setjmp of each call (jpeg_common.hpp),
// whose frames hold no object with a destructor.
#ifdef PARFILTER_HAVE_LIBJPEG_TURBO

// clang-format off
#include <cstddef>
#include <cstdio>
#include <jpeglib.h>
#include <jerror.h>
// clang-format on

#include <cstring>
#include <exception>
#include <memory>
#include <vector>

#include "codecs.hpp"
#include "jpeg_common.hpp"
#include "orientation.hpp"
#include "output_file.hpp"
#include "parfilter/error.hpp"
#include "row_stream_codecs.hpp"

namespace parfilter::io {
namespace {

constexpr std::size_t kJpegBufferBytes = std::size_t{64} << 10;

/// Copies a C++ failure's message where libjpeg's own would go, for the longjmp after it.
void keep_message(JpegErrors& errors, const std::exception& e) {
  std::snprintf(errors.message, sizeof errors.message, "%s", e.what());
}

/// libjpeg's source over an input file, read kJpegBufferBytes at a time.
struct FileSource {
  jpeg_source_mgr base{};  // first: libjpeg's pointer is this struct's
  const InputFile* file = nullptr;
  JpegErrors* errors = nullptr;
  std::uint64_t offset = 0;
  std::vector<JOCTET> buffer = std::vector<JOCTET>(kJpegBufferBytes);
};

extern "C" {
void source_init(j_decompress_ptr /*info*/) {}
void source_term(j_decompress_ptr /*info*/) {}

boolean source_fill(j_decompress_ptr info) {
  auto* src = reinterpret_cast<FileSource*>(info->src);
  std::size_t got = 0;
  bool failed = false;
  try {
    got = src->file->read_at(src->offset, {src->buffer.data(), src->buffer.size()});
  } catch (const std::exception& e) {
    keep_message(*src->errors, e);
    failed = true;
  }
  if (failed) std::longjmp(src->errors->jump, 1);
  if (got == 0) WARNMS(info, JWRN_JPEG_EOF);  // a truncated file: an error (on_jpeg_message)
  src->offset += got;
  src->base.next_input_byte = src->buffer.data();
  src->base.bytes_in_buffer = got;
  return TRUE;
}

void source_skip(j_decompress_ptr info, long count) {  // NOLINT(google-runtime-int): libjpeg's
  auto* src = reinterpret_cast<FileSource*>(info->src);
  if (count <= 0) return;
  const auto skip = static_cast<std::size_t>(count);
  if (skip <= src->base.bytes_in_buffer) {
    src->base.next_input_byte += skip;
    src->base.bytes_in_buffer -= skip;
    return;
  }
  src->offset += skip - src->base.bytes_in_buffer;
  src->base.bytes_in_buffer = 0;
}
}  // extern "C"

class JpegRowReader final : public RowReader {
 public:
  JpegRowReader(std::unique_ptr<InputFile> file, const LoadOptions& options)
      : file_(std::move(file)) {
    install_jpeg_errors(info_.err, errors_);
    progress_.progress_monitor = on_jpeg_progress;
    source_.file = file_.get();
    source_.errors = &errors_;
    source_.base.init_source = source_init;
    source_.base.fill_input_buffer = source_fill;
    source_.base.skip_input_data = source_skip;
    source_.base.resync_to_restart = jpeg_resync_to_restart;
    source_.base.term_source = source_term;
    // A constructor that throws runs no destructor: libjpeg's memory goes before the error.
    if (!create(options.apply_exif_orientation)) {
      release();
      fail_jpeg();
    }
    const StreamShape shape = this->shape();
    try {
      check_stream_size(file_->name(), shape.width, shape.height, shape.channels, Depth::u8, 1,
                        options.max_bytes);
    } catch (...) {
      release();
      throw;
    }
  }
  JpegRowReader(const JpegRowReader&) = delete;
  JpegRowReader& operator=(const JpegRowReader&) = delete;
  ~JpegRowReader() override { release(); }

  /// Whether the rows come in order: not for a progressive file or one EXIF turns.
  [[nodiscard]] bool streams() const { return streams_; }

  [[nodiscard]] StreamShape shape() const override {
    return {static_cast<int>(info_.output_width), static_cast<int>(info_.output_height),
            info_.out_color_space == JCS_GRAYSCALE ? 1 : 3, Depth::u8};
  }

  void read_rows(std::uint8_t* dst, std::ptrdiff_t stride, int count) override {
    if (!read(dst, stride, count)) fail_jpeg();
  }

  void rewind() override {
    if (!restart()) fail_jpeg();
  }

  [[nodiscard]] std::size_t held_bytes() const override {
    // The source's buffer and libjpeg's MCU row of every component, decoded and upsampled.
    const auto mcu_rows = static_cast<std::size_t>(info_.max_v_samp_factor * DCTSIZE);
    return source_.buffer.size() + cmyk_row_.size() +
           2 * mcu_rows * info_.output_width * static_cast<std::size_t>(info_.num_components);
  }

 private:
  void release() {
    if (created_) jpeg_destroy_decompress(&info_);
    created_ = false;
  }

  bool create(bool apply_exif_orientation) {
    if (setjmp(errors_.jump) != 0) return false;
    jpeg_create_decompress(&info_);
    created_ = true;
    info_.progress = &progress_;
    info_.src = &source_.base;
    jpeg_save_markers(&info_, kJpegExifMarker, kMaxJpegMarkerBytes);
    start();
    streams_ = info_.progressive_mode == FALSE &&
               (!apply_exif_orientation || jpeg_exif_orientation(info_) == kOrientationUpright);
    return true;
  }

  /// The header read and the decompression started, from the file's first byte.
  void start() {
    jpeg_read_header(&info_, TRUE);
    const bool cmyk = info_.jpeg_color_space == JCS_CMYK || info_.jpeg_color_space == JCS_YCCK;
    info_.out_color_space = info_.jpeg_color_space == JCS_GRAYSCALE ? JCS_GRAYSCALE
                            : cmyk                                  ? JCS_CMYK
                                                                    : JCS_EXT_RGB;
    jpeg_start_decompress(&info_);
    cmyk_row_.resize(cmyk ? static_cast<std::size_t>(info_.output_width) * kCmykChannels : 0);
  }

  bool restart() {
    if (setjmp(errors_.jump) != 0) return false;
    jpeg_abort_decompress(&info_);
    source_.offset = 0;
    source_.base.bytes_in_buffer = 0;
    start();
    return true;
  }

  bool read(std::uint8_t* dst, std::ptrdiff_t stride, int count) {
    if (setjmp(errors_.jump) != 0) return false;
    const int width = static_cast<int>(info_.output_width);
    for (int r = 0; r < count; ++r) {
      std::uint8_t* out = dst + r * stride;
      JSAMPROW row = cmyk_row_.empty() ? out : cmyk_row_.data();
      if (jpeg_read_scanlines(&info_, &row, 1) != 1) {
        std::snprintf(errors_.message, sizeof errors_.message, "read past the last row");
        return false;
      }
      if (!cmyk_row_.empty()) cmyk_to_rgb(cmyk_row_.data(), out, width);
    }
    return true;
  }

  [[noreturn]] void fail_jpeg() const {
    fail(file_->name(),
         std::string("corrupt or truncated JPEG (libjpeg-turbo: ") + errors_.message + ")");
  }

  std::unique_ptr<InputFile> file_;
  jpeg_decompress_struct info_{};
  JpegErrors errors_;
  jpeg_progress_mgr progress_{};
  FileSource source_;
  bool created_ = false;
  bool streams_ = false;
  std::vector<std::uint8_t> cmyk_row_;
};

/// libjpeg's destination over an output file, written kJpegBufferBytes at a time.
struct FileDestination {
  jpeg_destination_mgr base{};  // first: libjpeg's pointer is this struct's
  OutputFile* file = nullptr;
  JpegErrors* errors = nullptr;
  std::vector<JOCTET> buffer = std::vector<JOCTET>(kJpegBufferBytes);
};

extern "C" {
void destination_init(j_compress_ptr info) {
  auto* dst = reinterpret_cast<FileDestination*>(info->dest);
  dst->base.next_output_byte = dst->buffer.data();
  dst->base.free_in_buffer = dst->buffer.size();
}

/// Writes the buffer's first `bytes`; a write failure (a full disk) longjmps with its message.
void destination_write(FileDestination& dst, std::size_t bytes) {
  bool failed = false;
  try {
    dst.file->write({dst.buffer.data(), bytes});
  } catch (const std::exception& e) {
    keep_message(*dst.errors, e);
    failed = true;
  }
  if (failed) std::longjmp(dst.errors->jump, 1);
}

boolean destination_empty(j_compress_ptr info) {
  auto* dst = reinterpret_cast<FileDestination*>(info->dest);
  destination_write(*dst, dst->buffer.size());
  destination_init(info);
  return TRUE;
}

void destination_term(j_compress_ptr info) {
  auto* dst = reinterpret_cast<FileDestination*>(info->dest);
  destination_write(*dst, dst->buffer.size() - dst->base.free_in_buffer);
}
}  // extern "C"

class JpegRowWriter final : public RowWriter {
 public:
  JpegRowWriter(const std::filesystem::path& path, const StreamShape& shape,
                const SaveOptions& options)
      : name_(path.string()), file_(path), options_(options) {
    install_jpeg_errors(info_.err, errors_);
    destination_.file = &file_;
    destination_.errors = &errors_;
    destination_.base.init_destination = destination_init;
    destination_.base.empty_output_buffer = destination_empty;
    destination_.base.term_destination = destination_term;
    if (!start(shape)) {
      jpeg_destroy_compress(&info_);  // a constructor that throws runs no destructor
      created_ = false;
      fail_write();
    }
  }
  JpegRowWriter(const JpegRowWriter&) = delete;
  JpegRowWriter& operator=(const JpegRowWriter&) = delete;
  ~JpegRowWriter() override {
    if (created_) jpeg_destroy_compress(&info_);
  }

  void write_rows(const std::uint8_t* src, std::ptrdiff_t stride, int count) override {
    if (!write(src, stride, count)) fail_write();
  }

  void commit() override {
    if (!finish()) fail_write();
    file_.commit(options_.sync);
  }

 private:
  bool start(const StreamShape& shape) {
    if (setjmp(errors_.jump) != 0) return false;
    jpeg_create_compress(&info_);
    created_ = true;
    info_.dest = &destination_.base;
    info_.image_width = static_cast<JDIMENSION>(shape.width);
    info_.image_height = static_cast<JDIMENSION>(shape.height);
    info_.input_components = shape.channels;
    info_.in_color_space = shape.channels == 1   ? JCS_GRAYSCALE
                           : shape.channels == 3 ? JCS_EXT_RGB
                                                 : JCS_EXT_RGBX;  // JPEG has no alpha
    jpeg_set_defaults(&info_);  // as encode_jpeg_turbo: 4:2:0 chroma for colour
    jpeg_set_quality(&info_, options_.jpeg_quality, TRUE);
    jpeg_start_compress(&info_, TRUE);
    return true;
  }

  bool write(const std::uint8_t* src, std::ptrdiff_t stride, int count) {
    if (setjmp(errors_.jump) != 0) return false;
    for (int r = 0; r < count; ++r) {
      // libjpeg's API takes non-const rows; it only reads them.
      auto* row = const_cast<JSAMPLE*>(src + r * stride);
      jpeg_write_scanlines(&info_, &row, 1);
    }
    return true;
  }

  bool finish() {
    if (setjmp(errors_.jump) != 0) return false;
    jpeg_finish_compress(&info_);
    return true;
  }

  [[noreturn]] void fail_write() const {
    throw RuntimeError(name_ + ": cannot write JPEG: " + errors_.message);
  }

  std::string name_;
  OutputFile file_;
  SaveOptions options_;
  jpeg_compress_struct info_{};
  JpegErrors errors_;
  FileDestination destination_;
  bool created_ = false;
};

}  // namespace

std::unique_ptr<RowReader> open_jpeg_row_reader(std::unique_ptr<InputFile> file,
                                                const LoadOptions& options) {
  auto reader = std::make_unique<JpegRowReader>(std::move(file), options);
  if (!reader->streams()) return nullptr;
  return reader;
}

std::unique_ptr<RowWriter> open_jpeg_row_writer(const std::filesystem::path& path,
                                                const StreamShape& shape,
                                                const SaveOptions& options) {
  if (shape.width > JPEG_MAX_DIMENSION || shape.height > JPEG_MAX_DIMENSION) {
    throw RuntimeError(path.string() + ": " + std::to_string(shape.width) + "x" +
                       std::to_string(shape.height) + " is too large for this format (max " +
                       std::to_string(JPEG_MAX_DIMENSION) + " per side)");
  }
  return std::make_unique<JpegRowWriter>(path, shape, options);
}

}  // namespace parfilter::io

#endif  // PARFILTER_HAVE_LIBJPEG_TURBO
