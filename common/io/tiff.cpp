// TIFF through libtiff, in memory (client procedures over the file's bytes): 8- and 16-bit
// unsigned gray, gray+alpha, RGB and RGBA; strips or tiles; contiguous or planar; either byte
// order; classic or BigTIFF; every compression this libtiff decodes. libtiff's messages go to
// the error that names the file, never to stderr. docs/IO.md lists the choices.
#ifdef PARFILTER_HAVE_TIFF

#include <tiffio.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "codecs.hpp"
#include "parfilter/error.hpp"
#include "tiff_layout.hpp"
#include "tiff_strips.hpp"

namespace parfilter::io {
namespace {

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
Tiff open_tiff(MemoryFile& file, const char* mode, const std::string& name,
               std::uint64_t max_alloc) {
  return open_tiff_client(name, mode, &file,
                          TiffProcs{read_proc, write_proc, seek_proc, close_proc, size_proc},
                          file.error, max_alloc);
}

template <typename Sample>
void read_pixels(TIFF* tif, const Layout& layout, const std::string& name, const MemoryFile& file,
                 const LoadOptions& options, Image& image) {
  const Blocks blocks = read_blocks(
      tif, layout, name, file.error,
      std::min<std::uint64_t>(options.max_bytes, image.size_bytes() + kTiffBlockMarginBytes));
  std::vector<Sample> block(static_cast<std::size_t>(blocks.bytes) / sizeof(Sample) + 1);
  const BasicImageView<Sample> out = image.view_of<Sample>();
  int done = 0;
  for (int plane = 0; plane < blocks.planes; ++plane) {
    for (std::uint32_t y = 0; y < layout.height; y += blocks.height) {
      for (std::uint32_t x = 0; x < layout.width; x += blocks.width) {
        if (!read_block(tif, blocks, x, y, plane, block.data())) {
          fail_tiff(name, "corrupt or truncated TIFF", file.error);
        }
        place(layout, block.data(), blocks.width, x, y, blocks.height, plane, out);
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
  if (!tif) fail_tiff(name, "corrupt or truncated TIFF", file.error);
  const Layout layout = read_layout(tif.get(), name, file.error);
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

template <typename Sample>
void write_rows(TIFF* tif, const Image& image, const std::string& name, MemoryFile& file,
                const SaveOptions& options) {
  const BasicImageView<const Sample> in = image.view_of<Sample>();
  std::vector<Sample> row(static_cast<std::size_t>(in.row_samples()));
  for (int y = 0; y < image.height(); ++y) {
    // TIFFWriteScanline may change its buffer in place (the predictor): a copy of the row.
    std::copy_n(in.row(y), row.size(), row.data());
    if (TIFFWriteScanline(tif, row.data(), static_cast<std::uint32_t>(y), 0) != 1) {
      fail_tiff(name, "TIFF encoding failed", file.error);
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
    compressed[strip] = deflate_tiff_strip(
        image, first, std::min(rows_per_strip, image.height() - first), options.tiff_level);
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
      fail_tiff(name, "TIFF encoding failed", file.error);
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
  const StreamShape shape{image.width(), image.height(), image.channels(), image.depth()};
  const Tiff tif = open_tiff(file, is_big_tiff(shape) ? "w8" : "w", name, 0);
  if (!tif) fail_tiff(name, "cannot start a TIFF", file.error);
  TIFF* t = tif.get();
  set_tiff_tags(t, shape, options.tiff_compression, options.tiff_level);
#ifdef PARFILTER_HAVE_ZLIB
  if (options.tiff_compression == TiffCompression::deflate) {
    write_deflated_strips(t, image, name, file, options);
    if (TIFFWriteDirectory(t) != 1) fail_tiff(name, "TIFF encoding failed", file.error);
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
  if (TIFFWriteDirectory(t) != 1) fail_tiff(name, "TIFF encoding failed", file.error);
  TIFFFlush(t);
  return std::move(file.output);
}

}  // namespace parfilter::io

#endif  // PARFILTER_HAVE_TIFF
