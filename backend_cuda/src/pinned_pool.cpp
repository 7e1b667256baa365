#include "pinned_pool.hpp"

#include <cuda_runtime.h>

#include <new>

namespace parfilter::cuda {

void* PinnedPool::lock_new(std::size_t bytes) {
  void* p = nullptr;
  if (cudaHostAlloc(&p, bytes, cudaHostAllocPortable) != cudaSuccess) {
    (void)cudaGetLastError();
    throw std::bad_alloc();
  }
  return p;
}

void PinnedPool::unlock(void* p, std::size_t /*bytes*/) noexcept { (void)cudaFreeHost(p); }

bool is_pinned(const void* p) {
  cudaPointerAttributes attributes{};
  if (cudaPointerGetAttributes(&attributes, p) != cudaSuccess) {
    (void)cudaGetLastError();
    return false;
  }
  return attributes.type == cudaMemoryTypeHost;
}

}  // namespace parfilter::cuda
