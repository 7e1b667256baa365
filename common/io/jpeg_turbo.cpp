// JPEG with libjpeg-turbo (its libjpeg API, which every distribution ships). libjpeg reports
// errors by calling back, expecting no return: the callbacks longjmp to the setjmp in
// JpegSession::guarded, whose frames hold no object with a destructor, and the message
// becomes an exception there. Warnings that mean lost data (a truncated file, corrupt entropy
// data) are errors too; harmless ones (extra bytes between markers) are ignored, as libvips
// does by default.
#ifdef PARFILTER_HAVE_LIBJPEG_TURBO

// clang-format off
#include <cstddef>
#include <cstdio>
#include <jpeglib.h>
#include <jerror.h>
// clang-format on

#include <csetjmp>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <vector>

#include "codecs.hpp"
#include "jpeg_common.hpp"
#include "orientation.hpp"
#include "parfilter/error.hpp"

namespace parfilter::io {

extern "C" {
[[noreturn]] void on_jpeg_error(j_common_ptr info) {
  auto* errors = reinterpret_cast<JpegErrors*>(info->err);
  (*info->err->format_message)(info, errors->message);
  std::longjmp(errors->jump, 1);
}

void on_jpeg_message(j_common_ptr info, int level) {
  if (level >= 0) return;  // trace messages
  switch (info->err->msg_code) {
    case JWRN_EXTRANEOUS_DATA:
    case JWRN_ADOBE_XFORM:
    case JWRN_JFIF_MAJOR:
    case JWRN_TOO_MUCH_DATA:
      return;  // harmless
    default:
      on_jpeg_error(info);  // lost or corrupt data
  }
}

void on_jpeg_progress(j_common_ptr info) {
  auto* decompress = reinterpret_cast<j_decompress_ptr>(info);
  if (info->is_decompressor && decompress->input_scan_number > kMaxJpegScans) {
    auto* errors = reinterpret_cast<JpegErrors*>(info->err);
    std::snprintf(errors->message, sizeof errors->message,
                  "more than %d scans (a progressive JPEG built to stall decoders)", kMaxJpegScans);
    std::longjmp(errors->jump, 1);
  }
}
}  // extern "C"

void install_jpeg_errors(jpeg_error_mgr*& err, JpegErrors& errors) {
  err = jpeg_std_error(&errors.base);
  errors.base.error_exit = on_jpeg_error;
  errors.base.emit_message = on_jpeg_message;
}

void cmyk_to_rgb(const std::uint8_t* cmyk, std::uint8_t* rgb, int width) {
  for (int x = 0; x < width; ++x, cmyk += kCmykChannels, rgb += 3) {
    const int k = cmyk[3];
    for (int i = 0; i < 3; ++i) {
      rgb[i] = static_cast<std::uint8_t>((cmyk[i] * k + kByteMax / 2) / kByteMax);
    }
  }
}

int jpeg_exif_orientation(const jpeg_decompress_struct& info) {
  for (jpeg_saved_marker_ptr m = info.marker_list; m != nullptr; m = m->next) {
    if (m->marker == kJpegExifMarker) {
      const int orientation = exif_orientation({m->data, m->data_length});
      if (orientation != kOrientationUpright) return orientation;
    }
  }
  return kOrientationUpright;
}

namespace {

class JpegDecoder {
 public:
  JpegDecoder(std::span<const std::uint8_t> bytes, const LoadOptions& options)
      : bytes_(bytes), options_(options) {
    install_jpeg_errors(info_.err, errors_);
    progress_.progress_monitor = on_jpeg_progress;
  }
  JpegDecoder(const JpegDecoder&) = delete;
  JpegDecoder& operator=(const JpegDecoder&) = delete;
  ~JpegDecoder() {
    if (created_) jpeg_destroy_decompress(&info_);
  }

