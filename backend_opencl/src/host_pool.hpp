// A pool of host-mapped OpenCL buffers for images (a SampleAllocator): each buffer is created
// with CL_MEM_ALLOC_HOST_PTR and mapped once, so its host pointer is page-locked memory that
// the driver transfers from and to at bus speed (NVIDIA's recommended way to pin memory in
// OpenCL). The batch pipeline decodes inputs into them and results are read back into them.
// Freed buffers are kept, up to a cap, for the next image: mapping a new one pins its pages.
#pragma once

#include <cstddef>
#include <map>
#include <mutex>

#include "cl_api.hpp"
#include "parfilter/image.hpp"

namespace parfilter::opencl {

class HostPool final : public SampleAllocator {
 public:
  /// Keeps at most `cached_bytes` of freed buffers for reuse.
  HostPool(const Context& context, cl_device_id device, std::size_t cached_bytes);
  ~HostPool() override;
  HostPool(const HostPool&) = delete;
  HostPool& operator=(const HostPool&) = delete;

  [[nodiscard]] void* allocate(std::size_t bytes) override;
  void deallocate(void* p, std::size_t bytes) noexcept override;

 private:
  struct Mapped {
    Buffer buffer;
    std::size_t bytes = 0;
  };
  void release(void* p, Mapped& mapped) noexcept;

  Context context_;
  Queue queue_;  // its own: maps and unmaps never wait behind the runtime's kernels
  std::mutex mutex_;
  std::size_t cap_;
  std::size_t cached_ = 0;
  std::multimap<std::size_t, void*> free_;  // by size
  std::map<void*, Mapped> mapped_;          // every buffer, handed out or free
};

}  // namespace parfilter::opencl
