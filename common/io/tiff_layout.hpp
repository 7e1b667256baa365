// Internal to tiff.cpp (whole images in memory) and tiff_stream.cpp (rows from and to files):
// what both TIFF paths share, so that a streamed file reads and writes exactly as a whole one.
// libtiff's messages go to the error that names the file, never to stderr.
#pragma once
#ifdef PARFILTER_HAVE_TIFF

#include <tiffio.h>

#include <algorithm>
#include <cstdint>
#include <memory>
#include <string>

#include "parfilter/image.hpp"
#include "parfilter/image_io.hpp"
#include "parfilter/row_stream.hpp"

namespace parfilter::io {

inline constexpr int kTiffGrayAlphaSamples = 2;
inline constexpr int kTiffRgbSamples = 3;
inline constexpr int kTiffRgbaSamples = 4;
/// How far a strip or tile may overhang the image: a hostile tile size cannot make a tiny
/// image allocate gigabytes.
inline constexpr std::uint64_t kTiffBlockMarginBytes = std::uint64_t{64} << 20;
/// Classic TIFF's offsets are 32-bit: anything near 4 GiB is written as BigTIFF.
inline constexpr std::uint64_t kBigTiffFrom = (std::uint64_t{1} << 32) - (std::uint64_t{1} << 26);

struct TiffCloser {
  void operator()(TIFF* tif) const { TIFFClose(tif); }
};
using Tiff = std::unique_ptr<TIFF, TiffCloser>;

/// The client procedures libtiff reads and writes a file through.
struct TiffProcs {
  TIFFReadWriteProc read;
  TIFFReadWriteProc write;
  TIFFSeekProc seek;
  TIFFCloseProc close;
  TIFFSizeProc size;
};

/// Opens `handle` through `procs`; libtiff's first error message goes to `error` (one line),
/// its warnings nowhere. `max_alloc` bounds each of libtiff's allocations (0: no bound).
[[nodiscard]] Tiff open_tiff_client(const std::string& name, const char* mode, thandle_t handle,
                                    const TiffProcs& procs, std::string& error,
                                    std::uint64_t max_alloc);

/// InputError naming the file, with libtiff's message when it gave one.
[[noreturn]] void fail_tiff(const std::string& name, const std::string& what,
                            const std::string& error);

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

[[nodiscard]] Layout read_layout(TIFF* tif, const std::string& name, const std::string& error);

/// How the file's pixels are cut: strips (a block is `block_height` full rows) or tiles.
struct Blocks {
  bool tiled = false;
  std::uint32_t width = 0;   ///< of a block, in pixels
  std::uint32_t height = 0;  ///< of a block, in rows
  std::uint64_t bytes = 0;   ///< of one decoded block
  int planes = 1;            ///< planar files: one block per sample
};

/// The blocks of `tif`, checked: every block holds its pixels, and none is larger than
/// `most_bytes` (the caller's bound: a tile size cannot make a tiny image allocate gigabytes).
[[nodiscard]] Blocks read_blocks(TIFF* tif, const Layout& layout, const std::string& name,
                                 const std::string& error, std::uint64_t most_bytes);

/// Decodes the block at (x, y) of `plane` into `block` (Blocks::bytes); false on an error.
[[nodiscard]] bool read_block(TIFF* tif, const Blocks& blocks, std::uint32_t x, std::uint32_t y,
                              int plane, void* block);

/// Copies decoded samples of a strip or tile into `out`, whose rows are addressed by their
/// index in the image: `block` holds rows [y0, y0 + rows) and columns [x0, x0 + block_width)
/// of one plane (planar) or all samples. Rows past the image's end are skipped.
template <typename Sample>
void place(const Layout& layout, const Sample* block, std::uint32_t block_width, std::uint32_t x0,
           std::uint32_t y0, std::uint32_t rows, int plane, const BasicImageView<Sample>& out) {
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
        if (layout.samples == kTiffGrayAlphaSamples) {
          // gray+alpha: gray to r, g and b, alpha last.
          if (sample == 0) {
            pixel[0] = pixel[1] = pixel[2] = v;
          } else {
            pixel[kTiffRgbSamples] = v;
          }
        } else {
          pixel[sample] = v;
        }
      }
    }
  }
}

[[nodiscard]] std::uint16_t compression_tag(TiffCompression compression);

/// The tags parfilter writes for an image of `shape` (all but the rows per strip), and
/// whether it is written as BigTIFF.
void set_tiff_tags(TIFF* tif, const StreamShape& shape, TiffCompression compression,
                   int deflate_level);
[[nodiscard]] inline bool is_big_tiff(const StreamShape& shape) {
  return shape.image_bytes() >= kBigTiffFrom;
}

}  // namespace parfilter::io

#endif  // PARFILTER_HAVE_TIFF
