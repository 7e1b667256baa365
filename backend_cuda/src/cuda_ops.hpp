// The ops of the CUDA backend composed from the kernel launchers, on one workspace: the device
// and pinned buffers, the stream and the timing events of one image in flight.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "cuda_util.hpp"
#include "launchers.hpp"
#include "parfilter/image.hpp"
#include "parfilter/op_set.hpp"

namespace parfilter::cuda {

/// Everything one image in flight needs, grown on demand and reused across --repeat runs and
/// across the images of a batch.
struct Workspace {
  Stream stream;
  StreamGate gate;  ///< closed while an image's commands are queued (cuda_backend.cpp)
  Event upload_start, upload_stop, kernel_start, kernel_stop, download_start, download_stop;
  PinnedBuffer host_input;  ///< a pageable input, staged for an asynchronous upload
  PinnedBuffer host_small;  ///< histogram counts and Gaussian tables
  DeviceBuffer input, output, scratch, spare, gray, counts, histogram_scratch, tables;

  /// Waits for the stream; the gate opens first, as the stream cannot finish behind it.
  void synchronize() {
    gate.open();
    stream.synchronize();
  }
  /// Grows `buffer` to hold `bytes`. A reallocation frees the old block (cudaFree and
  /// cudaFreeHost wait for the device), so the gate opens first.
  template <typename Buffer>
  void reserve(Buffer& buffer, std::size_t bytes) {
    if (bytes > buffer.capacity()) gate.open();
    buffer.reserve(bytes);
  }
  /// device_image() on one of this workspace's buffers, through reserve().
  [[nodiscard]] DeviceImage image(DeviceBuffer& buffer, int width, int height, int channels);
};

/// The variants the CUDA backend offers for `op`, the default first.
[[nodiscard]] std::vector<std::string> cuda_variants(Op op);

/// What an op leaves: an image on the device (download pending) or, for histogram, counts
/// already on the host; otsu and segment also give their global threshold.
struct DeviceResult {
  DeviceImage image;  ///< data == nullptr for histogram
  std::vector<HistogramBins> histogram;
  std::optional<int> threshold;
};

/// Describes `buffer` as a pitched image of the given size, growing it when needed.
[[nodiscard]] DeviceImage device_image(DeviceBuffer& buffer, int width, int height, int channels);

/// Enqueues `op` (params.variant resolved) on ws.stream over `in`, which lies in ws.input.
/// Ops with a host step (histogram, equalize, otsu, segment) wait for the stream there.
[[nodiscard]] DeviceResult enqueue_op(Workspace& ws, Op op, const OpParams& params,
                                      const DeviceImage& in);

/// Makes `image` (a step's result in one of ws's buffers) the next step's input: its buffer
/// and ws.input trade places, so it stays where it is and ws.input holds it.
[[nodiscard]] DeviceImage adopt_as_input(Workspace& ws, const DeviceImage& image);

/// The structuring element as rectangles relative to its anchor (their union is the element;
/// each lies inside it), and as one span per row for the naive kernel.
[[nodiscard]] std::vector<MorphRect> morphology_rects(const SeSpec& spec);
[[nodiscard]] MorphSpans morphology_spans(const SeSpec& spec);

}  // namespace parfilter::cuda