  /// Reads the header, checks the size and starts decompressing; false (with message())
  /// when libjpeg failed, InputError for the size limit.
  bool start(const std::string& name) {
    if (setjmp(errors_.jump) != 0) {
      // libjpeg refuses a side over JPEG_MAX_DIMENSION before the size limit could be checked:
      // the frame header is read by then, so the limit is still reported first.
      if (info_.err->msg_code == JERR_IMAGE_TOO_BIG) refuse_too_big(name);
      return false;
    }
    jpeg_create_decompress(&info_);
    created_ = true;
    info_.progress = &progress_;
    jpeg_mem_src(&info_, bytes_.data(), static_cast<unsigned long>(bytes_.size()));
    jpeg_save_markers(&info_, kJpegExifMarker, kMaxJpegMarkerBytes);
    jpeg_read_header(&info_, TRUE);
    const bool cmyk = info_.jpeg_color_space == JCS_CMYK || info_.jpeg_color_space == JCS_YCCK;
    const bool gray = info_.jpeg_color_space == JCS_GRAYSCALE;
    info_.out_color_space = gray ? JCS_GRAYSCALE : cmyk ? JCS_CMYK : JCS_EXT_RGB;
    const int channels = gray ? 1 : 3;
    check_image_size(name, info_.image_width, info_.image_height, channels, options_.max_bytes);
    check_scan_volume(name);
    orientation_ =
        options_.apply_exif_orientation ? jpeg_exif_orientation(info_) : kOrientationUpright;
    jpeg_start_decompress(&info_);
    image_ =
        decoder_image(static_cast<int>(info_.output_width), static_cast<int>(info_.output_height),
                      channels, orientation_ == kOrientationUpright ? options_.allocator : nullptr,
                      options_.map_pages_first);
    if (cmyk) cmyk_row_.resize(static_cast<std::size_t>(info_.output_width) * kCmykChannels);
    return true;
  }

  /// Decodes up to `rows` more rows (and finishes after the last); false when libjpeg failed.
  bool read_rows(int rows) {
    if (setjmp(errors_.jump) != 0) return false;
    for (int i = 0; i < rows && !done(); ++i) {
      const auto y = static_cast<int>(info_.output_scanline);
      const bool cmyk = !cmyk_row_.empty();
      JSAMPROW row = cmyk ? cmyk_row_.data() : image_.row(y);
      jpeg_read_scanlines(&info_, &row, 1);
      if (cmyk) cmyk_to_rgb(cmyk_row_.data(), image_.row(y), image_.width());
    }
    if (done()) jpeg_finish_decompress(&info_);
    return true;
  }

  [[nodiscard]] bool done() const { return info_.output_scanline >= info_.output_height; }
  [[nodiscard]] const char* message() const { return errors_.message; }
  Image take_image() { return apply_orientation(std::move(image_), orientation_); }

 private:
  [[noreturn]] void refuse_too_big(const std::string& name) const {
    const int channels = info_.num_components == 1 ? 1 : 3;
    check_image_size(name, info_.image_width, info_.image_height, channels, options_.max_bytes);
    fail(name, "JPEG of " + std::to_string(info_.image_width) + "x" +
                   std::to_string(info_.image_height) + " is over libjpeg-turbo's maximum of " +
                   std::to_string(JPEG_MAX_DIMENSION) + " pixels per side");
  }

  /// Refuses, before the image is allocated, a file whose bytes after the first scan header
  /// cannot code the frame: every 8x8 block's DC coefficient takes at least a bit (as the stb
  /// path's check_jpeg_segments bounds it). libjpeg would find out only rows later.
  void check_scan_volume(const std::string& name) const {
    constexpr std::uint64_t kBitsPerByte = 8;
    std::uint64_t blocks = 0;
    for (int c = 0; c < info_.num_components; ++c) {
      blocks +=
          std::uint64_t{info_.comp_info[c].width_in_blocks} * info_.comp_info[c].height_in_blocks;
    }
    const std::uint64_t left = info_.src->bytes_in_buffer;
    if (left * kBitsPerByte >= blocks) return;
    fail(name, "truncated or corrupt JPEG: " + std::to_string(left) +
                   " bytes of scan data cannot code its " + std::to_string(info_.image_width) +
                   "x" + std::to_string(info_.image_height) + " frame");
  }

