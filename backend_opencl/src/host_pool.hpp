// The OpenCL backend's pool of page-locked host buffers for images (HostBufferPool's policy:
// locked one at a time, ordinary memory meanwhile, cached for reuse). Each buffer is created
// with CL_MEM_ALLOC_HOST_PTR and mapped once, so its host pointer is page-locked memory that the
// driver transfers from and to at bus speed (NVIDIA's recommended way to pin memory in
// OpenCL).
#pragma once

#include <cstddef>
#include <map>
#include <memory>
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

/// The backend's allocator for a batch's inputs, which exists before its device does (the
/// device is found while the first inputs are decoded): ordinary memory until attach() names
/// the device's pool, that pool's buffers after.
class PoolOnceAttached final : public SampleAllocator {
 public:
  PoolOnceAttached() = default;
  PoolOnceAttached(const PoolOnceAttached&) = delete;
  PoolOnceAttached& operator=(const PoolOnceAttached&) = delete;
  ~PoolOnceAttached() override = default;

  /// From now on, allocations come from `pool` (the first call wins).
  void attach(const std::shared_ptr<HostPool>& pool);
  [[nodiscard]] void* allocate(std::size_t bytes) override;
  void deallocate(void* p, std::size_t bytes) noexcept override;
  /// Whether `p` starts one of the attached pool's page-locked buffers.
  [[nodiscard]] bool is_locked(const void* p);

 private:
  std::mutex mutex_;
  std::shared_ptr<HostPool> pool_;
  OrdinaryBuffers ordinary_;  // handed out before attach()
};

}  // namespace parfilter::opencl
