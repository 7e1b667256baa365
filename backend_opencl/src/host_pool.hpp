// The OpenCL backend's pool of page-locked host buffers for images (HostBufferPool's policy:
// locked one at a time, ordinary memory meanwhile, cached for reuse). Each buffer is created
// with CL_MEM_ALLOC_HOST_PTR and mapped once, so its host pointer is page-locked memory that the
// driver transfers from and to at bus speed (NVIDIA's recommended way to pin memory in
// OpenCL).
#pragma once

#include <cstddef>
#include <map>
#include <mutex>

#include "cl_api.hpp"
#include "parfilter/host_buffer_pool.hpp"

namespace parfilter::opencl {

class HostPool final : public HostBufferPool {
 public:
  /// Keeps at most `cached_bytes` of freed buffers for reuse.
  HostPool(const Context& context, cl_device_id device, std::size_t cached_bytes);
  HostPool(const HostPool&) = delete;
  HostPool& operator=(const HostPool&) = delete;
  ~HostPool() override;

 private:
  [[nodiscard]] void* lock_new(std::size_t bytes) override;
  void unlock(void* p, std::size_t bytes) noexcept override;

  Context context_;
  Queue queue_;  // its own: maps and unmaps never wait behind the runtime's kernels
  std::mutex mutex_;
  std::map<void*, Buffer> buffers_;  // the mapped buffer of every pointer handed out
};

}  // namespace parfilter::opencl
