// The TIFF pieces both paths share (tiff_layout.hpp): opening through client procedures with
// libtiff's messages caught, the layout and block checks, and the tags parfilter writes.
#ifdef PARFILTER_HAVE_TIFF

#include "tiff_layout.hpp"

#include <array>
#include <cstdarg>
#include <cstdio>
#include <string_view>

#include "codecs.hpp"
#include "tiff_strips.hpp"

namespace parfilter::io {
namespace {

constexpr std::size_t kMessageBytes = 512;

int map_proc(thandle_t /*handle*/, void** /*base*/, toff_t* /*size*/) { return 0; }
void unmap_proc(thandle_t /*handle*/, void* /*base*/, toff_t /*size*/) {}

int on_error(TIFF* /*tif*/, void* user_data, const char* /*module*/, const char* format,
             va_list args) {
  auto& error = *static_cast<std::string*>(user_data);
  if (error.empty()) {
    std::array<char, kMessageBytes> message{};
    std::vsnprintf(message.data(), message.size(), format, args);
    // libtiff's messages may span lines (and quote the file's bytes); the error is one line.
    constexpr unsigned char kFirstPrintable = 0x20;
    for (const char c : std::string_view(message.data())) {
      const bool space = static_cast<unsigned char>(c) < kFirstPrintable;
      if (space && (error.empty() || error.back() == ' ')) continue;
      error += space ? ' ' : c;
    }
    while (!error.empty() && error.back() == ' ') error.pop_back();
  }
  return 1;  // handled: nothing on stderr
}

int on_warning(TIFF* /*tif*/, void* /*user_data*/, const char* /*module*/, const char* /*format*/,
               va_list /*args*/) {
  return 1;  // unknown tags and the like: not the user's concern
}

}  // namespace

Tiff open_tiff_client(const std::string& name, const char* mode, thandle_t handle,
                      const TiffProcs& procs, std::string& error, std::uint64_t max_alloc) {
  TIFFOpenOptions* options = TIFFOpenOptionsAlloc();
  TIFFOpenOptionsSetErrorHandlerExtR(options, on_error, &error);
  TIFFOpenOptionsSetWarningHandlerExtR(options, on_warning, &error);
  TIFFOpenOptionsSetMaxSingleMemAlloc(options, static_cast<tmsize_t>(max_alloc));
  TIFF* tif = TIFFClientOpenExt(name.c_str(), mode, handle, procs.read, procs.write, procs.seek,
                                procs.close, procs.size, map_proc, unmap_proc, options);
  TIFFOpenOptionsFree(options);
  return Tiff(tif);
}

void fail_tiff(const std::string& name, const std::string& what, const std::string& error) {
  fail(name, what + (error.empty() ? "" : " (libtiff: " + error + ")"));
}

Layout read_layout(TIFF* tif, const std::string& name, const std::string& error) {
  Layout layout;
  if (TIFFGetField(tif, TIFFTAG_IMAGEWIDTH, &layout.width) != 1 ||
      TIFFGetField(tif, TIFFTAG_IMAGELENGTH, &layout.height) != 1) {
    fail_tiff(name, "corrupt TIFF: no image size", error);
  }
  const auto bits = tag_or<std::uint16_t>(tif, TIFFTAG_BITSPERSAMPLE, 1);
  const auto format = tag_or<std::uint16_t>(tif, TIFFTAG_SAMPLEFORMAT, SAMPLEFORMAT_UINT);
  const auto samples = tag_or<std::uint16_t>(tif, TIFFTAG_SAMPLESPERPIXEL, 1);
  std::uint16_t photometric = 0;
  if (TIFFGetField(tif, TIFFTAG_PHOTOMETRIC, &photometric) != 1) {
    photometric = samples >= kTiffRgbSamples ? PHOTOMETRIC_RGB : PHOTOMETRIC_MINISBLACK;
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
  const bool gray = photometric == PHOTOMETRIC_MINISBLACK && samples <= kTiffGrayAlphaSamples;
  const bool rgb =
      photometric == PHOTOMETRIC_RGB && samples >= kTiffRgbSamples && samples <= kTiffRgbaSamples;
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
  layout.channels = samples == kTiffGrayAlphaSamples ? kTiffRgbaSamples : samples;
  layout.depth = bits == 16 ? Depth::u16 : Depth::u8;
  layout.planar =
      samples > 1 && tag_or<std::uint16_t>(tif, TIFFTAG_PLANARCONFIG, PLANARCONFIG_CONTIG) ==
                         PLANARCONFIG_SEPARATE;
  return layout;
}

Blocks read_blocks(TIFF* tif, const Layout& layout, const std::string& name,
                   const std::string& error, std::uint64_t most_bytes) {
  Blocks blocks;
  blocks.planes = layout.planar ? layout.samples : 1;
  blocks.tiled = TIFFIsTiled(tif) != 0;
  blocks.width = layout.width;
  if (blocks.tiled) {
    if (TIFFGetField(tif, TIFFTAG_TILEWIDTH, &blocks.width) != 1 ||
        TIFFGetField(tif, TIFFTAG_TILELENGTH, &blocks.height) != 1 || blocks.width == 0 ||
        blocks.height == 0) {
      fail_tiff(name, "corrupt TIFF: bad tile size", error);
    }
  } else {
    blocks.height =
        std::min(tag_or<std::uint32_t>(tif, TIFFTAG_ROWSPERSTRIP, layout.height), layout.height);
    if (blocks.height == 0) blocks.height = layout.height;
  }
  const tmsize_t bytes = blocks.tiled ? TIFFTileSize(tif) : TIFFStripSize(tif);
  const std::uint64_t expected = static_cast<std::uint64_t>(blocks.width) * blocks.height *
                                 static_cast<std::uint64_t>(layout.planar ? 1 : layout.samples) *
                                 bytes_per_sample(layout.depth);
  if (bytes <= 0 || static_cast<std::uint64_t>(bytes) < expected ||
      static_cast<std::uint64_t>(bytes) > most_bytes) {
    fail_tiff(name, "corrupt TIFF: bad strip or tile size", error);
  }
  blocks.bytes = static_cast<std::uint64_t>(bytes);
  return blocks;
}

bool read_block(TIFF* tif, const Blocks& blocks, std::uint32_t x, std::uint32_t y, int plane,
                void* block) {
  const auto sample = static_cast<std::uint16_t>(plane);
  const tmsize_t got = blocks.tiled
                           ? TIFFReadTile(tif, block, x, y, 0, sample)
                           : TIFFReadEncodedStrip(tif, TIFFComputeStrip(tif, y, sample), block,
                                                  static_cast<tmsize_t>(blocks.bytes));
  return got >= 0;
}

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

void set_tiff_tags(TIFF* tif, const StreamShape& shape, TiffCompression compression,
                   int deflate_level) {
  const std::uint16_t tag = compression_tag(compression);
  TIFFSetField(tif, TIFFTAG_IMAGEWIDTH, static_cast<std::uint32_t>(shape.width));
  TIFFSetField(tif, TIFFTAG_IMAGELENGTH, static_cast<std::uint32_t>(shape.height));
  TIFFSetField(tif, TIFFTAG_SAMPLESPERPIXEL, static_cast<std::uint16_t>(shape.channels));
  TIFFSetField(tif, TIFFTAG_BITSPERSAMPLE, static_cast<std::uint16_t>(bits_of(shape.depth)));
  TIFFSetField(tif, TIFFTAG_SAMPLEFORMAT, SAMPLEFORMAT_UINT);
  TIFFSetField(tif, TIFFTAG_PLANARCONFIG, PLANARCONFIG_CONTIG);
  TIFFSetField(tif, TIFFTAG_PHOTOMETRIC,
               shape.channels == 1 ? PHOTOMETRIC_MINISBLACK : PHOTOMETRIC_RGB);
  if (shape.channels == kTiffRgbaSamples) {
    const std::uint16_t alpha = EXTRASAMPLE_UNASSALPHA;  // as PNG's alpha
    TIFFSetField(tif, TIFFTAG_EXTRASAMPLES, 1, &alpha);
  }
  TIFFSetField(tif, TIFFTAG_COMPRESSION, tag);
  if (tag == COMPRESSION_LZW || tag == COMPRESSION_ADOBE_DEFLATE) {
    TIFFSetField(tif, TIFFTAG_PREDICTOR, PREDICTOR_HORIZONTAL);
  }
  if (tag == COMPRESSION_ADOBE_DEFLATE) TIFFSetField(tif, TIFFTAG_ZIPQUALITY, deflate_level);
}

}  // namespace parfilter::io

#endif  // PARFILTER_HAVE_TIFF
