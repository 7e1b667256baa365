// Internal: what the whole-image JPEG codec (jpeg_turbo.cpp) and the row codec
// (jpeg_stream.cpp) share: libjpeg's error callbacks, which longjmp to the caller's setjmp
// (whose frames hold no object with a destructor) with the message kept, the scan limit, the
// EXIF orientation and Adobe CMYK to RGB. Include after <cstdio> and <jpeglib.h>.
#pragma once

#ifdef PARFILTER_HAVE_LIBJPEG_TURBO

#include <csetjmp>
#include <cstdint>

namespace parfilter::io {

/// A progressive JPEG can carry any number of scans, each a pass over the whole image: more
/// than this is an attack on the decoder's time, not a photograph (libjpeg-turbo's own tools
/// use a limit of this order).
inline constexpr int kMaxJpegScans = 500;
inline constexpr int kJpegExifMarker = JPEG_APP0 + 1;
inline constexpr unsigned kMaxJpegMarkerBytes = 0xffff;
inline constexpr int kCmykChannels = 4;
inline constexpr int kByteMax = 255;

struct JpegErrors {
  jpeg_error_mgr base{};
  std::jmp_buf jump{};
  char message[JMSG_LENGTH_MAX] = {};
};

extern "C" {
/// error_exit: the message into JpegErrors, then longjmp to its jump.
[[noreturn]] void on_jpeg_error(j_common_ptr info);
/// emit_message: warnings that mean lost data (a truncated file, corrupt entropy data) are
/// errors; harmless ones (extra bytes between markers) are ignored, as libvips does.
void on_jpeg_message(j_common_ptr info, int level);
/// progress_monitor: a decoder past kMaxJpegScans scans fails.
void on_jpeg_progress(j_common_ptr info);
}

/// `err` (a libjpeg struct's) pointed at `errors`, with the callbacks above.
void install_jpeg_errors(jpeg_error_mgr*& err, JpegErrors& errors);

/// Adobe CMYK (stored inverted, as Photoshop writes it) to RGB: R = C K / 255, and so on.
void cmyk_to_rgb(const std::uint8_t* cmyk, std::uint8_t* rgb, int width);

/// The EXIF orientation of a decompressor whose header is read (its APP1 markers saved).
[[nodiscard]] int jpeg_exif_orientation(const jpeg_decompress_struct& info);

}  // namespace parfilter::io

#endif  // PARFILTER_HAVE_LIBJPEG_TURBO
