// What the CUDA backend's ops (one file each, ops/, cuda_op.hpp) work on and share: the
// workspace of one image in flight (device and pinned buffers, the stream, the timing events),
// what an op leaves, variant names, and the steps several ops run (histograms, thresholding,
// morphology).
#pragma once

#include <array>
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "cuda_util.hpp"
#include "launchers.hpp"
#include "parfilter/error.hpp"
#include "parfilter/image.hpp"
#include "parfilter/op_set.hpp"

namespace parfilter::cuda {

/// Everything one image in flight needs, grown on demand and reused across --repeat runs and
/// across the images of a batch.
struct Workspace {
  Stream stream;
  StreamGate gate;  ///< closed while an image's commands are queued (cuda_backend.cpp)
  Event upload_start, upload_stop, kernel_start, kernel_stop, download_start, download_stop;
  PinnedBuffer host_small;  ///< histogram counts and Gaussian tables
  DeviceBuffer input, output, scratch, spare, gray, counts, histogram_scratch, tables;

  /// Waits for the stream; the gate opens first, as the stream cannot finish behind it.
  void synchronize() {
    gate.open();
    stream.synchronize();
  }
  /// The same, ignoring errors: before a failed or abandoned image's buffers are reused.
  void drain() noexcept {
    gate.open();
    (void)cudaStreamSynchronize(stream.get());
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

/// What an op leaves: an image on the device (download pending) or, for histogram, counts
/// already on the host; otsu and segment also give their global threshold.
struct DeviceResult {
  DeviceImage image;  ///< data == nullptr for histogram
  std::vector<HistogramBins> histogram;
  std::optional<int> threshold;
};

/// Describes `buffer` as a pitched image of the given size, growing it when needed.
[[nodiscard]] DeviceImage device_image(DeviceBuffer& buffer, int width, int height, int channels);

/// A variant's name, as --variant takes it, and the launcher's value it selects.
template <typename Enum>
struct VariantName {
  std::string_view name;
  Enum value;
};

/// The names of `variants`, in order (the default first).
template <typename Enum, std::size_t N>
[[nodiscard]] std::vector<std::string> variant_names(
    const std::array<VariantName<Enum>, N>& variants) {
  std::vector<std::string> names;
  for (const auto& variant : variants) names.emplace_back(variant.name);
  return names;
}

/// The value `name` selects; UsageError if it names none of `variants`.
template <typename Enum, std::size_t N>
[[nodiscard]] Enum variant_value(const std::array<VariantName<Enum>, N>& variants,
                                 std::string_view name) {
  for (const auto& variant : variants) {
    if (variant.name == name) return variant.value;
  }
  throw UsageError("unknown CUDA variant '" + std::string(name) + "'");
}

/// The variant list of an op with one technique: "default".
[[nodiscard]] std::vector<std::string> default_variant_only();

/// Runs the histogram kernels and brings the counts to the host (waits for the stream). With
/// gray_out given, the gray plane comes out of the same pass.
[[nodiscard]] std::vector<HistogramBins> histograms(Workspace& ws, HistogramVariant variant,
                                                    HistogramSource source, const DeviceImage& in,
                                                    const DeviceImage& gray_out = {});

/// otsu and segment: the gray histogram, the host's global threshold, then the threshold (or
/// adaptive segmentation) pass into a 1-channel output.
[[nodiscard]] DeviceResult run_thresholding(Workspace& ws, Op op, const OpParams& params,
                                            const DeviceImage& in);

/// The morphology variants, the default first (erode, dilate, open, close).
[[nodiscard]] std::vector<std::string> morphology_variants();

/// `op`'s erosions and dilations (morphology_steps) with params.se, ping-ponging between two
/// of the workspace's images.
[[nodiscard]] DeviceResult run_morphology(Workspace& ws, Op op, const OpParams& params,
                                          const DeviceImage& in);

/// Makes `image` (a step's result in one of ws's buffers) the next step's input: its buffer
/// and ws.input trade places, so it stays where it is and ws.input holds it.
[[nodiscard]] DeviceImage adopt_as_input(Workspace& ws, const DeviceImage& image);

/// The structuring element as rectangles relative to its anchor (their union is the element;
/// each lies inside it), and as one span per row for the naive kernel.
[[nodiscard]] std::vector<MorphRect> morphology_rects(const SeSpec& spec);
[[nodiscard]] MorphSpans morphology_spans(const SeSpec& spec);

}  // namespace parfilter::cuda
