// The PNG encoder: row bands compressed independently (each on whichever thread the
// ParallelFor gives it) and joined into one valid zlib stream, as pigz joins deflate blocks.
// No PNG library compresses one image on several threads, hence this file; the container is
// small (IHDR, IDAT, IEND) and zlib does the compressing.
//
// Each band is filtered row by row (the filter with the smallest sum of absolute differences,
// libpng's heuristic), then deflated as a raw stream that ends with a sync flush (byte-aligned,
// not final), the last band with Z_FINISH; the bands' Adler-32 checksums combine into the
// stream's. Bands have a fixed size, so the bytes never depend on the thread count. Each band
// becomes one IDAT chunk whose CRC its own task computes.
#ifdef PARFILTER_HAVE_ZLIB

#include <zlib.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstring>
#include <new>
#include <string_view>
#include <vector>

#include "codecs.hpp"
#include "parfilter/error.hpp"
#include "png_bands.hpp"
#include "png_filters.hpp"

namespace parfilter::io {
namespace {

constexpr std::size_t kBandBytes = std::size_t{512} << 10;   // filtered bytes per band
constexpr std::size_t kWindowBytes = std::size_t{32} << 10;  // deflate's history window
constexpr int kRawDeflateWindowBits = -15;
constexpr int kMemoryLevel = 8;
constexpr int kFastLevel = 1;
constexpr std::array<std::uint8_t, 8> kSignature{0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};
constexpr std::size_t kChunkOverhead = 12;                  // length, type, CRC
constexpr std::uint8_t kCompressionMethodAndWindow = 0x78;  // deflate, 32 KiB window
constexpr int kZlibHeaderCheck = 31;
constexpr int kZlibLevelShift = 6;
constexpr std::uint8_t kColorTypeGray = 0;
constexpr std::uint8_t kColorTypeRgb = 2;
constexpr std::uint8_t kColorTypeRgba = 6;
/// Level 1: a band where at least 3 in 10 filtered bytes end a run of 4 equal bytes (flat
/// areas, graphics, masks) takes run-length coding; others (photographs) take Huffman-only
/// coding, faster and smaller there. Measured on data/, camera photos and blurred noise.
constexpr std::size_t kRunShareNumerator = 3;
constexpr std::size_t kRunShareDenominator = 10;
constexpr std::size_t kRunLength = 4;

/// The bytes that end a run of kRunLength equal bytes. Written with `&` on 0/1 values and a
/// 32-bit count (bands are far below 2^32 bytes) so that the loop vectorizes.
std::size_t count_run_ends(const std::uint8_t* bytes, std::size_t size) {
  static_assert(kRunLength == 4);
  std::uint32_t count = 0;
  for (std::size_t i = kRunLength - 1; i < size; ++i) {
    const auto same = [&](std::size_t at) {
      return static_cast<std::uint32_t>(bytes[at] == bytes[at - 1]);
    };
    count += same(i) & same(i - 1) & same(i - 2);
  }
  return count;
}

void put_u32(std::vector<std::uint8_t>& out, std::uint32_t value) {
  for (int shift = 24; shift >= 0; shift -= 8)
    out.push_back(static_cast<std::uint8_t>(value >> shift));
}

/// Appends a chunk (length, type, data, CRC over type and data).
void put_chunk(std::vector<std::uint8_t>& out, std::string_view type, const std::uint8_t* data,
               std::size_t size) {
  put_u32(out, static_cast<std::uint32_t>(size));
  const std::size_t type_at = out.size();
  out.insert(out.end(), type.begin(), type.end());
  out.insert(out.end(), data, data + size);
  const auto crc = crc32_z(crc32_z(0, nullptr, 0), out.data() + type_at, type.size() + size);
  put_u32(out, static_cast<std::uint32_t>(crc));
}

/// The zlib header's FLEVEL for a level (informative only: inflate ignores it).
std::uint8_t zlib_header_flags(int level) {
  constexpr int kFastestMax = 1;
  constexpr int kFastMax = 5;
  constexpr int kDefault = 6;
  const int flevel = level <= kFastestMax ? 0 : level <= kFastMax ? 1 : level == kDefault ? 2 : 3;
  int flags = flevel << kZlibLevelShift;
  flags += kZlibHeaderCheck - (kCompressionMethodAndWindow * 256 + flags) % kZlibHeaderCheck;
  return static_cast<std::uint8_t>(flags);
}

struct Deflater {
  z_stream stream{};
  explicit Deflater(int level, int strategy) {
    if (deflateInit2(&stream, level, Z_DEFLATED, kRawDeflateWindowBits, kMemoryLevel, strategy) !=
        Z_OK) {
      throw std::bad_alloc();
    }
  }
  Deflater(const Deflater&) = delete;
  Deflater& operator=(const Deflater&) = delete;
  ~Deflater() { deflateEnd(&stream); }
};

/// Row y of the image as PNG stores it: 8-bit rows as they are, 16-bit ones big-endian (into
/// `scratch`).
inline const std::uint8_t* png_row(const ConstImageView& image, int y,
                                   std::vector<std::uint8_t>& /*scratch*/) {
  return image.row(y);
}

inline const std::uint8_t* png_row(const ConstImageView16& image, int y,
                                   std::vector<std::uint8_t>& scratch) {
  constexpr int kBitsPerByte = 8;
  const std::uint16_t* samples = image.row(y);
  scratch.resize(static_cast<std::size_t>(image.row_samples()) * 2);
  for (std::ptrdiff_t i = 0; i < image.row_samples(); ++i) {
    scratch[2 * i] = static_cast<std::uint8_t>(samples[i] >> kBitsPerByte);
    scratch[2 * i + 1] = static_cast<std::uint8_t>(samples[i]);
  }
  return scratch.data();
}

PngBandLayout band_layout(std::ptrdiff_t row_samples, std::size_t sample_bytes, int height,
                          int level) {
  PngBandLayout layout;
  // + the filter byte
  layout.filtered_row_bytes = static_cast<std::size_t>(row_samples) * sample_bytes + 1;
  layout.band_rows =
      static_cast<int>(std::max<std::size_t>(1, kBandBytes / layout.filtered_row_bytes));
  layout.bands = (height + layout.band_rows - 1) / layout.band_rows;
  // The rows before a band that fill deflate's window (levels 2+ look back that far).
  layout.history_rows = level > kFastLevel
                            ? static_cast<int>((kWindowBytes + layout.filtered_row_bytes - 1) /
                                               layout.filtered_row_bytes)
                            : 0;
  return layout;
}

template <typename Sample>
class BandEncoder {
 public:
  /// `image` addresses at least the rows a band's encoding reads (PngBandLayout): the whole
  /// image, or a window of it.
  BandEncoder(const BasicImageView<const Sample>& image, const SaveOptions& options)
      : image_(image),
        level_(options.png_level),
        checkpoint_(options.checkpoint),
        layout_(band_layout(image.row_samples(), sizeof(Sample), image.height(), level_)),
        row_bytes_(layout_.filtered_row_bytes) {}
  [[nodiscard]] int bands() const { return layout_.bands; }

