// Image storage and non-owning row-range views.
#pragma once

#include <cassert>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <new>
#include <type_traits>
#include <utility>
#include <vector>

namespace parfilter {

namespace detail {
/// Storage for image samples (image.cpp), out of line so that the allocation policy can
/// change without recompiling every user of Image.
[[nodiscard]] void* allocate_samples(std::size_t bytes);
void free_samples(void* p, std::size_t bytes) noexcept;
/// Maps the pages of a large buffer that one thread is about to fill in one call
/// (MADV_POPULATE_WRITE) instead of one page fault per 4 KiB as it writes: on the 2-vCPU VM
/// about 6 ms instead of 11 for 27 MiB. Not for a buffer that several workers fill (each
/// faults in its own rows, in parallel). Does nothing where the kernel lacks it.
void prefault_samples(void* p, std::size_t bytes) noexcept;
}  // namespace detail

/// The allocator of Image's samples: detail::allocate_samples, and a value-less construct
/// that default-initializes, so a vector<uint8_t> resized to n leaves the bytes unwritten (no
/// memset): the pages of a large buffer are first touched by whoever writes them (each
/// worker its own rows) rather than zeroed by the allocating thread. Constructing with a
/// value still copies that value.
template <typename T>
struct DefaultInitAllocator : std::allocator<T> {
  template <typename U>
  struct rebind {
    using other = DefaultInitAllocator<U>;
  };
  DefaultInitAllocator() = default;
  template <typename U>
  explicit DefaultInitAllocator(const DefaultInitAllocator<U>& /*other*/) noexcept {}

  [[nodiscard]] T* allocate(std::size_t n) {
    if (n > std::allocator_traits<std::allocator<T>>::max_size(*this)) throw std::bad_alloc();
    return static_cast<T*>(detail::allocate_samples(n * sizeof(T)));
  }
  void deallocate(T* p, std::size_t n) noexcept { detail::free_samples(p, n * sizeof(T)); }

  template <typename U>
  void construct(U* p) noexcept(std::is_nothrow_default_constructible_v<U>) {
    ::new (static_cast<void*>(p)) U;  // default-initialization: no value for a byte
  }
  template <typename U, typename... Args>
  void construct(U* p, Args&&... args) {
    std::allocator_traits<std::allocator<T>>::construct(static_cast<std::allocator<T>&>(*this), p,
                                                        std::forward<Args>(args)...);
  }
};

/// Half-open range of rows [begin, end) of an image.
struct RowRange {
  int begin = 0;
  int end = 0;

  [[nodiscard]] constexpr int size() const { return end > begin ? end - begin : 0; }
  [[nodiscard]] constexpr bool empty() const { return end <= begin; }
  friend constexpr bool operator==(RowRange, RowRange) = default;
};

/// A non-owning view of rows [rows.begin, rows.end) of an image whose full size is
/// width x height. Rows are addressed by their index in the full image, so a kernel that
/// works on a slice (a thread's block, an MPI rank's block plus halo) still applies borders
/// against the true image edges: row(y) is valid for y in [rows.begin, rows.end).
template <typename Sample>
class BasicImageView {
 public:
  BasicImageView() = default;

  /// `first_row` points at the first sample of row `rows.begin`.
  BasicImageView(Sample* first_row, int width, int height, int channels, std::ptrdiff_t stride,
                 RowRange rows)
      : first_row_(first_row),
        width_(width),
        height_(height),
        channels_(channels),
        stride_(stride),
        rows_(rows) {}

  /// A const view of a mutable view.
  template <typename Other>
  requires(!std::is_same_v<Other, Sample>)
      BasicImageView(const BasicImageView<Other>& other)  // NOLINT(google-explicit-constructor)
      : BasicImageView(other.first_row(), other.width(), other.height(), other.channels(),
                       other.stride(), other.rows()) {}

  [[nodiscard]] int width() const { return width_; }
  /// Height of the full image, not of the slice.
  [[nodiscard]] int height() const { return height_; }
  [[nodiscard]] int channels() const { return channels_; }
  /// Distance in samples between the starts of two consecutive rows.
  [[nodiscard]] std::ptrdiff_t stride() const { return stride_; }
  /// The rows this view can address.
  [[nodiscard]] RowRange rows() const { return rows_; }
  [[nodiscard]] Sample* first_row() const { return first_row_; }
  /// Samples in one row: width * channels.
  [[nodiscard]] std::ptrdiff_t row_samples() const {
    return static_cast<std::ptrdiff_t>(width_) * channels_;
  }

  /// Row y of the full image; y must lie in rows().
  [[nodiscard]] Sample* row(int y) const {
    assert(y >= rows_.begin && y < rows_.end);
    return first_row_ + static_cast<std::ptrdiff_t>(y - rows_.begin) * stride_;
  }

