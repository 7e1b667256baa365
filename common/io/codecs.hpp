// Internal: the codecs behind image_io.hpp, one entry point per format and path. image_io.cpp
// picks the codec by the file's magic bytes (loading) or the path's extension (saving).
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "parfilter/image.hpp"
#include "parfilter/image_io.hpp"

namespace parfilter::io {

class InputFile;  // file_io.hpp

/// The largest width or height any decoder accepts. The byte limit of LoadOptions is checked
/// separately.
inline constexpr std::int64_t kMaxImageDimension = std::int64_t{1} << 24;

/// Which implementation decodes and encodes PNG and JPEG: the fast ones where this build has
/// them, or stb_image (the fallback, also reachable in a full build for its tests).
enum class CodecPath { fast, stb };

/// Whether this build has the fast PNG decoder (libspng), the banded PNG encoder (zlib) and
/// the JPEG codec (libjpeg-turbo).
[[nodiscard]] bool have_fast_png_decoder();
[[nodiscard]] bool have_fast_png_encoder();
[[nodiscard]] bool have_fast_jpeg();

/// Where an encoder puts its bytes, in order, piece by piece (a BMP's rows, a PNG's chunks):
/// an output file, or a buffer.
using ByteSink = std::function<void(std::span<const std::uint8_t>)>;

/// load_image_from_memory and encode_image with the codec path chosen; this encode_image
/// writes into `sink`.
[[nodiscard]] Image decode_image(std::span<const std::uint8_t> bytes, const std::string& name,
                                 const LoadOptions& options, CodecPath path);
void encode_image(const ConstImageView& image, ImageFormat format, const SaveOptions& options,
                  const std::string& name, CodecPath path, const ByteSink& sink);
/// The same into a buffer.
[[nodiscard]] std::vector<std::uint8_t> encode_image(const ConstImageView& image,
                                                     ImageFormat format, const SaveOptions& options,
                                                     const std::string& name, CodecPath path);

/// A file's container by its magic bytes (the first kMagicBytes are enough); TGA has none and
/// is left to stb's probe (unknown). InputError for a format parfilter refuses (ASCII PNM,
/// GIF, ...) and for TIFF in a build without libtiff.
enum class Container { bmp, png, jpeg, pnm, tiff, unknown };
inline constexpr std::size_t kMagicBytes = 16;
[[nodiscard]] Container detect_container(std::span<const std::uint8_t> bytes,
                                         const std::string& name);

/// Throws InputError("<name>: <cause>").
[[noreturn]] void fail(const std::string& name, const std::string& cause);

/// Refuses a zero or negative dimension, a side over kMaxImageDimension and a decoded buffer
/// over `max_bytes`, before anything is allocated.
void check_image_size(const std::string& name, std::int64_t width, std::int64_t height,
                      int channels, std::uint64_t max_bytes, Depth depth = Depth::u8);

/// The image a decoder fills: Image::uninitialized from `allocator`, its pages mapped at once
/// where LoadOptions::map_pages_first asks for it (detail::prefault_samples).
[[nodiscard]] Image decoder_image(int width, int height, int channels,
                                  std::shared_ptr<SampleAllocator> allocator, bool map_pages_first,
                                  Depth depth = Depth::u8);

/// Calls the checkpoint, if any, once every `kCheckpointRows` rows.
inline constexpr int kCheckpointRows = 64;
inline void checkpoint_every(const Checkpoint& checkpoint, int row) {
  if (checkpoint && row % kCheckpointRows == 0) checkpoint();
}

// ---- one entry point per format ----
[[nodiscard]] Image decode_png_spng(std::span<const std::uint8_t> bytes, const std::string& name,
                                    const LoadOptions& options);
void encode_png_banded(const ConstImageView& image, const SaveOptions& options,
                       const ByteSink& sink);
/// A 16-bit PNG from the same encoder.
void encode_png_banded(const ConstImageView16& image, const SaveOptions& options,
                       const ByteSink& sink);

[[nodiscard]] Image decode_jpeg_turbo(std::span<const std::uint8_t> bytes, const std::string& name,
                                      const LoadOptions& options);
[[nodiscard]] std::vector<std::uint8_t> encode_jpeg_turbo(const ConstImageView& image,
                                                          const SaveOptions& options,
                                                          const std::string& name);

[[nodiscard]] Image decode_bmp_file(std::span<const std::uint8_t> bytes, const std::string& name,
                                    const LoadOptions& options);
/// An uncompressed BMP of a common layout read row chunk by row chunk straight into the image
/// (no copy of the whole file); nullopt for anything else, which the whole-file path decodes.
[[nodiscard]] std::optional<Image> load_bmp_rows(const InputFile& file, const LoadOptions& options);
void encode_bmp(const ConstImageView& image, const ByteSink& sink);

[[nodiscard]] Image decode_pnm_file(std::span<const std::uint8_t> bytes, const std::string& name,
                                    const LoadOptions& options);
/// P5 (gray) or P6 (RGB), maxval 255 or 65535 by the image's depth.
void encode_pnm(const Image& image, const std::string& name, const ByteSink& sink);

/// Whether this build reads and writes TIFF (libtiff).
[[nodiscard]] bool have_tiff();
[[nodiscard]] Image decode_tiff(std::span<const std::uint8_t> bytes, const std::string& name,
                                const LoadOptions& options);
[[nodiscard]] std::vector<std::uint8_t> encode_tiff(const Image& image, const SaveOptions& options,
                                                    const std::string& name);

/// stb_image: TGA always, PNG and JPEG on the fallback path. `container` names the format in
/// messages ("PNG", "JPEG", or "" for a file without magic bytes, probed as TGA).
[[nodiscard]] Image decode_with_stb(std::span<const std::uint8_t> bytes, const std::string& name,
                                    const LoadOptions& options, const std::string& container);
[[nodiscard]] std::vector<std::uint8_t> encode_with_stb(const ConstImageView& image,
                                                        ImageFormat format,
                                                        const SaveOptions& options,
                                                        const std::string& name);

}  // namespace parfilter::io
