#include "cl_chain.hpp"

#include <stdexcept>
#include <string>
#include <utility>

#include "cl_op.hpp"

namespace parfilter::opencl {
namespace {

DeviceResult run_step(Lane& lane, const OpStep& step, const DeviceImage& input) {
  return cl_op(step.op).run(lane, input, step.params, step.params.variant);
}

/// Enqueues the copy of `input` into a device buffer, rows packed, without waiting: the host
/// memory must outlive the lane's commands. From the host pool's page-locked memory the driver
/// copies at bus speed with no staging copy of its own (NVIDIA's recommended path: read and
/// write calls on the pointer of a mapped CL_MEM_ALLOC_HOST_PTR buffer); rows with padding
/// between them go up in one rectangular write rather than through a packed copy.
DeviceImage enqueue_upload(Lane& lane, const ConstImageView& input) {
  const auto row_bytes = static_cast<std::size_t>(input.row_samples());
  const auto height = static_cast<std::size_t>(input.height());
  if (input.stride() < input.row_samples()) {
    throw std::invalid_argument("opencl backend: an input view's rows overlap");
  }
  DeviceImage image(lane.buffer(row_bytes * height, "input image"), input.width(), input.height(),
                    input.channels());
  if (input.stride() == input.row_samples()) {
    check(clEnqueueWriteBuffer(lane.queue(), image.buffer().get(), CL_FALSE, 0, row_bytes * height,
                               input.first_row(), 0, nullptr, lane.track(Lane::Stage::upload)),
          "clEnqueueWriteBuffer(input image)");
  } else {
    const std::size_t origin[3] = {0, 0, 0};
    const std::size_t region[3] = {row_bytes, height, 1};
    check(
        clEnqueueWriteBufferRect(lane.queue(), image.buffer().get(), CL_FALSE, origin, origin,
                                 region, row_bytes, 0, static_cast<std::size_t>(input.stride()), 0,
                                 input.first_row(), 0, nullptr, lane.track(Lane::Stage::upload)),
        "clEnqueueWriteBufferRect(input image)");
  }
  return image;
}

/// Enqueues the copy of `image` into `into` (same size), without waiting.
void enqueue_download(Lane& lane, const DeviceImage& image, Image& into) {
  check(clEnqueueReadBuffer(lane.queue(), image.buffer().get(), CL_FALSE, 0, image.bytes(),
                            into.data(), 0, nullptr, lane.track(Lane::Stage::download)),
        "clEnqueueReadBuffer(output image)");
}

}  // namespace

PendingImage start_chain(Lane& lane, const OpChain& chain, const ConstImageView& input,
                         Image* owned) {
  if (input.rows() != RowRange{0, input.height()}) {
    throw std::invalid_argument("opencl backend: the input view must address every row");
  }
  lane.begin_image();
  PendingImage pending;
  try {
    DeviceImage current = enqueue_upload(lane, input);
    lane.flush();  // the copy starts while the host enqueues the kernels
    DeviceResult result;
    for (const OpStep& step : chain) {
      result = run_step(lane, step, current);
      // The next step reads this result where it lies; every other buffer is free for it.
      lane.release_except(result.image.buffer());
      current = result.image;
    }
    pending.histogram = std::move(result.histogram);
    pending.threshold = result.threshold;
    if (const DeviceImage& out = result.image; out.buffer()) {
      // An input in the pool's page-locked memory (whoever handed it out) takes the result.
      if (owned != nullptr && !owned->empty() && lane.host_pool()->is_locked(owned->data())) {
        pending.output = std::move(*owned).reuse_as(out.width(), out.height(), out.channels());
      }
      if (pending.output.empty()) {
        pending.output =
            Image::uninitialized(out.width(), out.height(), out.channels(), lane.host_results());
      }
      enqueue_download(lane, out, pending.output);
      pending.downloading = true;
    }
    if (owned != nullptr && !owned->empty()) pending.input = std::move(*owned);
    lane.flush();
  } catch (...) {
    lane.drain();  // before the buffers and host memory its commands use are released
    throw;
  }
  return pending;
}

OpOutput finish_chain(Lane& lane, PendingImage& pending, StageTimes* times) {
  try {
    lane.finish(times);
  } catch (...) {
    lane.drain();
    throw;
  }
  OpOutput output;
  output.histogram = std::move(pending.histogram);
  output.threshold = pending.threshold;
  if (pending.downloading) output.image = std::move(pending.output);
  pending.input = Image();
  return output;
}

}  // namespace parfilter::opencl