  /// A narrower view over `sub`, which must lie inside rows().
  [[nodiscard]] BasicImageView slice(RowRange sub) const {
    assert(sub.begin >= rows_.begin && sub.end <= rows_.end);
    return BasicImageView(
        first_row_ + static_cast<std::ptrdiff_t>(sub.begin - rows_.begin) * stride_, width_,
        height_, channels_, stride_, sub);
  }

 private:
  Sample* first_row_ = nullptr;
  int width_ = 0;
  int height_ = 0;
  int channels_ = 0;
  std::ptrdiff_t stride_ = 0;
  RowRange rows_{};
};

using ImageView = BasicImageView<std::uint8_t>;
using ConstImageView = BasicImageView<const std::uint8_t>;
using ImageView16 = BasicImageView<std::uint16_t>;
using ConstImageView16 = BasicImageView<const std::uint16_t>;

/// Bits per sample. docs/FILTERS.md states every op at both depths.
enum class Depth : std::uint8_t { u8, u16 };

[[nodiscard]] constexpr int bits_of(Depth depth) { return depth == Depth::u8 ? 8 : 16; }
/// The depth of `bits` bits a sample (16, else 8).
[[nodiscard]] constexpr Depth depth_of_bits(int bits) {
  return bits == bits_of(Depth::u16) ? Depth::u16 : Depth::u8;
}
[[nodiscard]] constexpr std::size_t bytes_per_sample(Depth depth) {
  return depth == Depth::u8 ? 1 : 2;
}
/// The largest sample value, T = 2^bits - 1.
[[nodiscard]] constexpr int top_of(Depth depth) { return depth == Depth::u8 ? 255 : 65535; }
/// The sample type of a depth, and the depth of a sample type.
template <typename Sample>
inline constexpr Depth kDepthOf = sizeof(Sample) == 1 ? Depth::u8 : Depth::u16;

/// Where an image's samples live when not in ordinary heap memory: a device backend's pool of
/// page-locked buffers, which its transfers read and write at bus speed. allocate throws
/// std::bad_alloc on failure.
class SampleAllocator {
 public:
  SampleAllocator() = default;
  SampleAllocator(const SampleAllocator&) = delete;
  SampleAllocator& operator=(const SampleAllocator&) = delete;
  virtual ~SampleAllocator() = default;
  [[nodiscard]] virtual void* allocate(std::size_t bytes) = 0;
  virtual void deallocate(void* p, std::size_t bytes) noexcept = 0;
};

namespace detail {
/// Gives an image's samples back to their allocator, or to the heap.
struct SampleDeleter {
  std::shared_ptr<SampleAllocator> allocator;
  std::size_t bytes = 0;
  void operator()(std::uint8_t* p) const noexcept;
};
}  // namespace detail

/// An owning image: 8- or 16-bit samples (native byte order), 1 (gray), 3 (RGB) or 4 (RGBA)
/// interleaved channels, rows stored top to bottom without padding. The 8-bit accessors
/// (data, row, at, view) are for 8-bit images; samples<S>, view_of<S> and sample() for
/// either depth.
class Image {
 public:
  Image() = default;
  /// A zero-filled image. Throws std::invalid_argument for a non-positive size or a channel
  /// count other than 1, 3 or 4, and std::length_error when the buffer size overflows.
  Image(int width, int height, int channels, Depth depth = Depth::u8);
  /// A copy owns its samples in ordinary heap memory, whatever the original's allocator.
  Image(const Image& other);
  Image& operator=(const Image& other);
  Image(Image&& other) noexcept = default;
  Image& operator=(Image&& other) noexcept = default;
  ~Image() = default;

  /// An image whose samples are left uninitialized, for outputs that are about to be written
  /// in full: no serial zero-fill, and each worker first-touches the pages of its own rows.
  /// Reading a sample before writing it is undefined (valgrind and MSan report it). Same
  /// checks and exceptions as the zero-filled constructor. With `allocator`, the samples come
  /// from it (and go back to it when the image is destroyed).
  [[nodiscard]] static Image uninitialized(int width, int height, int channels,
                                           std::shared_ptr<SampleAllocator> allocator = {});
  [[nodiscard]] static Image uninitialized(int width, int height, int channels, Depth depth,
                                           std::shared_ptr<SampleAllocator> allocator = {});

  /// This image's buffer as an uninitialized image of another shape, when it holds enough
  /// bytes (a device backend downloads a result into its input's page-locked buffer); else an
  /// empty image, and this one is left as it was.
  [[nodiscard]] Image reuse_as(int width, int height, int channels) &&;

  /// The allocator of the samples, null for ordinary heap memory.
  [[nodiscard]] const std::shared_ptr<SampleAllocator>& allocator() const {
    return samples_.get_deleter().allocator;
  }

