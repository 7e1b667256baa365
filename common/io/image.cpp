#include "parfilter/image.hpp"

#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <limits>
#include <new>
#include <stdexcept>
#include <string>
#include <string_view>

namespace parfilter {

namespace detail {
namespace {
constexpr std::size_t kPrefaultMinBytes = std::size_t{1} << 20;
/// Samples start on a cache line (malloc's large blocks start 16 bytes into a page): a row
/// whose length is a multiple of 64 bytes then never splits a vector store across two lines.
constexpr std::align_val_t kSampleAlignment{64};
#ifdef MADV_POPULATE_WRITE
constexpr int kPopulateWrite = MADV_POPULATE_WRITE;
#else
constexpr int kPopulateWrite = 23;  // Linux 5.14's value, for older C library headers
#endif

/// Buffers from this size on are 2 MiB-aligned and advised MADV_HUGEPAGE: a 28 MB image is then
/// mapped in 14 faults instead of 7000 on first touch (1.5-2 us each on these VMs). Measured on
/// the 16-core GPU machine (THP "madvise"), 4096x2304 gaussian, median of 7 interleaved runs:
/// a batch of 16 JPEGs 260 -> 190 ms, BMPs 440 -> 420, PNGs 906 -> 816; one BMP, serial,
/// 87 -> 72. PARFILTER_HUGE_PAGES=0 turns it off (a host where compaction stalls).
constexpr std::size_t kHugePage = std::size_t{2} << 20;
constexpr std::size_t kHugePageMinBytes = 2 * kHugePage;

bool huge_pages_for(std::size_t bytes) {
  static const bool enabled = [] {
    const char* value = std::getenv("PARFILTER_HUGE_PAGES");
    return value == nullptr || std::string_view(value) != "0";
  }();
  return enabled && bytes >= kHugePageMinBytes;
}
}  // namespace

void* allocate_samples(std::size_t bytes) {
  if (!huge_pages_for(bytes)) return ::operator new(bytes, kSampleAlignment);
  void* p = ::operator new (bytes, std::align_val_t{kHugePage});
  // Advice only: without transparent huge pages the buffer keeps 4 KiB pages.
  (void)::madvise(p, bytes / kHugePage * kHugePage, MADV_HUGEPAGE);
  return p;
}

void prefault_samples(void* p, std::size_t bytes) noexcept {
  if (bytes < kPrefaultMinBytes) return;  // from malloc's heap, whose pages are mostly mapped
  const auto page = static_cast<std::uintptr_t>(::sysconf(_SC_PAGESIZE));
  const auto begin = (reinterpret_cast<std::uintptr_t>(p) + page - 1) / page * page;
  const auto end = (reinterpret_cast<std::uintptr_t>(p) + bytes) / page * page;
  // Advice only: an older kernel (EINVAL) or memory that cannot be populated leaves the
  // pages to be faulted in as they are written.
  if (end > begin) (void)::madvise(reinterpret_cast<void*>(begin), end - begin, kPopulateWrite);
}

void free_samples(void* p, std::size_t bytes) noexcept {
  if (huge_pages_for(bytes)) {
    ::operator delete (p, std::align_val_t{kHugePage});
  } else {
    ::operator delete(p, kSampleAlignment);
  }
}
}  // namespace detail

void detail::SampleDeleter::operator()(std::uint8_t* p) const noexcept {
  if (p == nullptr) return;
  if (allocator) {
    allocator->deallocate(p, bytes);
  } else {
    detail::free_samples(p, bytes);
  }
}

Image::Image(int width, int height, int channels, Depth depth)
    : Image(width, height, channels, depth, nullptr) {
  std::fill_n(bytes(), size_, std::uint8_t{0});
}

Image::Image(const Image& other)
    : width_(other.width_),
      height_(other.height_),
      channels_(other.channels_),
      depth_(other.depth_),
      size_(other.size_) {
  if (size_ == 0) return;
  samples_ = {static_cast<std::uint8_t*>(detail::allocate_samples(size_)),
              SampleDeleter{{}, size_}};
  std::copy_n(other.bytes(), size_, bytes());
}

Image& Image::operator=(const Image& other) {
  if (this != &other) *this = Image(other);
  return *this;
}

Image Image::uninitialized(int width, int height, int channels,
                           std::shared_ptr<SampleAllocator> allocator) {
  return {width, height, channels, Depth::u8, std::move(allocator)};
}

Image Image::uninitialized(int width, int height, int channels, Depth depth,
                           std::shared_ptr<SampleAllocator> allocator) {
  return {width, height, channels, depth, std::move(allocator)};
}

Image::Image(int width, int height, int channels, Depth depth,
             std::shared_ptr<SampleAllocator> allocator)
    : width_(width), height_(height), channels_(channels), depth_(depth) {
  if (width <= 0 || height <= 0) {
    throw std::invalid_argument("Image: width and height must be positive, got " +
                                std::to_string(width) + "x" + std::to_string(height));
  }
  if (channels != 1 && channels != 3 && channels != 4) {
    throw std::invalid_argument("Image: channels must be 1, 3 or 4, got " +
                                std::to_string(channels));
  }
  const auto bytes = static_cast<std::uint64_t>(width) * static_cast<std::uint64_t>(height) *
                     static_cast<std::uint64_t>(channels) * bytes_per_sample(depth);
  if (bytes > static_cast<std::uint64_t>(std::numeric_limits<std::ptrdiff_t>::max())) {
    throw std::length_error("Image: " + std::to_string(bytes) + " bytes do not fit in memory");
  }
  size_ = static_cast<std::size_t>(bytes);
  void* p = allocator ? allocator->allocate(size_) : detail::allocate_samples(size_);
  samples_ = {static_cast<std::uint8_t*>(p), SampleDeleter{std::move(allocator), size_}};
}

Image Image::reuse_as(int width, int height, int channels) && {
  const auto bytes = static_cast<std::uint64_t>(width) * static_cast<std::uint64_t>(height) *
                     static_cast<std::uint64_t>(channels);
  if (width <= 0 || height <= 0 || (channels != 1 && channels != 3 && channels != 4) ||
      bytes > samples_.get_deleter().bytes) {
    return {};
  }
  Image reused;
  reused.width_ = width;
  reused.height_ = height;
  reused.channels_ = channels;
  reused.size_ = static_cast<std::size_t>(bytes);
  reused.samples_ = std::move(samples_);  // the deleter keeps the allocation's own size
  *this = Image{};
  return reused;
}

bool operator==(const Image& a, const Image& b) {
  return a.width_ == b.width_ && a.height_ == b.height_ && a.channels_ == b.channels_ &&
         a.depth_ == b.depth_ && std::equal(a.bytes(), a.bytes() + a.size_, b.bytes());
}

namespace {
template <typename Sample>
Image copy_of_view(const BasicImageView<const Sample>& full) {
  if (full.rows().begin != 0 || full.rows().end != full.height()) {
    throw std::invalid_argument("Image::copy_of: the view must address every row");
  }
  Image img = Image::uninitialized(full.width(), full.height(), full.channels(),
                                   kDepthOf<Sample>);
  const auto out = img.view_of<Sample>();
  for (int y = 0; y < full.height(); ++y) {
    std::copy_n(full.row(y), full.row_samples(), out.row(y));
  }
  return img;
}
}  // namespace

Image Image::copy_of(const ConstImageView& full) { return copy_of_view(full); }
Image Image::copy_of(const ConstImageView16& full) { return copy_of_view(full); }

}  // namespace parfilter
