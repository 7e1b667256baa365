// TIFF through libtiff, in memory (client procedures over the file's bytes): 8- and 16-bit
// unsigned gray, gray+alpha, RGB and RGBA; strips or tiles; contiguous or planar; either byte
// order; classic or BigTIFF; every compression this libtiff decodes. libtiff's messages go to
// the error that names the file, never to stderr. docs/IO.md lists the choices.
#ifdef PARFILTER_HAVE_TIFF

#include <tiffio.h>

#include <algorithm>
#include <array>
#include <cstdarg>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "codecs.hpp"
#include "parfilter/error.hpp"
#include "tiff_strips.hpp"

namespace parfilter::io {
namespace {

constexpr int kGrayAlphaSamples = 2;
constexpr int kRgbSamples = 3;
constexpr int kRgbaSamples = 4;
constexpr std::size_t kMessageBytes = 512;
constexpr std::uint64_t kBlockMarginBytes = std::uint64_t{64} << 20;
/// Classic TIFF's offsets are 32-bit: anything near 4 GiB is written as BigTIFF.
constexpr std::uint64_t kBigTiffFrom = (std::uint64_t{1} << 32) - (std::uint64_t{1} << 26);

/// The file's bytes as libtiff reads them (reading), or the bytes it writes (writing).
struct MemoryFile {
  std::span<const std::uint8_t> input;
  std::vector<std::uint8_t> output;
  bool writing = false;
  std::uint64_t at = 0;
  std::string error;  ///< libtiff's first error message

