#include "arrays.hpp"

#include <cstdint>
#include <cstring>
#include <limits>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "parfilter/error.hpp"

namespace parfilter::python {
namespace {

constexpr std::size_t kMaxDimension = static_cast<std::size_t>(std::numeric_limits<int>::max());

[[nodiscard]] bool valid_channels(std::size_t channels) {
  return channels == 1 || channels == 3 || channels == 4;
}

template <typename Array>
[[nodiscard]] std::string shape_text(const Array& array) {
  std::string text = "(";
  for (std::size_t i = 0; i < array.ndim(); ++i) {
    text += (i > 0 ? ", " : "") + std::to_string(array.shape(i));
  }
  return text + (array.ndim() == 1 ? ",)" : ")");
}

/// Copies an array of any strides into a new image: packed pixels a row at a time, any other
/// layout sample by sample.
template <typename Sample>
void copy_strided(const HostArray& array, Image& image, bool packed) {
  const auto* base = static_cast<const Sample*>(array.data());
  if (packed) {
    const auto row = static_cast<std::size_t>(image.stride());
    for (int y = 0; y < image.height(); ++y) {
      std::memcpy(image.samples<Sample>() + y * row, base + y * array.stride(0),
                  row * sizeof(Sample));
    }
    return;
  }
  const bool has_channels = array.ndim() == 3;
  const std::int64_t channel_step = has_channels ? array.stride(2) : 0;
  Sample* out = image.samples<Sample>();
  for (int y = 0; y < image.height(); ++y) {
    for (int x = 0; x < image.width(); ++x) {
      const Sample* pixel = base + y * array.stride(0) + x * array.stride(1);
      for (int c = 0; c < image.channels(); ++c) *out++ = pixel[c * channel_step];
    }
  }
}

/// Checks an array's shape and sides (UsageError) and returns its channels.
template <typename Array>
int checked_channels(const Array& array) {
  const std::size_t ndim = array.ndim();
  const std::size_t channels = ndim == 3 ? array.shape(2) : 1;
  if ((ndim != 2 && ndim != 3) || !valid_channels(channels)) {
    throw UsageError(
        "an image array of shape (H, W) or (H, W, C) with C 1, 3 or 4 is expected, "
        "not " +
        shape_text(array));
  }
  if (array.shape(0) == 0 || array.shape(1) == 0 || array.shape(0) > kMaxDimension ||
      array.shape(1) > kMaxDimension) {
    throw UsageError("an image array of shape " + shape_text(array) +
                     ": each side must be from 1 to " + std::to_string(kMaxDimension));
  }
  return static_cast<int>(channels);
}

/// Whether the array's pixels are packed (channel stride 1, pixel stride C) and its rows go
/// forward, at least a row apart: what the backends read in place.
template <typename Array>
bool packed_pixels(const Array& array, int channels) {
  const auto width = static_cast<std::int64_t>(array.shape(1));
  return array.stride(1) == channels && (array.ndim() == 2 || array.stride(2) == 1) &&
         array.stride(0) >= width * channels;
}

/// An array's own memory lent to an Image: the 16-bit path takes an owning image, whose
/// "allocation" is then the array's buffer, given back to no one (the array outlives the call,
/// and the backends only read their input).
class BorrowedSamples final : public SampleAllocator {
 public:
  explicit BorrowedSamples(const void* data) : data_(const_cast<void*>(data)) {}
  void* allocate(std::size_t /*bytes*/) override { return data_; }
  void deallocate(void* /*p*/, std::size_t /*bytes*/) noexcept override {}