  [[nodiscard]] PngBand encode(int band) const {
    const int first = band * layout_.band_rows;
    const int last = std::min(image_.height(), first + layout_.band_rows);
    const int history = std::min(first, layout_.history_rows);
    std::vector<std::uint8_t> filtered(static_cast<std::size_t>(last - first + history) *
                                       row_bytes_);
    PngRowFilter filter(static_cast<int>(image_.channels() * kSampleBytes),
                        image_.row_samples() * kSampleBytes, level_ > 0);
    std::vector<std::uint8_t> above_scratch;
    std::vector<std::uint8_t> row_scratch;
    const int begin = first - history;
    const std::uint8_t* above = begin > 0 ? png_row(image_, begin - 1, above_scratch) : nullptr;
    for (int y = begin; y < last; ++y) {
      const std::uint8_t* row = png_row(image_, y, row_scratch);
      filter.filter_row(
          row, above, filtered.data() + static_cast<std::size_t>(y - first + history) * row_bytes_);
      // The row becomes the next one's above: its scratch is kept, the other reused.
      std::swap(above_scratch, row_scratch);
      above = row == image_row_bytes(y) ? row : above_scratch.data();
      checkpoint_every(checkpoint_, y - first);
    }
    const std::size_t history_bytes = static_cast<std::size_t>(history) * row_bytes_;
    const std::uint8_t* input = filtered.data() + history_bytes;
    const std::size_t input_bytes = filtered.size() - history_bytes;

    PngBand out;
    out.filtered_bytes = input_bytes;
    out.adler = static_cast<std::uint32_t>(adler32_z(adler32_z(0, nullptr, 0), input, input_bytes));
    Deflater deflater(level_, strategy_for(input, input_bytes));
    if (history_bytes > 0) {
      const std::size_t window = std::min(history_bytes, kWindowBytes);
      deflateSetDictionary(&deflater.stream, input - window, static_cast<uInt>(window));
    }
    const bool first_band = band == 0;
    const bool last_band = band == layout_.bands - 1;
    const std::size_t header = first_band ? 2 : 0;
    const std::size_t bound = deflateBound(&deflater.stream, input_bytes) + header;
    std::vector<std::uint8_t>& chunk = out.chunk;
    chunk.resize(kChunkOverhead + bound + kFlushMargin);
    std::uint8_t* data = chunk.data() + kChunkOverhead - 4;  // after length and type
    if (first_band) {
      data[0] = kCompressionMethodAndWindow;
      data[1] = zlib_header_flags(level_);
    }
    z_stream& z = deflater.stream;
    z.next_in = const_cast<std::uint8_t*>(input);  // zlib's API is not const-correct
    z.avail_in = static_cast<uInt>(input_bytes);
    z.next_out = data + header;
    z.avail_out = static_cast<uInt>(bound + kFlushMargin - header);
    const int result = deflate(&z, last_band ? Z_FINISH : Z_SYNC_FLUSH);
    if (result != (last_band ? Z_STREAM_END : Z_OK) || z.avail_in != 0) {
      throw RuntimeError("PNG band compression failed (zlib error " + std::to_string(result) + ")");
    }
    const std::size_t size = header + z.total_out;
    // Length and type before the data, CRC after it.
    constexpr std::string_view kIdat = "IDAT";
    for (int i = 0; i < 4; ++i) chunk[i] = static_cast<std::uint8_t>(size >> (24 - 8 * i));
    std::copy(kIdat.begin(), kIdat.end(), chunk.begin() + 4);
    const auto crc =
        static_cast<std::uint32_t>(crc32_z(crc32_z(0, nullptr, 0), chunk.data() + 4, 4 + size));
    chunk.resize(8 + size);
    put_u32(chunk, crc);
    return out;
  }

