#include "cuda_util.hpp"

#include "parfilter/error.hpp"

namespace parfilter::cuda {

void check(cudaError_t status, const char* call) {
  if (status == cudaSuccess) return;
  std::string message;
  if (status == cudaErrorMemoryAllocation) message = "out of device memory: ";
  message +=
      std::string(call) + ": " + cudaGetErrorName(status) + " (" + cudaGetErrorString(status) + ")";
  throw RuntimeError(message);
}

void check_launch(const char* kernel) {
  const cudaError_t status = cudaGetLastError();
  if (status != cudaSuccess) check(status, (std::string("launch of ") + kernel).c_str());
}

void* DeviceAlloc::operator()(std::size_t bytes) const {
  void* p = nullptr;
  const cudaError_t status = cudaMalloc(&p, bytes);
  if (status != cudaSuccess) {
    (void)cudaGetLastError();  // an allocation failure is not sticky: clear it
    check(status, ("cudaMalloc(" + std::to_string(bytes) + " bytes)").c_str());
  }
  return p;
}

void DeviceFree::operator()(void* p) const noexcept { (void)cudaFree(p); }

void* PinnedAlloc::operator()(std::size_t bytes) const {
  void* p = nullptr;
  const cudaError_t status = cudaMallocHost(&p, bytes);
  if (status != cudaSuccess) {
    (void)cudaGetLastError();
    check(status, ("cudaMallocHost(" + std::to_string(bytes) + " bytes)").c_str());
  }
  return p;
}

void PinnedFree::operator()(void* p) const noexcept { (void)cudaFreeHost(p); }

Stream::Stream() { CUDA_CHECK(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking)); }
Stream::~Stream() { (void)cudaStreamDestroy(stream_); }
void Stream::synchronize() const { CUDA_CHECK(cudaStreamSynchronize(stream_)); }

Event::Event() { CUDA_CHECK(cudaEventCreate(&event_)); }
Event::~Event() { (void)cudaEventDestroy(event_); }
void Event::record(cudaStream_t stream) const { CUDA_CHECK(cudaEventRecord(event_, stream)); }
float Event::ms_since(const Event& start) const {
  float ms = 0.0F;
  CUDA_CHECK(cudaEventElapsedTime(&ms, start.event_, event_));
  return ms;
}

TextureObject::TextureObject(const cudaResourceDesc& resource, const cudaTextureDesc& texture) {
  CUDA_CHECK(cudaCreateTextureObject(&texture_, &resource, &texture, nullptr));
}
TextureObject::~TextureObject() { (void)cudaDestroyTextureObject(texture_); }

}  // namespace parfilter::cuda