  std::span<const std::uint8_t> bytes_;
  const LoadOptions& options_;
  jpeg_decompress_struct info_{};
  JpegErrors errors_;
  jpeg_progress_mgr progress_{};
  bool created_ = false;
  int orientation_ = kOrientationUpright;
  Image image_;
  std::vector<std::uint8_t> cmyk_row_;
};

class JpegEncoder {
 public:
  JpegEncoder() { install_jpeg_errors(info_.err, errors_); }
  JpegEncoder(const JpegEncoder&) = delete;
  JpegEncoder& operator=(const JpegEncoder&) = delete;
  ~JpegEncoder() {
    if (created_) jpeg_destroy_compress(&info_);
    std::free(buffer_);  // NOLINT: libjpeg's jpeg_mem_dest allocates with malloc
  }

  bool run(const ConstImageView& image, int quality) {
    if (setjmp(errors_.jump) != 0) return false;
    jpeg_create_compress(&info_);
    created_ = true;
    jpeg_mem_dest(&info_, &buffer_, &size_);
    info_.image_width = static_cast<JDIMENSION>(image.width());
    info_.image_height = static_cast<JDIMENSION>(image.height());
    info_.input_components = image.channels();
    info_.in_color_space = image.channels() == 1   ? JCS_GRAYSCALE
                           : image.channels() == 3 ? JCS_EXT_RGB
                                                   : JCS_EXT_RGBX;  // JPEG has no alpha
    jpeg_set_defaults(&info_);  // 4:2:0 chroma for colour, as OpenCV writes by default
    jpeg_set_quality(&info_, quality, TRUE);
    jpeg_start_compress(&info_, TRUE);
    while (info_.next_scanline < info_.image_height) {
      // libjpeg's API takes non-const rows; it only reads them.
      auto* row = const_cast<JSAMPLE*>(image.row(static_cast<int>(info_.next_scanline)));
      jpeg_write_scanlines(&info_, &row, 1);
    }
    jpeg_finish_compress(&info_);
    return true;
  }

  [[nodiscard]] const char* message() const { return errors_.message; }
  [[nodiscard]] std::vector<std::uint8_t> bytes() const { return {buffer_, buffer_ + size_}; }

 private:
  jpeg_compress_struct info_{};
  JpegErrors errors_;
  bool created_ = false;
  unsigned char* buffer_ = nullptr;
  unsigned long size_ = 0;  // NOLINT(google-runtime-int): libjpeg's type
};

}  // namespace

Image decode_jpeg_turbo(std::span<const std::uint8_t> bytes, const std::string& name,
                        const LoadOptions& options) {
  JpegDecoder decoder(bytes, options);
  bool ok = decoder.start(name);
  while (ok && !decoder.done()) {
    ok = decoder.read_rows(kCheckpointRows);
    if (ok && options.checkpoint) options.checkpoint();
  }
  if (!ok) {
    fail(name, std::string("corrupt or truncated JPEG (libjpeg-turbo: ") + decoder.message() + ")");
  }
  return decoder.take_image();
}

std::vector<std::uint8_t> encode_jpeg_turbo(const ConstImageView& image, const SaveOptions& options,
                                            const std::string& name) {
  if (image.width() > JPEG_MAX_DIMENSION || image.height() > JPEG_MAX_DIMENSION) {
    throw RuntimeError(name + ": " + std::to_string(image.width()) + "x" +
                       std::to_string(image.height()) + " is too large for this format (max " +
                       std::to_string(JPEG_MAX_DIMENSION) + " per side)");
  }
  JpegEncoder encoder;
  if (!encoder.run(image, options.jpeg_quality)) {
    throw RuntimeError(name + ": cannot write JPEG: " + encoder.message());
  }
  return encoder.bytes();
}

}  // namespace parfilter::io

#endif  // PARFILTER_HAVE_LIBJPEG_TURBO
