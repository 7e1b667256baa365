// PNG decoding with libspng: it checks every chunk's CRC and the zlib stream. What parfilter
// adds is the size limit from IHDR and the chunk walk of the stb path (stb_checks.hpp: every
// chunk present, enough IDAT data for the pixels) before any pixel buffer exists, limits on
// ancillary chunks (metadata cannot exhaust memory), 16-bit PNGs as 16-bit images, and a
// checkpoint every few rows.
#ifdef PARFILTER_HAVE_SPNG

#include <spng.h>

#include <cstdint>
#include <memory>
#include <new>
#include <vector>

#include "codecs.hpp"
#include "stb_checks.hpp"

namespace parfilter::io {
namespace {

/// Room for ancillary chunks (ICC profiles, text), as in check_file_size.
constexpr std::size_t kMaxMetadataBytes = std::size_t{64} << 20;
constexpr int kSixteenBits = 16;

struct ContextDeleter {
  void operator()(spng_ctx* ctx) const { spng_ctx_free(ctx); }
};
using Context = std::unique_ptr<spng_ctx, ContextDeleter>;

[[noreturn]] void fail_spng(const std::string& name, const char* what, int error) {
  fail(name, std::string(what) + " (libspng: " + spng_strerror(error) + ")");
}

/// How an image of this IHDR is decoded: libspng's output format, parfilter's channels and
/// depth. 16-bit PNGs stay 16-bit (host-endian samples).
struct Target {
  int format = SPNG_FMT_RGB8;
  int channels = 3;
  Depth depth = Depth::u8;
};

Target target_for(const spng_ihdr& ihdr, bool has_trns) {
  const bool wide = ihdr.bit_depth == kSixteenBits;
  const Target rgba = wide ? Target{SPNG_FMT_RGBA16, 4, Depth::u16} : Target{SPNG_FMT_RGBA8, 4};
  switch (ihdr.color_type) {
    case SPNG_COLOR_TYPE_GRAYSCALE:
      if (has_trns) return rgba;
      return wide ? Target{SPNG_FMT_PNG, 1, Depth::u16} : Target{SPNG_FMT_G8, 1};
    case SPNG_COLOR_TYPE_TRUECOLOR:
      if (has_trns) return rgba;
      return wide ? Target{SPNG_FMT_PNG, 3, Depth::u16} : Target{SPNG_FMT_RGB8, 3};
    case SPNG_COLOR_TYPE_INDEXED:
      return has_trns ? Target{SPNG_FMT_RGBA8, 4} : Target{SPNG_FMT_RGB8, 3};
    default:  // gray + alpha, RGBA: Image has no 2-channel form
      return rgba;
  }
}

}  // namespace

Image decode_png_spng(std::span<const std::uint8_t> bytes, const std::string& name,
                      const LoadOptions& options) {
  const Context ctx(spng_ctx_new(0));
  if (!ctx) throw std::bad_alloc();
  spng_set_image_limits(ctx.get(), static_cast<std::uint32_t>(kMaxImageDimension),
                        static_cast<std::uint32_t>(kMaxImageDimension));
  spng_set_chunk_limits(ctx.get(), kMaxMetadataBytes, kMaxMetadataBytes);
  spng_set_png_buffer(ctx.get(), bytes.data(), bytes.size());

  spng_ihdr ihdr{};
  if (const int error = spng_get_ihdr(ctx.get(), &ihdr)) {
    fail_spng(name, "corrupt or truncated PNG header", error);
  }
  // The limit from IHDR alone (a tRNS chunk further on may add alpha: checked again below),
  // then the chunk walk: every chunk in the file, IEND present, enough IDAT data for the
  // pixels, before an image-sized buffer exists (an interlaced image's is cleared at once).
  const Target untransparent = target_for(ihdr, false);
  check_image_size(name, ihdr.width, ihdr.height, untransparent.channels, options.max_bytes,
                   untransparent.depth);
  PngInfo info;
  if (auto cause = parse_png(bytes, info)) fail(name, *cause);
  if (info.incomplete) fail(name, *info.incomplete);
  spng_trns trns{};
  const int trns_error = spng_get_trns(ctx.get(), &trns);
  if (trns_error != 0 && trns_error != SPNG_ECHUNKAVAIL) {
    fail_spng(name, "corrupt PNG", trns_error);
  }
  const Target target = target_for(ihdr, trns_error == 0);
  check_image_size(name, ihdr.width, ihdr.height, target.channels, options.max_bytes,
                   target.depth);

  Image image = decoder_image(static_cast<int>(ihdr.width), static_cast<int>(ihdr.height),
                              target.channels, options.allocator, options.map_pages_first,
                              target.depth);
  const int flags = SPNG_DECODE_PROGRESSIVE | (target.channels == 4 ? SPNG_DECODE_TRNS : 0);
  if (const int error = spng_decode_image(ctx.get(), nullptr, 0, target.format, flags)) {
    fail_spng(name, "corrupt PNG", error);
  }
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
