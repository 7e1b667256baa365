#if defined(PARFILTER_HAVE_TIFF) && defined(PARFILTER_HAVE_ZLIB)

#include "tiff_strips.hpp"

#include <zlib.h>

#include <algorithm>
#include <string>

#include "parfilter/error.hpp"

namespace parfilter::io {
namespace {

/// The strip's rows, each sample minus the one a pixel before it (modulo the sample's range).
template <typename Sample>
std::vector<Sample> differenced(const StreamShape& shape, const std::uint8_t* rows,
                                std::ptrdiff_t stride_bytes, int count) {
  const int channels = shape.channels;
  const auto samples = static_cast<std::ptrdiff_t>(shape.width) * channels;
  std::vector<Sample> out(static_cast<std::size_t>(samples) * static_cast<std::size_t>(count));
  for (int r = 0; r < count; ++r) {
    const auto* row = reinterpret_cast<const Sample*>(rows + r * stride_bytes);
    Sample* dst = out.data() + static_cast<std::ptrdiff_t>(r) * samples;
    std::copy(row, row + std::min<std::ptrdiff_t>(channels, samples), dst);
    for (std::ptrdiff_t i = channels; i < samples; ++i) {
      dst[i] = static_cast<Sample>(row[i] - row[i - channels]);
    }
  }
  return out;
}

StreamShape shape_of(const Image& image) {
  return {image.width(), image.height(), image.channels(), image.depth()};
}

template <typename Sample>
std::vector<std::uint8_t> deflated(const std::vector<Sample>& samples, int level) {
  const auto bytes = static_cast<uLong>(samples.size() * sizeof(Sample));
  std::vector<std::uint8_t> out(compressBound(bytes));
  uLongf size = static_cast<uLongf>(out.size());
  const int result =
      compress2(out.data(), &size, reinterpret_cast<const Bytef*>(samples.data()), bytes, level);
  if (result != Z_OK) {
    throw RuntimeError("TIFF strip compression failed (zlib error " + std::to_string(result) + ")");
  }
  out.resize(size);
  return out;
}

}  // namespace

int tiff_rows_per_strip(const StreamShape& shape) {
  return static_cast<int>(
      std::clamp<std::size_t>(kTiffStripBytes / std::max<std::size_t>(shape.row_bytes(), 1), 1,
                              static_cast<std::size_t>(shape.height)));
}

int tiff_rows_per_strip(const Image& image) { return tiff_rows_per_strip(shape_of(image)); }

std::vector<std::uint8_t> deflate_tiff_strip(const StreamShape& shape, const std::uint8_t* rows,
                                             std::ptrdiff_t stride_bytes, int count, int level) {
  return shape.depth == Depth::u8
             ? deflated(differenced<std::uint8_t>(shape, rows, stride_bytes, count), level)
             : deflated(differenced<std::uint16_t>(shape, rows, stride_bytes, count), level);
}

std::vector<std::uint8_t> deflate_tiff_strip(const Image& image, int first, int count, int level) {
  const StreamShape shape = shape_of(image);
  const auto stride = static_cast<std::ptrdiff_t>(shape.row_bytes());
  return deflate_tiff_strip(shape, image.bytes() + first * stride, stride, count, level);
}

}  // namespace parfilter::io

#endif  // PARFILTER_HAVE_TIFF && PARFILTER_HAVE_ZLIB