  [[nodiscard]] int width() const { return width_; }
  [[nodiscard]] int height() const { return height_; }
  [[nodiscard]] int channels() const { return channels_; }
  [[nodiscard]] Depth depth() const { return depth_; }
  [[nodiscard]] bool empty() const { return size_ == 0; }
  /// Samples (not bytes) from one row's start to the next's.
  [[nodiscard]] std::ptrdiff_t stride() const {
    return static_cast<std::ptrdiff_t>(width_) * channels_;
  }
  [[nodiscard]] std::size_t size_bytes() const { return size_; }

  /// The bytes of the samples, either depth.
  [[nodiscard]] std::uint8_t* bytes() { return samples_.get(); }
  [[nodiscard]] const std::uint8_t* bytes() const { return samples_.get(); }

  [[nodiscard]] std::uint8_t* data() { return samples<std::uint8_t>(); }
  [[nodiscard]] const std::uint8_t* data() const { return samples<std::uint8_t>(); }
  [[nodiscard]] std::uint8_t* row(int y) { return data() + y * stride(); }
  [[nodiscard]] const std::uint8_t* row(int y) const { return data() + y * stride(); }
  [[nodiscard]] std::uint8_t& at(int x, int y, int c = 0) { return row(y)[x * channels_ + c]; }
  [[nodiscard]] std::uint8_t at(int x, int y, int c = 0) const { return row(y)[x * channels_ + c]; }

  /// The samples as `Sample`, which must match depth().
  template <typename Sample>
  [[nodiscard]] Sample* samples() {
    assert(empty() || kDepthOf<Sample> == depth_);
    return reinterpret_cast<Sample*>(samples_.get());
  }
  template <typename Sample>
  [[nodiscard]] const Sample* samples() const {
    assert(empty() || kDepthOf<Sample> == depth_);
    return reinterpret_cast<const Sample*>(samples_.get());
  }
  /// Sample (x, y, c) at either depth.
  [[nodiscard]] int sample(int x, int y, int c = 0) const {
    const std::ptrdiff_t i = y * stride() + static_cast<std::ptrdiff_t>(x) * channels_ + c;
    return depth_ == Depth::u8 ? samples<std::uint8_t>()[i] : samples<std::uint16_t>()[i];
  }
  void set_sample(int x, int y, int c, int value) {
    const std::ptrdiff_t i = y * stride() + static_cast<std::ptrdiff_t>(x) * channels_ + c;
    if (depth_ == Depth::u8) {
      samples<std::uint8_t>()[i] = static_cast<std::uint8_t>(value);
    } else {
      samples<std::uint16_t>()[i] = static_cast<std::uint16_t>(value);
    }
  }

  [[nodiscard]] ImageView view() { return view(RowRange{0, height_}); }
  [[nodiscard]] ConstImageView view() const { return view(RowRange{0, height_}); }
  [[nodiscard]] ImageView view(RowRange rows) { return view_of<std::uint8_t>(rows); }
  [[nodiscard]] ConstImageView view(RowRange rows) const { return view_of<std::uint8_t>(rows); }
  /// A view of the samples as `Sample`, which must match depth().
  template <typename Sample>
  [[nodiscard]] BasicImageView<Sample> view_of(RowRange rows) {
    return {samples<Sample>() + rows.begin * stride(), width_, height_, channels_, stride(), rows};
  }
  template <typename Sample>
  [[nodiscard]] BasicImageView<const Sample> view_of(RowRange rows) const {
    return {samples<Sample>() + rows.begin * stride(), width_, height_, channels_, stride(), rows};
  }
  template <typename Sample>
  [[nodiscard]] BasicImageView<Sample> view_of() {
    return view_of<Sample>(RowRange{0, height_});
  }
  template <typename Sample>
  [[nodiscard]] BasicImageView<const Sample> view_of() const {
    return view_of<Sample>(RowRange{0, height_});
  }

  /// A copy of the pixels of a view that addresses every row of its image.
  [[nodiscard]] static Image copy_of(const ConstImageView& full);
  [[nodiscard]] static Image copy_of(const ConstImageView16& full);

  /// Same size, channels, depth and samples.
  friend bool operator==(const Image& a, const Image& b);

 private:
  using SampleDeleter = detail::SampleDeleter;

  Image(int width, int height, int channels, Depth depth,
        std::shared_ptr<SampleAllocator> allocator);

  int width_ = 0;
  int height_ = 0;
  int channels_ = 0;
  Depth depth_ = Depth::u8;
  std::size_t size_ = 0;
  std::unique_ptr<std::uint8_t[], SampleDeleter> samples_;
};

}  // namespace parfilter