 private:
  /// deflateBound does not count the sync flush's empty stored block.
  static constexpr std::size_t kFlushMargin = 16;

  [[nodiscard]] int strategy_for(const std::uint8_t* bytes, std::size_t size) const {
    if (level_ != kFastLevel) return Z_DEFAULT_STRATEGY;
    return count_run_ends(bytes, size) * kRunShareDenominator >= size * kRunShareNumerator
               ? Z_RLE
               : Z_HUFFMAN_ONLY;
  }

  /// The image's own bytes of row y for 8 bits (a 16-bit row is always a converted copy).
  [[nodiscard]] const std::uint8_t* image_row_bytes(int y) const {
    if constexpr (sizeof(Sample) == 1) {
      return image_.row(y);
    } else {
      (void)y;
      return nullptr;
    }
  }

  static constexpr std::ptrdiff_t kSampleBytes = static_cast<std::ptrdiff_t>(sizeof(Sample));
  BasicImageView<const Sample> image_;
  int level_;
  const Checkpoint& checkpoint_;
  PngBandLayout layout_;
  std::size_t row_bytes_;  ///< filtered: with the filter byte
};

}  // namespace

namespace {

template <typename Sample>
void encode_png_bands(const BasicImageView<const Sample>& image, const SaveOptions& options,
                      const ByteSink& sink) {
  const BandEncoder<Sample> encoder(image, options);
  std::vector<PngBand> bands(static_cast<std::size_t>(encoder.bands()));
  const auto encode_band = [&](std::size_t i) { bands[i] = encoder.encode(static_cast<int>(i)); };
  if (options.parallel_for) {
    options.parallel_for(bands.size(), encode_band);
  } else {
    for (std::size_t i = 0; i < bands.size(); ++i) encode_band(i);
  }
  sink(png_head({image.width(), image.height(), image.channels(), kDepthOf<Sample>}));
  std::uint32_t adler = kPngAdlerStart;
  for (const PngBand& band : bands) {
    sink(band.chunk);
    adler = png_add_band(adler, band);
  }
  sink(png_tail(adler));
}

}  // namespace

PngBandLayout png_band_layout(const StreamShape& shape, int level) {
  return band_layout(static_cast<std::ptrdiff_t>(shape.width) * shape.channels,
                     bytes_per_sample(shape.depth), shape.height, level);
}

PngBand encode_png_band(const ConstImageView& rows, int band, const SaveOptions& options) {
  return BandEncoder<std::uint8_t>(rows, options).encode(band);
}

PngBand encode_png_band(const ConstImageView16& rows, int band, const SaveOptions& options) {
  return BandEncoder<std::uint16_t>(rows, options).encode(band);
}

std::vector<std::uint8_t> png_head(const StreamShape& shape) {
  std::vector<std::uint8_t> head(kSignature.begin(), kSignature.end());
  std::vector<std::uint8_t> header;
  put_u32(header, static_cast<std::uint32_t>(shape.width));
  put_u32(header, static_cast<std::uint32_t>(shape.height));
  const std::uint8_t color_type = shape.channels == 1   ? kColorTypeGray
                                  : shape.channels == 3 ? kColorTypeRgb
                                                        : kColorTypeRgba;
  // 8 or 16 bits, deflate, adaptive filtering, no interlace.
  const auto bit_depth = static_cast<std::uint8_t>(bits_of(shape.depth));
  for (const std::uint8_t byte :
       {bit_depth, color_type, std::uint8_t{0}, std::uint8_t{0}, std::uint8_t{0}}) {
    header.push_back(byte);
  }
  put_chunk(head, "IHDR", header.data(), header.size());
  return head;
}

std::uint32_t png_add_band(std::uint32_t adler, const PngBand& band) {
  return static_cast<std::uint32_t>(
      adler32_combine(adler, band.adler, static_cast<z_off_t>(band.filtered_bytes)));
}

std::vector<std::uint8_t> png_tail(std::uint32_t adler) {
  std::vector<std::uint8_t> trailer;
  put_u32(trailer, adler);
  std::vector<std::uint8_t> tail;
  put_chunk(tail, "IDAT", trailer.data(), trailer.size());
  put_chunk(tail, "IEND", nullptr, 0);
  return tail;
}

void encode_png_banded(const ConstImageView& image, const SaveOptions& options,
                       const ByteSink& sink) {
  encode_png_bands(image, options, sink);
}

void encode_png_banded(const ConstImageView16& image, const SaveOptions& options,
                       const ByteSink& sink) {
  encode_png_bands(image, options, sink);
}

}  // namespace parfilter::io

#endif  // PARFILTER_HAVE_ZLIB
