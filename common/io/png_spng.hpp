// Internal to png_spng.cpp (whole images) and png_stream.cpp (rows): the libspng context and
// the checks both PNG decoders make, so that a streamed PNG decodes exactly as a whole one.
#pragma once
#ifdef PARFILTER_HAVE_SPNG

#include <spng.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "parfilter/image.hpp"
#include "parfilter/image_io.hpp"

namespace parfilter::io {

/// Room for ancillary chunks (ICC profiles, text), as in check_file_size.
inline constexpr std::size_t kPngMaxMetadataBytes = std::size_t{64} << 20;
inline constexpr int kPngWideBitDepth = 16;

struct ContextDeleter {
  void operator()(spng_ctx* ctx) const { spng_ctx_free(ctx); }
};
using Context = std::unique_ptr<spng_ctx, ContextDeleter>;

/// A decoding context with parfilter's limits on the image's sides and on chunks.
[[nodiscard]] Context new_png_context();

/// InputError naming the file, with libspng's message for `error`.
[[noreturn]] void fail_spng(const std::string& name, const char* what, int error);

/// How an image of this IHDR is decoded: libspng's output format, parfilter's channels and
/// depth. 16-bit PNGs stay 16-bit (host-endian samples).
struct PngTarget {
  int format = SPNG_FMT_RGB8;
  int channels = 3;
  Depth depth = Depth::u8;
};
[[nodiscard]] PngTarget target_for(const spng_ihdr& ihdr, bool has_trns);

/// Reads IHDR into `ihdr` and the chunks before the first IDAT, and checks that `held_rows`
/// rows of the decoded image fit options.max_bytes: from IHDR alone, then again once tRNS
/// (which may add alpha) is known. `before_trns`, if any, runs between the two (the whole-file
/// chunk walk).
[[nodiscard]] PngTarget read_png_header(spng_ctx* ctx, const std::string& name,
                                        const LoadOptions& options, spng_ihdr& ihdr,
                                        std::uint64_t held_rows,
                                        const std::function<void()>& before_trns = {});

/// Starts a progressive decode to `target` (rows then come from spng_decode_row).
void start_png_decode(spng_ctx* ctx, const PngTarget& target, const std::string& name);

}  // namespace parfilter::io

#endif  // PARFILTER_HAVE_SPNG
