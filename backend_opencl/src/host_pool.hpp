// A pool of host-mapped OpenCL buffers for images (a SampleAllocator): each buffer is created
// with CL_MEM_ALLOC_HOST_PTR and mapped once, so its host pointer is page-locked memory that
// the driver transfers from and to at bus speed (NVIDIA's recommended way to pin memory in
// OpenCL). The batch pipeline decodes inputs into them and results are read back into them.
// Freed buffers are kept, up to a cap, for the next image: mapping a new one pins its pages
// (tens of ms for a large image), one buffer at a time.
#pragma once

#include <cstddef>
#include <map>
#include <memory>
#include <mutex>
#include <set>

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

  /// A cached buffer, else a new mapped one unless another is being mapped right now, else
  /// ordinary memory (uploaded and read back through the driver's staging): a decoder never
  /// waits in line for pinning, and a long batch's buffers become page-locked one at a time.
  [[nodiscard]] void* allocate(std::size_t bytes) override;
  /// A cached buffer or a new mapped one, waiting for it if need be (a result's buffer: a read
  /// into pageable memory is slow).
  [[nodiscard]] void* allocate_mapped(std::size_t bytes);
  void deallocate(void* p, std::size_t bytes) noexcept override;
  /// Whether `p` starts one of this pool's mapped (page-locked) buffers.
  [[nodiscard]] bool is_mapped(const void* p);

  /// An allocator over `pool` whose every buffer is mapped (allocate_mapped).
  [[nodiscard]] static std::shared_ptr<SampleAllocator> results_of(std::shared_ptr<HostPool> pool);

 private:
  struct Mapped {
    Buffer buffer;
    std::size_t bytes = 0;
  };
  [[nodiscard]] void* cached(std::size_t bytes);
  [[nodiscard]] void* map_new(std::size_t bytes);
  void release(void* p, Mapped& mapped) noexcept;

  Context context_;
  Queue queue_;         // its own: maps and unmaps never wait behind the runtime's kernels
  std::mutex mapping_;  // held while a new buffer is created and mapped
  std::mutex mutex_;
  std::size_t cap_;
  std::size_t cached_ = 0;
  std::multimap<std::size_t, void*> free_;  // by size
  std::map<void*, Mapped> mapped_;          // every buffer, handed out or free
  std::set<void*> heap_;                    // ordinary memory handed out
};

}  // namespace parfilter::opencl
