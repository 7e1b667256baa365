// PNG decoding with libspng: it checks every chunk's CRC and the zlib stream. What parfilter
// adds is the size limit from IHDR and the chunk walk of the stb path (stb_checks.hpp: every
// chunk present, enough IDAT data for the pixels) before any pixel buffer exists, limits on
// ancillary chunks (metadata cannot exhaust memory), 16-bit PNGs as 16-bit images, and a
// checkpoint every few rows.
#ifdef PARFILTER_HAVE_SPNG

#include <spng.h>

#include <algorithm>
#include <cstdint>
#include <new>
#include <string>

#include "codecs.hpp"
#include "png_spng.hpp"
#include "stb_checks.hpp"

namespace parfilter::io {

Context new_png_context() {
  Context ctx(spng_ctx_new(0));
  if (!ctx) throw std::bad_alloc();
  spng_set_image_limits(ctx.get(), static_cast<std::uint32_t>(kMaxImageDimension),
                        static_cast<std::uint32_t>(kMaxImageDimension));
  spng_set_chunk_limits(ctx.get(), kPngMaxMetadataBytes, kPngMaxMetadataBytes);
  return ctx;
}

void fail_spng(const std::string& name, const char* what, int error) {
  fail(name, std::string(what) + " (libspng: " + spng_strerror(error) + ")");
}

PngTarget target_for(const spng_ihdr& ihdr, bool has_trns) {
  const bool wide = ihdr.bit_depth == kPngWideBitDepth;
  const PngTarget rgba =
      wide ? PngTarget{SPNG_FMT_RGBA16, 4, Depth::u16} : PngTarget{SPNG_FMT_RGBA8, 4};
  switch (ihdr.color_type) {
    case SPNG_COLOR_TYPE_GRAYSCALE:
      if (has_trns) return rgba;
      return wide ? PngTarget{SPNG_FMT_PNG, 1, Depth::u16} : PngTarget{SPNG_FMT_G8, 1};
    case SPNG_COLOR_TYPE_TRUECOLOR:
      if (has_trns) return rgba;
      return wide ? PngTarget{SPNG_FMT_PNG, 3, Depth::u16} : PngTarget{SPNG_FMT_RGB8, 3};
    case SPNG_COLOR_TYPE_INDEXED:
      return has_trns ? PngTarget{SPNG_FMT_RGBA8, 4} : PngTarget{SPNG_FMT_RGB8, 3};
    default:  // gray + alpha, RGBA: Image has no 2-channel form
      return rgba;
  }
}

PngTarget read_png_header(spng_ctx* ctx, const std::string& name, const LoadOptions& options,
                          spng_ihdr& ihdr, std::uint64_t held_rows,
                          const std::function<void()>& before_trns) {
  if (const int error = spng_get_ihdr(ctx, &ihdr)) {
    fail_spng(name, "corrupt or truncated PNG header", error);
  }
  // The limit from IHDR alone (a tRNS chunk further on may add alpha: checked again below).
  // libspng refuses sides over kMaxImageDimension (new_png_context): only the bytes held.
  const auto check = [&](const PngTarget& target) {
    check_image_size(name, ihdr.width, std::min<std::uint64_t>(ihdr.height, held_rows),
                     target.channels, options.max_bytes, target.depth);
  };
  check(target_for(ihdr, false));
  if (before_trns) before_trns();
  spng_trns trns{};
  const int trns_error = spng_get_trns(ctx, &trns);
  if (trns_error != 0 && trns_error != SPNG_ECHUNKAVAIL) fail_spng(name, "corrupt PNG", trns_error);
  const PngTarget target = target_for(ihdr, trns_error == 0);
  check(target);
  return target;
}

void start_png_decode(spng_ctx* ctx, const PngTarget& target, const std::string& name) {
  const int flags = SPNG_DECODE_PROGRESSIVE | (target.channels == 4 ? SPNG_DECODE_TRNS : 0);
  if (const int error = spng_decode_image(ctx, nullptr, 0, target.format, flags)) {
    fail_spng(name, "corrupt PNG", error);
  }
}

Image decode_png_spng(std::span<const std::uint8_t> bytes, const std::string& name,
                      const LoadOptions& options) {
  const Context ctx = new_png_context();
  spng_set_png_buffer(ctx.get(), bytes.data(), bytes.size());
  spng_ihdr ihdr{};
  // The chunk walk before tRNS: every chunk in the file, IEND present, enough IDAT data for
  // the pixels, before an image-sized buffer exists (an interlaced image's is cleared at once).
  const PngTarget target = read_png_header(ctx.get(), name, options, ihdr, UINT64_MAX, [&] {
    PngInfo info;
    if (auto cause = parse_png(bytes, info)) fail(name, *cause);
    if (info.incomplete) fail(name, *info.incomplete);
  });

  Image image =
      decoder_image(static_cast<int>(ihdr.width), static_cast<int>(ihdr.height), target.channels,
                    options.allocator, options.map_pages_first, target.depth);
  start_png_decode(ctx.get(), target, name);
  const bool interlaced = ihdr.interlace_method != SPNG_INTERLACE_NONE;
  // libspng writes each pass of an interlaced image into the rows it covers, so those rows
  // must keep their earlier passes: the image starts cleared.
  const std::size_t row_bytes =
      static_cast<std::size_t>(image.stride()) * bytes_per_sample(image.depth());
  if (interlaced) std::fill_n(image.bytes(), image.size_bytes(), 0);
  for (int decoded = 0;; ++decoded) {
    spng_row_info row{};
    int error = spng_get_row_info(ctx.get(), &row);
    if (error == 0) {
      error = spng_decode_row(ctx.get(), image.bytes() + row.row_num * row_bytes, row_bytes);
    }
    if (error == SPNG_EOI) break;
    if (error != 0) fail_spng(name, "corrupt or truncated PNG", error);
    checkpoint_every(options.checkpoint, decoded);
  }
  return image;
}

}  // namespace parfilter::io

#endif  // PARFILTER_HAVE_SPNG
