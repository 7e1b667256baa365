#include "support/tiff_files.hpp"

#include <algorithm>

#ifdef PARFILTER_HAVE_TIFF
#include <tiffio.h>
#endif

namespace parfilter::test {

std::vector<TiffLayout> tiff_layouts() {
  constexpr std::uint16_t kNone = 1;
  constexpr std::uint16_t kLzw = 5;
  constexpr std::uint16_t kDeflate = 8;
  constexpr std::uint16_t kPackBits = 32773;
  std::vector<TiffLayout> layouts = {
      {.name = "strips"},
      {.name = "one_strip", .rows_per_strip = 1U << 20},
      {.name = "tiles", .tiled = true},
      {.name = "planar_strips", .planar = true},
      {.name = "planar_tiles", .tiled = true, .planar = true},
      {.name = "big_endian", .big_endian = true},
      {.name = "big_endian_tiles_lzw", .tiled = true, .big_endian = true, .compression = kLzw,
       .predictor = true},
      {.name = "bigtiff", .big_tiff = true},
      {.name = "lzw_predictor", .compression = kLzw, .predictor = true},
      {.name = "deflate_predictor", .compression = kDeflate, .predictor = true},
      {.name = "deflate_planar", .planar = true, .compression = kDeflate},
      {.name = "packbits", .compression = kPackBits},
      {.name = "uncompressed_pages", .compression = kNone, .pages = 3},
  };
#ifdef PARFILTER_HAVE_TIFF
  if (TIFFIsCODECConfigured(COMPRESSION_ZSTD) != 0) {
    layouts.push_back({.name = "zstd", .compression = COMPRESSION_ZSTD});
  }
#endif
  return layouts;
}

#ifdef PARFILTER_HAVE_TIFF
namespace {

constexpr std::uint32_t kTile = 16;

void write_page(TIFF* tif, const Image& image, const TiffLayout& layout) {
  const int samples = layout.gray_alpha ? 2 : image.channels();
  const int bits = bits_of(image.depth());
  const std::size_t bytes = bytes_per_sample(image.depth());
  TIFFSetField(tif, TIFFTAG_IMAGEWIDTH, static_cast<std::uint32_t>(image.width()));
  TIFFSetField(tif, TIFFTAG_IMAGELENGTH, static_cast<std::uint32_t>(image.height()));
  TIFFSetField(tif, TIFFTAG_SAMPLESPERPIXEL, static_cast<std::uint16_t>(samples));
  TIFFSetField(tif, TIFFTAG_BITSPERSAMPLE, static_cast<std::uint16_t>(bits));
  TIFFSetField(tif, TIFFTAG_PHOTOMETRIC, samples >= 3 ? PHOTOMETRIC_RGB : PHOTOMETRIC_MINISBLACK);
  TIFFSetField(tif, TIFFTAG_PLANARCONFIG,
               layout.planar ? PLANARCONFIG_SEPARATE : PLANARCONFIG_CONTIG);
  if (samples == 2 || samples == 4) {
    const std::uint16_t alpha = EXTRASAMPLE_UNASSALPHA;
    TIFFSetField(tif, TIFFTAG_EXTRASAMPLES, 1, &alpha);
  }
  TIFFSetField(tif, TIFFTAG_COMPRESSION, layout.compression);
  if (layout.predictor) TIFFSetField(tif, TIFFTAG_PREDICTOR, PREDICTOR_HORIZONTAL);
  // The file's own samples: planes or interleaved, gray+alpha from red and alpha.
  const auto value = [&](int x, int y, int s) {
    const int c = layout.gray_alpha && s == 1 ? 3 : s;
    return image.sample(x, y, c);
  };
  const auto put = [&](std::vector<std::uint8_t>& buffer, std::size_t index, int v) {
    if (bytes == 1) {
      buffer[index] = static_cast<std::uint8_t>(v);
    } else {
      const auto word = static_cast<std::uint16_t>(v);
      std::copy_n(reinterpret_cast<const std::uint8_t*>(&word), 2, &buffer[2 * index]);
    }
  };
  const int planes = layout.planar ? samples : 1;
  const int per_pixel = layout.planar ? 1 : samples;
  const std::uint32_t block_w = layout.tiled ? kTile : static_cast<std::uint32_t>(image.width());
  const std::uint32_t block_h =
      layout.tiled ? kTile
                   : std::min<std::uint32_t>(layout.rows_per_strip,
                                             static_cast<std::uint32_t>(image.height()));
  if (layout.tiled) {
    TIFFSetField(tif, TIFFTAG_TILEWIDTH, kTile);
    TIFFSetField(tif, TIFFTAG_TILELENGTH, kTile);
  } else {
    TIFFSetField(tif, TIFFTAG_ROWSPERSTRIP, block_h);
  }
  std::vector<std::uint8_t> block(static_cast<std::size_t>(block_w) * block_h * per_pixel * bytes);
  for (int plane = 0; plane < planes; ++plane) {
    for (std::uint32_t y0 = 0; y0 < static_cast<std::uint32_t>(image.height()); y0 += block_h) {
      for (std::uint32_t x0 = 0; x0 < static_cast<std::uint32_t>(image.width()); x0 += block_w) {
        std::fill(block.begin(), block.end(), 0);
        const std::uint32_t rows =
            std::min(block_h, static_cast<std::uint32_t>(image.height()) - y0);
        for (std::uint32_t r = 0; r < rows; ++r) {
          for (std::uint32_t x = 0; x < block_w && x0 + x < static_cast<std::uint32_t>(image.width());
               ++x) {
            for (int s = 0; s < per_pixel; ++s) {
              put(block, (static_cast<std::size_t>(r) * block_w + x) * per_pixel + s,
                  value(static_cast<int>(x0 + x), static_cast<int>(y0 + r),
                        layout.planar ? plane : s));
            }
          }
        }
        const auto sample = static_cast<std::uint16_t>(plane);
        if (layout.tiled) {
          TIFFWriteTile(tif, block.data(), x0, y0, 0, sample);
        } else {
          TIFFWriteEncodedStrip(tif, TIFFComputeStrip(tif, y0, sample), block.data(),
                                static_cast<tmsize_t>(static_cast<std::size_t>(block_w) * rows *
                                                      per_pixel * bytes));
        }
      }
    }
  }
  TIFFWriteDirectory(tif);
}

}  // namespace

bool write_tiff(const std::filesystem::path& path, const Image& image, const TiffLayout& layout) {
  std::string mode = "w";
  mode += layout.big_endian ? "b" : "l";
  if (layout.big_tiff) mode += "8";
  TIFF* tif = TIFFOpen(path.c_str(), mode.c_str());
  if (tif == nullptr) return false;
  for (int page = 0; page < layout.pages; ++page) write_page(tif, image, layout);
  TIFFClose(tif);
  return true;
}
#else
bool write_tiff(const std::filesystem::path& /*path*/, const Image& /*image*/,
                const TiffLayout& /*layout*/) {
  return false;
}
#endif

std::vector<std::uint8_t> raw_tiff(const std::vector<RawTag>& tags,
                                   const std::vector<std::uint8_t>& pixels) {
  std::vector<std::uint8_t> out = {'I', 'I', 42, 0};
  const auto u16 = [&](std::uint32_t v) {
    out.push_back(static_cast<std::uint8_t>(v));
    out.push_back(static_cast<std::uint8_t>(v >> 8));
  };
  const auto u32 = [&](std::uint32_t v) {
    u16(v & 0xffffU);
    u16(v >> 16);
  };
  constexpr std::uint32_t kHeaderBytes = 8;
  u32(kHeaderBytes + static_cast<std::uint32_t>(pixels.size()));
  out.insert(out.end(), pixels.begin(), pixels.end());
  std::vector<RawTag> sorted = tags;
  std::sort(sorted.begin(), sorted.end(), [](const RawTag& a, const RawTag& b) {
    return a.tag < b.tag;
  });
  u16(static_cast<std::uint32_t>(sorted.size()));
  constexpr std::uint32_t kEntryBytes = 12;
  // Arrays follow the IFD (its count, entries and next-IFD offset).
  auto array_at = static_cast<std::uint32_t>(out.size() + sorted.size() * kEntryBytes + 4);
  for (const RawTag& t : sorted) {
    u16(t.tag);
    u16(t.type);
    if (!t.shorts.empty()) {
      u32(static_cast<std::uint32_t>(t.shorts.size()));
      u32(array_at);
      array_at += static_cast<std::uint32_t>(t.shorts.size() * 2);
      continue;
    }
    u32(1);
    if (t.type == 3) {
      u16(t.value);
      u16(0);
    } else {
      u32(t.value);
    }
  }
  u32(0);
  for (const RawTag& t : sorted) {
    for (const std::uint16_t v : t.shorts) u16(v);
  }
  return out;
}

}  // namespace parfilter::test