  [[nodiscard]] std::uint64_t size() const { return writing ? output.size() : input.size(); }
};

MemoryFile& file_of(thandle_t handle) { return *static_cast<MemoryFile*>(handle); }

tmsize_t read_proc(thandle_t handle, void* buffer, tmsize_t size) {
  MemoryFile& file = file_of(handle);
  if (file.writing || size < 0 || file.at >= file.input.size()) return 0;
  const auto n = std::min<std::uint64_t>(static_cast<std::uint64_t>(size), file.size() - file.at);
  std::memcpy(buffer, file.input.data() + file.at, n);
  file.at += n;
  return static_cast<tmsize_t>(n);
}

tmsize_t write_proc(thandle_t handle, void* buffer, tmsize_t size) {
  MemoryFile& file = file_of(handle);
  if (!file.writing || size < 0) return -1;
  const auto n = static_cast<std::uint64_t>(size);
  if (file.at + n > file.output.size()) file.output.resize(file.at + n);
  std::memcpy(file.output.data() + file.at, buffer, n);
  file.at += n;
  return size;
}

toff_t seek_proc(thandle_t handle, toff_t offset, int whence) {
  MemoryFile& file = file_of(handle);
  const std::uint64_t base = whence == SEEK_CUR ? file.at : whence == SEEK_END ? file.size() : 0;
  file.at = base + offset;
  return file.at;
}

int close_proc(thandle_t /*handle*/) { return 0; }
toff_t size_proc(thandle_t handle) { return file_of(handle).size(); }
int map_proc(thandle_t /*handle*/, void** /*base*/, toff_t* /*size*/) { return 0; }
void unmap_proc(thandle_t /*handle*/, void* /*base*/, toff_t /*size*/) {}

int on_error(TIFF* /*tif*/, void* user_data, const char* /*module*/, const char* format,
             va_list args) {
  auto& file = *static_cast<MemoryFile*>(user_data);
  if (file.error.empty()) {
    std::array<char, kMessageBytes> message{};
    std::vsnprintf(message.data(), message.size(), format, args);
    // libtiff's messages may span lines (and quote the file's bytes); the error is one line.
    constexpr unsigned char kFirstPrintable = 0x20;
    for (const char c : std::string_view(message.data())) {
      const bool space = static_cast<unsigned char>(c) < kFirstPrintable;
      if (space && (file.error.empty() || file.error.back() == ' ')) continue;
      file.error += space ? ' ' : c;
    }
    while (!file.error.empty() && file.error.back() == ' ') file.error.pop_back();
  }
  return 1;  // handled: nothing on stderr
}

int on_warning(TIFF* /*tif*/, void* /*user_data*/, const char* /*module*/, const char* /*format*/,
               va_list /*args*/) {
  return 1;  // unknown tags and the like: not the user's concern
}

struct TiffCloser {
  void operator()(TIFF* tif) const { TIFFClose(tif); }
};
using Tiff = std::unique_ptr<TIFF, TiffCloser>;

Tiff open_tiff(MemoryFile& file, const char* mode, const std::string& name,
               std::uint64_t max_alloc) {
  TIFFOpenOptions* options = TIFFOpenOptionsAlloc();
  TIFFOpenOptionsSetErrorHandlerExtR(options, on_error, &file);
  TIFFOpenOptionsSetWarningHandlerExtR(options, on_warning, &file);
  TIFFOpenOptionsSetMaxSingleMemAlloc(options, static_cast<tmsize_t>(max_alloc));
  TIFF* tif = TIFFClientOpenExt(name.c_str(), mode, &file, read_proc, write_proc, seek_proc,
                                close_proc, size_proc, map_proc, unmap_proc, options);
  TIFFOpenOptionsFree(options);
  return Tiff(tif);
}

[[noreturn]] void fail_tiff(const std::string& name, const std::string& what,
                            const MemoryFile& file) {
  fail(name, what + (file.error.empty() ? "" : " (libtiff: " + file.error + ")"));
}

template <typename T>
T tag_or(TIFF* tif, ttag_t tag, T fallback) {
  T value = fallback;
  return TIFFGetFieldDefaulted(tif, tag, &value) == 1 ? value : fallback;
}

/// What the first page holds, checked: the layout parfilter reads, or a cause to refuse.
struct Layout {
  std::uint32_t width = 0;
  std::uint32_t height = 0;
  int samples = 0;   ///< per pixel in the file: 1 to 4
  int channels = 0;  ///< of the image: gray+alpha becomes RGBA
  Depth depth = Depth::u8;
  bool planar = false;
};

Layout read_layout(TIFF* tif, const std::string& name, const MemoryFile& file) {
  Layout layout;
  if (TIFFGetField(tif, TIFFTAG_IMAGEWIDTH, &layout.width) != 1 ||
      TIFFGetField(tif, TIFFTAG_IMAGELENGTH, &layout.height) != 1) {
    fail_tiff(name, "corrupt TIFF: no image size", file);
  }
  const auto bits = tag_or<std::uint16_t>(tif, TIFFTAG_BITSPERSAMPLE, 1);
  const auto format = tag_or<std::uint16_t>(tif, TIFFTAG_SAMPLEFORMAT, SAMPLEFORMAT_UINT);
  const auto samples = tag_or<std::uint16_t>(tif, TIFFTAG_SAMPLESPERPIXEL, 1);
  std::uint16_t photometric = 0;
  if (TIFFGetField(tif, TIFFTAG_PHOTOMETRIC, &photometric) != 1) {
    photometric = samples >= kRgbSamples ? PHOTOMETRIC_RGB : PHOTOMETRIC_MINISBLACK;
  }
  const std::string reads =
      " (parfilter reads 8- and 16-bit unsigned gray, gray+alpha, RGB "
      "and RGBA TIFFs)";
  if (format != SAMPLEFORMAT_UINT) {
    fail(name, std::string("unsupported TIFF sample format: ") +
                   (format == SAMPLEFORMAT_IEEEFP ? "floating point" : "signed or complex") +
                   reads);
  }
  if (bits != 8 && bits != 16) {
    fail(name, "unsupported TIFF of " + std::to_string(bits) + " bits per sample" + reads);
  }
  const bool gray = photometric == PHOTOMETRIC_MINISBLACK && samples <= kGrayAlphaSamples;
  const bool rgb =
      photometric == PHOTOMETRIC_RGB && samples >= kRgbSamples && samples <= kRgbaSamples;
  if (!gray && !rgb) {
    const char* kind = photometric == PHOTOMETRIC_PALETTE      ? "palette"
                       : photometric == PHOTOMETRIC_SEPARATED  ? "CMYK"
                       : photometric == PHOTOMETRIC_YCBCR      ? "YCbCr"
                       : photometric == PHOTOMETRIC_MINISWHITE ? "min-is-white"
                                                               : "colour model";
    fail(name, std::string("unsupported TIFF: ") + kind + " with " + std::to_string(samples) +
                   " samples per pixel" + reads);
  }
  layout.samples = samples;
  layout.channels = samples == kGrayAlphaSamples ? kRgbaSamples : samples;
  layout.depth = bits == 16 ? Depth::u16 : Depth::u8;
  layout.planar =
      samples > 1 && tag_or<std::uint16_t>(tif, TIFFTAG_PLANARCONFIG, PLANARCONFIG_CONTIG) ==
                         PLANARCONFIG_SEPARATE;
  return layout;
}

/// Copies decoded samples of a strip or tile into the image: `block` holds rows
/// [y0, y0 + rows) and columns [x0, x0 + block_width) of one plane (planar) or all samples.
template <typename Sample>
void place(const Layout& layout, const Sample* block, std::uint32_t block_width, std::uint32_t x0,
           std::uint32_t y0, std::uint32_t rows, int plane, Image& image) {
  const BasicImageView<Sample> out = image.view_of<Sample>();
  const int per_pixel = layout.planar ? 1 : layout.samples;
  const std::uint32_t columns = std::min(block_width, layout.width - x0);
  for (std::uint32_t r = 0; r < rows && y0 + r < layout.height; ++r) {
    const Sample* in = block + static_cast<std::size_t>(r) * block_width * per_pixel;
    Sample* row = out.row(static_cast<int>(y0 + r));
    for (std::uint32_t x = 0; x < columns; ++x) {
      Sample* pixel = row + static_cast<std::size_t>(x0 + x) * layout.channels;
      for (int s = 0; s < per_pixel; ++s) {
        const int sample = layout.planar ? plane : s;
        const Sample v = in[static_cast<std::size_t>(x) * per_pixel + s];
        if (layout.samples == kGrayAlphaSamples) {
          // gray+alpha: gray to r, g and b, alpha last.
          if (sample == 0) {
            pixel[0] = pixel[1] = pixel[2] = v;
          } else {
            pixel[kRgbSamples] = v;
          }
        } else {
          pixel[sample] = v;
        }
      }
    }
  }
}

template <typename Sample>
void read_pixels(TIFF* tif, const Layout& layout, const std::string& name, MemoryFile& file,
                 const LoadOptions& options, Image& image) {
  const int planes = layout.planar ? layout.samples : 1;
  const bool tiled = TIFFIsTiled(tif) != 0;
  std::uint32_t block_width = layout.width;
  std::uint32_t block_height = 0;
  if (tiled) {
    if (TIFFGetField(tif, TIFFTAG_TILEWIDTH, &block_width) != 1 ||
        TIFFGetField(tif, TIFFTAG_TILELENGTH, &block_height) != 1 || block_width == 0 ||
        block_height == 0) {
      fail_tiff(name, "corrupt TIFF: bad tile size", file);
    }
  } else {
    block_height =
        std::min(tag_or<std::uint32_t>(tif, TIFFTAG_ROWSPERSTRIP, layout.height), layout.height);
    if (block_height == 0) block_height = layout.height;
  }
  const tmsize_t block_bytes = tiled ? TIFFTileSize(tif) : TIFFStripSize(tif);
  const std::uint64_t expected = static_cast<std::uint64_t>(block_width) * block_height *
                                 (layout.planar ? 1 : layout.samples) * sizeof(Sample);
  // A strip or tile may overhang the image, but not by more than a margin: a hostile tile
  // size cannot make a tiny image allocate gigabytes.
  const std::uint64_t most =
      std::min<std::uint64_t>(options.max_bytes, image.size_bytes() + kBlockMarginBytes);
  if (block_bytes <= 0 || static_cast<std::uint64_t>(block_bytes) < expected ||
      static_cast<std::uint64_t>(block_bytes) > most) {
    fail_tiff(name, "corrupt TIFF: bad strip or tile size", file);
  }
  std::vector<Sample> block(static_cast<std::size_t>(block_bytes) / sizeof(Sample) + 1);
  int done = 0;
  for (int plane = 0; plane < planes; ++plane) {
    for (std::uint32_t y = 0; y < layout.height; y += block_height) {
      for (std::uint32_t x = 0; x < layout.width; x += block_width) {
        const auto sample = static_cast<std::uint16_t>(plane);
        const tmsize_t got = tiled ? TIFFReadTile(tif, block.data(), x, y, 0, sample)
                                   : TIFFReadEncodedStrip(tif, TIFFComputeStrip(tif, y, sample),
                                                          block.data(), block_bytes);
        if (got < 0) fail_tiff(name, "corrupt or truncated TIFF", file);
        const std::uint32_t rows = tiled ? block_height : std::min(block_height, layout.height - y);
        place(layout, block.data(), block_width, x, y, rows, plane, image);
        checkpoint_every(options.checkpoint, done++);
      }
    }
  }
}

}  // namespace

Image decode_tiff(std::span<const std::uint8_t> bytes, const std::string& name,
                  const LoadOptions& options) {
  MemoryFile file;
  file.input = bytes;
  const Tiff tif = open_tiff(file, "rm", name, options.max_bytes);
  if (!tif) fail_tiff(name, "corrupt or truncated TIFF", file);
  const Layout layout = read_layout(tif.get(), name, file);
  check_image_size(name, layout.width, layout.height, layout.channels, options.max_bytes,
                   layout.depth);
  Image image =
      decoder_image(static_cast<int>(layout.width), static_cast<int>(layout.height),
                    layout.channels, options.allocator, options.map_pages_first, layout.depth);
  if (layout.depth == Depth::u8) {
    read_pixels<std::uint8_t>(tif.get(), layout, name, file, options, image);
  } else {
    read_pixels<std::uint16_t>(tif.get(), layout, name, file, options, image);
  }
  if (TIFFLastDirectory(tif.get()) == 0) {
    std::cerr << name << ": a multi-page TIFF; parfilter reads its first page\n";
  }
  return image;
}

namespace {

std::uint16_t compression_tag(TiffCompression compression) {
  switch (compression) {
    case TiffCompression::none:
      return COMPRESSION_NONE;
    case TiffCompression::lzw:
      return COMPRESSION_LZW;
    case TiffCompression::deflate:
      return COMPRESSION_ADOBE_DEFLATE;
    case TiffCompression::packbits:
      return COMPRESSION_PACKBITS;
  }
  return COMPRESSION_NONE;
}

template <typename Sample>
void write_rows(TIFF* tif, const Image& image, const std::string& name, MemoryFile& file,
                const SaveOptions& options) {
  const BasicImageView<const Sample> in = image.view_of<Sample>();
  std::vector<Sample> row(static_cast<std::size_t>(in.row_samples()));
  for (int y = 0; y < image.height(); ++y) {
    // TIFFWriteScanline may change its buffer in place (the predictor): a copy of the row.
    std::copy_n(in.row(y), row.size(), row.data());
    if (TIFFWriteScanline(tif, row.data(), static_cast<std::uint32_t>(y), 0) != 1) {
      fail_tiff(name, "TIFF encoding failed", file);
    }
    checkpoint_every(options.checkpoint, y);
  }
}

#ifdef PARFILTER_HAVE_ZLIB
/// Deflate strips compressed on the save's threads (tiff_strips.hpp), then written in order.
void write_deflated_strips(TIFF* tif, const Image& image, const std::string& name, MemoryFile& file,
                           const SaveOptions& options) {
  const int rows_per_strip = tiff_rows_per_strip(image);
  TIFFSetField(tif, TIFFTAG_ROWSPERSTRIP, static_cast<std::uint32_t>(rows_per_strip));
  const auto strips =
      static_cast<std::size_t>((image.height() + rows_per_strip - 1) / rows_per_strip);
  std::vector<std::vector<std::uint8_t>> compressed(strips);
  const auto compress = [&](std::size_t strip) {
    const int first = static_cast<int>(strip) * rows_per_strip;
    compressed[strip] =
        deflate_tiff_strip(image, first, std::min(rows_per_strip, image.height() - first));
    if (options.checkpoint) options.checkpoint();
  };
  if (options.parallel_for) {
    options.parallel_for(strips, compress);
  } else {
    for (std::size_t strip = 0; strip < strips; ++strip) compress(strip);
  }
  for (std::size_t strip = 0; strip < strips; ++strip) {
    std::vector<std::uint8_t>& bytes = compressed[strip];
    if (TIFFWriteRawStrip(tif, static_cast<std::uint32_t>(strip), bytes.data(),
                          static_cast<tmsize_t>(bytes.size())) < 0) {
      fail_tiff(name, "TIFF encoding failed", file);
    }
    std::vector<std::uint8_t>().swap(bytes);  // each strip's bytes go once written
  }
}
#endif

}  // namespace

std::vector<std::uint8_t> encode_tiff(const Image& image, const SaveOptions& options,
                                      const std::string& name) {
  MemoryFile file;
  file.writing = true;
  const bool big = image.size_bytes() >= kBigTiffFrom;
  const Tiff tif = open_tiff(file, big ? "w8" : "w", name, 0);
  if (!tif) fail_tiff(name, "cannot start a TIFF", file);
  TIFF* t = tif.get();
  const std::uint16_t compression = compression_tag(options.tiff_compression);
  TIFFSetField(t, TIFFTAG_IMAGEWIDTH, static_cast<std::uint32_t>(image.width()));
  TIFFSetField(t, TIFFTAG_IMAGELENGTH, static_cast<std::uint32_t>(image.height()));
  TIFFSetField(t, TIFFTAG_SAMPLESPERPIXEL, static_cast<std::uint16_t>(image.channels()));
  TIFFSetField(t, TIFFTAG_BITSPERSAMPLE, static_cast<std::uint16_t>(bits_of(image.depth())));
  TIFFSetField(t, TIFFTAG_SAMPLEFORMAT, SAMPLEFORMAT_UINT);
  TIFFSetField(t, TIFFTAG_PLANARCONFIG, PLANARCONFIG_CONTIG);
  TIFFSetField(t, TIFFTAG_PHOTOMETRIC,
               image.channels() == 1 ? PHOTOMETRIC_MINISBLACK : PHOTOMETRIC_RGB);
  if (image.channels() == kRgbaSamples) {
    const std::uint16_t alpha = EXTRASAMPLE_UNASSALPHA;  // as PNG's alpha
    TIFFSetField(t, TIFFTAG_EXTRASAMPLES, 1, &alpha);
  }
  TIFFSetField(t, TIFFTAG_COMPRESSION, compression);
  if (compression == COMPRESSION_LZW || compression == COMPRESSION_ADOBE_DEFLATE) {
    TIFFSetField(t, TIFFTAG_PREDICTOR, PREDICTOR_HORIZONTAL);
  }
  if (compression == COMPRESSION_ADOBE_DEFLATE) {
    TIFFSetField(t, TIFFTAG_ZIPQUALITY, kTiffDeflateLevel);
  }
#ifdef PARFILTER_HAVE_ZLIB
  if (compression == COMPRESSION_ADOBE_DEFLATE) {
    write_deflated_strips(t, image, name, file, options);
    if (TIFFWriteDirectory(t) != 1) fail_tiff(name, "TIFF encoding failed", file);
    TIFFFlush(t);
    return std::move(file.output);
  }
#endif
  TIFFSetField(t, TIFFTAG_ROWSPERSTRIP, TIFFDefaultStripSize(t, 0));
  if (image.depth() == Depth::u8) {
    write_rows<std::uint8_t>(t, image, name, file, options);
  } else {
    write_rows<std::uint16_t>(t, image, name, file, options);
  }
  if (TIFFWriteDirectory(t) != 1) fail_tiff(name, "TIFF encoding failed", file);
  TIFFFlush(t);
  return std::move(file.output);
}

}  // namespace parfilter::io

#endif  // PARFILTER_HAVE_TIFF
