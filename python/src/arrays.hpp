// NumPy arrays in and out of parfilter's images: an input is read in place where its rows are
// packed pixels (any row stride), copied otherwise; an output image becomes an array that owns
// the image's buffer, with no copy.
#pragma once

#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>

#include <optional>
#include <string>

#include "parfilter/backend.hpp"
#include "parfilter/image.hpp"
#include "parfilter/op_set.hpp"

namespace parfilter::python {

namespace nb = nanobind;

/// A read-only host array of any dtype and shape, checked by ArrayInput.
using HostArray = nb::ndarray<nb::ro, nb::device::cpu>;

/// An array as the backends take it: its own memory (8-bit packed pixels at any row stride,
/// 16-bit packed rows), else a copy.
class ArrayInput {
 public:
  /// Throws TypeError (nb::type_error) for a dtype other than uint8 and uint16 and
  /// ValueError (UsageError) for a shape other than (H, W) or (H, W, C) with C 1, 3 or 4.
  explicit ArrayInput(const HostArray& array);

  [[nodiscard]] Depth depth() const { return depth_; }
  /// Samples in the image (width x height x channels).
  [[nodiscard]] std::size_t samples() const {
    return static_cast<std::size_t>(width_) * static_cast<std::size_t>(height_) *
           static_cast<std::size_t>(channels_);
  }
  /// Whether the array was (H, W, 1) rather than (H, W): its one-channel results keep the axis.
  [[nodiscard]] bool channel_axis() const { return channel_axis_; }
  /// Runs the chain (validated and resolved for `backend`) on the array's pixels.
  [[nodiscard]] OpOutput run(Backend& backend, const OpChain& chain) const;
  /// The pixels as an owning image (a copy unless one was already made).
  [[nodiscard]] Image image() const;
  /// Whether the backends read the array's own memory (no copy on the way in).
  [[nodiscard]] bool in_place() const { return !copy_ || in_place_; }

 private:
  [[nodiscard]] ConstImageView view() const;

  Depth depth_ = Depth::u8;
  bool channel_axis_ = false;
  int width_ = 0;
  int height_ = 0;
  int channels_ = 0;
  const void* data_ = nullptr;
  std::ptrdiff_t row_stride_ = 0;  ///< in samples, where the pixels are read in place
  /// The pixels, where they could not be read in place as a view: a copy, or (16 bits,
  /// in_place_) an image over the array's own packed rows.
  std::optional<Image> copy_;
  bool in_place_ = false;
};

/// A read-only array in CUDA device memory (a CuPy or PyTorch array, through DLPack).
using CudaArray = nb::ndarray<nb::ro, nb::device::cuda>;

/// A CUDA array as Backend::run_chain_on_device takes it: uint8, packed pixels, any row stride.
/// Throws TypeError for another dtype, UsageError for a shape or layout it cannot take (a
/// 16-bit array: `backend` says whether it runs 16 bits).
[[nodiscard]] DeviceImageRef device_image_of(const CudaArray& array, const Backend& backend);

/// Whether a CUDA array was (H, W, 1): its one-channel results keep the axis.
[[nodiscard]] bool has_channel_axis(const CudaArray& array);

/// A device result as an array of `framework` ("cupy", "torch", else a DLPack array object)
/// that owns the result's memory: (H, W) or (H, W, C) as to_array gives.
[[nodiscard]] nb::object to_device_array(DeviceOutput&& output, bool channel_axis,
                                         const std::string& framework);

/// An image as a NumPy array owning its buffer: (H, W) for one channel (or (H, W, 1) when
/// `channel_axis`), else (H, W, C).
[[nodiscard]] nb::object to_array(Image&& image, bool channel_axis);

/// A histogram's bins as a uint64 array: (L,) for one, (C, L) for several.
[[nodiscard]] nb::object histogram_array(const OpOutput& output);

}  // namespace parfilter::python