 private:
  void* data_;
};

/// The array sample type of a depth.
nb::dlpack::dtype dtype_of(Depth depth) {
  return depth == Depth::u8 ? nb::dtype<std::uint8_t>() : nb::dtype<std::uint16_t>();
}

}  // namespace

ArrayInput::ArrayInput(const HostArray& array) {
  if (array.dtype() == nb::dtype<std::uint8_t>()) {
    depth_ = Depth::u8;
  } else if (array.dtype() == nb::dtype<std::uint16_t>()) {
    depth_ = Depth::u16;
  } else {
    throw nb::type_error("an image array of uint8 or uint16 samples is expected");
  }
  channels_ = checked_channels(array);
  height_ = static_cast<int>(array.shape(0));
  width_ = static_cast<int>(array.shape(1));
  channel_axis_ = array.ndim() == 3 && channels_ == 1;
  data_ = array.data();

  // The CPU and device backends read 8-bit rows of packed pixels at any row stride; the 16-bit
  // path takes an image, whose rows are packed: an array of packed rows lends it its memory.
  const bool packed = packed_pixels(array, channels_);
  if (depth_ == Depth::u8 && packed) {
    row_stride_ = array.stride(0);
    return;
  }
  if (packed && array.stride(0) == static_cast<std::int64_t>(width_) * channels_) {
    copy_ = Image::uninitialized(width_, height_, channels_, depth_,
                                 std::make_shared<BorrowedSamples>(data_));
    in_place_ = true;
    return;
  }
  copy_ = Image::uninitialized(width_, height_, channels_, depth_);
  if (depth_ == Depth::u8) {
    copy_strided<std::uint8_t>(array, *copy_, packed);
  } else {
    copy_strided<std::uint16_t>(array, *copy_, packed);
  }
}

ConstImageView ArrayInput::view() const {
  return {static_cast<const std::uint8_t*>(data_),
          width_,
          height_,
          channels_,
          row_stride_,
          RowRange{0, height_}};
}

Image ArrayInput::image() const {
  if (copy_) return *copy_;  // a copy on the heap, also of a borrowed buffer
  return Image::copy_of(view());
}

OpOutput ArrayInput::run(Backend& backend, const OpChain& chain) const {
  if (depth_ == Depth::u8) {
    return copy_ ? backend.run_chain(chain, copy_->view()) : backend.run_chain(chain, view());
  }
  return run_chain_on(backend, chain, *copy_);
}

DeviceImageRef device_image_of(const CudaArray& array, const Backend& backend) {
  const bool deep = array.dtype() == nb::dtype<std::uint16_t>();
  if (!deep && array.dtype() != nb::dtype<std::uint8_t>()) {
    throw nb::type_error("an image array of uint8 or uint16 samples is expected");
  }
  const Depth depth = deep ? Depth::u16 : Depth::u8;
  check_depth(backend, depth);
  const int channels = checked_channels(array);
  if (!packed_pixels(array, channels)) {
    throw UsageError(
        "a GPU array of packed pixels is expected (its rows may be strided); "
        "copy it with cupy.ascontiguousarray or .contiguous() first");
  }
  // A (possibly strided) view's bytes are not ours to write: the kernels only read them. Its
  // strides count samples.
  const std::size_t sample_bytes = deep ? sizeof(std::uint16_t) : sizeof(std::uint8_t);
  return {static_cast<std::uint8_t*>(const_cast<void*>(array.data())),
          static_cast<int>(array.shape(1)),
          static_cast<int>(array.shape(0)),
          channels,
          static_cast<std::size_t>(array.stride(0)) * sample_bytes,
          array.device_id(),
          depth};
}

bool has_channel_axis(const CudaArray& array) { return array.ndim() == 3 && array.shape(2) == 1; }

nb::object to_device_array(DeviceOutput&& output, bool channel_axis, const std::string& framework) {
  const DeviceImageRef image = output.image;
  auto* owned = new std::shared_ptr<void>(std::move(output.owner));
  const nb::capsule owner(owned,
                          [](void* p) noexcept { delete static_cast<std::shared_ptr<void>*>(p); });
  const std::size_t shape[] = {static_cast<std::size_t>(image.height),
                               static_cast<std::size_t>(image.width),
                               static_cast<std::size_t>(image.channels)};
  const std::size_t ndim = image.channels == 1 && !channel_axis ? 2 : 3;
  const nb::dlpack::dtype dtype = dtype_of(image.depth);
  const int cuda = nb::device::cuda::value;
  if (framework == "cupy") {
    return nb::cast(
        nb::ndarray<nb::cupy>(image.data, ndim, shape, owner, nullptr, dtype, cuda, image.device));
  }
  if (framework == "torch") {
    return nb::cast(nb::ndarray<nb::pytorch>(image.data, ndim, shape, owner, nullptr, dtype, cuda,
                                             image.device));
  }
  return nb::cast(nb::ndarray<nb::array_api>(image.data, ndim, shape, owner, nullptr, dtype, cuda,
                                             image.device));
}

nb::object to_array(Image&& image, bool channel_axis) {
  auto* owned = new Image(std::move(image));
  const nb::capsule owner(owned, [](void* p) noexcept { delete static_cast<Image*>(p); });
  const std::size_t shape[] = {static_cast<std::size_t>(owned->height()),
                               static_cast<std::size_t>(owned->width()),
                               static_cast<std::size_t>(owned->channels())};
  const std::size_t ndim = owned->channels() == 1 && !channel_axis ? 2 : 3;
  const nb::dlpack::dtype dtype = dtype_of(owned->depth());
  return nb::cast(nb::ndarray<nb::numpy>(owned->bytes(), ndim, shape, owner, nullptr, dtype));
}

nb::object histogram_array(const OpOutput& output) {
  std::vector<const std::uint64_t*> rows;
  std::size_t bins = 0;
  for (const HistogramBins& h : output.histogram) {
    rows.push_back(h.data());
    bins = h.size();
  }
  for (const auto& h : output.wide_histogram) {
    rows.push_back(h.data());
    bins = h.size();
  }
  auto* counts = new std::vector<std::uint64_t>(rows.size() * bins);
  for (std::size_t i = 0; i < rows.size(); ++i) {
    std::memcpy(counts->data() + i * bins, rows[i], bins * sizeof(std::uint64_t));
  }
  const nb::capsule owner(
      counts, [](void* p) noexcept { delete static_cast<std::vector<std::uint64_t>*>(p); });
  const std::size_t shape[] = {rows.size(), bins};
  if (rows.size() == 1) {
    return nb::cast(nb::ndarray<nb::numpy, std::uint64_t>(counts->data(), 1, shape + 1, owner));
  }
  return nb::cast(nb::ndarray<nb::numpy, std::uint64_t>(counts->data(), 2, shape, owner));
}

}  // namespace parfilter::python
