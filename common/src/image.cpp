#include "parfilter/image.hpp"

#include <algorithm>
#include <cstdint>
#include <limits>
#include <new>
#include <stdexcept>
#include <string>

namespace parfilter {

namespace detail {
// Plain operator new. 2 MiB-aligned buffers advised MADV_HUGEPAGE (fewer page faults on first
// touch) were tried: faster on average on the 2-vCPU VM, but some single-thread runs stalled
// for tens of milliseconds (sobel 29 ms instead of 7, open 78 instead of 10), cause not found.
void* allocate_samples(std::size_t bytes) { return ::operator new(bytes); }

void free_samples(void* p, std::size_t /*bytes*/) noexcept { ::operator delete(p); }
}  // namespace detail

Image::Image(int width, int height, int channels)
    : Image(width, height, channels, UninitializedTag{}) {
  std::fill(pixels_.begin(), pixels_.end(), std::uint8_t{0});
}

Image Image::uninitialized(int width, int height, int channels) {
  return {width, height, channels, UninitializedTag{}};
}

Image::Image(int width, int height, int channels, UninitializedTag /*tag*/)
    : width_(width), height_(height), channels_(channels) {
  if (width <= 0 || height <= 0) {
    throw std::invalid_argument("Image: width and height must be positive, got " +
                                std::to_string(width) + "x" + std::to_string(height));
  }
  if (channels != 1 && channels != 3 && channels != 4) {
    throw std::invalid_argument("Image: channels must be 1, 3 or 4, got " +
                                std::to_string(channels));
  }
  const auto bytes = static_cast<std::uint64_t>(width) * static_cast<std::uint64_t>(height) *
                     static_cast<std::uint64_t>(channels);
  if (bytes > static_cast<std::uint64_t>(std::numeric_limits<std::ptrdiff_t>::max())) {
    throw std::length_error("Image: " + std::to_string(bytes) + " bytes do not fit in memory");
  }
  pixels_.resize(static_cast<std::size_t>(bytes));  // default-initialized: left unwritten
}

ImageView Image::view(RowRange rows) {
  return {pixels_.data() + rows.begin * stride(), width_, height_, channels_, stride(), rows};
}

ConstImageView Image::view(RowRange rows) const {
  return {pixels_.data() + rows.begin * stride(), width_, height_, channels_, stride(), rows};
}

Image Image::copy_of(const ConstImageView& full) {
  if (full.rows().begin != 0 || full.rows().end != full.height()) {
    throw std::invalid_argument("Image::copy_of: the view must address every row");
  }
  Image img = uninitialized(full.width(), full.height(), full.channels());
  for (int y = 0; y < full.height(); ++y) {
    std::copy_n(full.row(y), full.row_samples(), img.row(y));
  }
  return img;
}

}  // namespace parfilter
