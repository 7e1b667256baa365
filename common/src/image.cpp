#include "parfilter/image.hpp"

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <limits>
#include <new>
#include <stdexcept>
#include <string>

#if defined(__linux__)
#include <sys/mman.h>
#endif

namespace parfilter {

namespace detail {
namespace {
/// A transparent huge page on x86-64 and most Linux targets.
constexpr std::size_t kHugePageBytes = std::size_t{2} << 20;
/// Buffers from this size on get huge pages (a 4K gray plane, 8 MB, is the smallest image
/// worth it); the rounding up wastes less than one huge page of address space.
constexpr std::size_t kHugePageMinBytes = 2 * kHugePageBytes;

bool wants_huge_pages(std::size_t bytes) {
#if defined(__linux__) && defined(MADV_HUGEPAGE)
  return bytes >= kHugePageMinBytes;
#else
  (void)bytes;
  return false;
#endif
}
}  // namespace

void* allocate_samples(std::size_t bytes) {
  if (!wants_huge_pages(bytes)) return ::operator new(bytes);
  const std::size_t rounded = (bytes + kHugePageBytes - 1) / kHugePageBytes * kHugePageBytes;
  void* p = std::aligned_alloc(kHugePageBytes, rounded);
  if (p == nullptr) throw std::bad_alloc();
#if defined(__linux__) && defined(MADV_HUGEPAGE)
  // Only advice: where THP is off (or "never") the buffer simply keeps small pages.
  (void)::madvise(p, rounded, MADV_HUGEPAGE);
#endif
  return p;
}

void free_samples(void* p, std::size_t bytes) noexcept {
  if (wants_huge_pages(bytes)) {
    std::free(p);  // NOLINT(cppcoreguidelines-no-malloc): from std::aligned_alloc
  } else {
    ::operator delete(p);
  }
}
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
