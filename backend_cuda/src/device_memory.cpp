#include "device_memory.hpp"

#include <algorithm>
#include <cstddef>
#include <memory>
#include <utility>

#include "cuda_op.hpp"
#include "deep_device.hpp"

namespace parfilter::cuda {
namespace {

/// Orders `later`'s next work after what `earlier` has queued so far.
void order_after(cudaStream_t earlier, cudaStream_t later) {
  cudaEvent_t event = nullptr;
  CUDA_CHECK(cudaEventCreateWithFlags(&event, cudaEventDisableTiming));
  CUDA_CHECK(cudaEventRecord(event, earlier));
  const cudaError_t waited = cudaStreamWaitEvent(later, event, 0);
  // The wait holds what it needs: the event may go at once.
  CUDA_CHECK(cudaEventDestroy(event));
  CUDA_CHECK(waited);
}

[[nodiscard]] std::size_t packed_row(int width, int channels) {
  return static_cast<std::size_t>(width) * static_cast<std::size_t>(channels);
}

}  // namespace

std::shared_ptr<void> packed_device_copy(const void* source, std::size_t pitch,
                                         std::size_t row_bytes, int height, cudaStream_t stream) {
  void* memory = nullptr;
  CUDA_CHECK(cudaMalloc(&memory, std::max<std::size_t>(row_bytes * height, 1)));
  std::shared_ptr<void> owner(memory, [](void* p) { (void)cudaFree(p); });
  CUDA_CHECK(cudaMemcpy2DAsync(memory, row_bytes, source, pitch, row_bytes,
                               static_cast<std::size_t>(height), cudaMemcpyDeviceToDevice, stream));
  return owner;
}

DeviceOutput run_on_device_memory(Workspace& ws, const OpChain& resolved,
                                  const DeviceImageRef& input, cudaStream_t caller) {
  const cudaStream_t stream = ws.stream.get();
  order_after(caller, stream);  // the array's producer has written it before we read it
  if (input.depth == Depth::u16) {
    DeviceOutput output = run_chain_16_on_device(ws, resolved, input);
    order_after(stream, caller);  // the caller's next work sees the result
    return output;
  }
  // The kernels read pitched rows of the workspace (texture alignment), so the array is
  // copied in once, device to device.
  const DeviceImage in = ws.image(ws.input, input.width, input.height, input.channels);
  const std::size_t in_row = packed_row(input.width, input.channels);
  CUDA_CHECK(cudaMemcpy2DAsync(in.data, in.pitch, input.data, input.pitch, in_row,
                               static_cast<std::size_t>(input.height), cudaMemcpyDeviceToDevice,
                               stream));
  DeviceResult result = run_chain_steps(ws, resolved, in);
  DeviceOutput output;
  output.histogram = std::move(result.histogram);
  output.threshold = result.threshold;
  const DeviceImage& out = result.image;
  if (out.data != nullptr) {
    const std::size_t out_row = packed_row(out.width, out.channels);
    output.owner = packed_device_copy(out.data, out.pitch, out_row, out.height, stream);
    output.image = {static_cast<std::uint8_t*>(output.owner.get()),
                    out.width,
                    out.height,
                    out.channels,
                    out_row,
                    input.device};
  }
  order_after(stream, caller);  // the caller's next work sees the result
  return output;
}

}  // namespace parfilter::cuda
