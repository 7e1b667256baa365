// A pool of page-locked host buffers for a device backend's images (a SampleAllocator): the
// batch pipeline decodes inputs into them and results are read back into them, so transfers run
// at bus speed. How a buffer is locked is the backend's (cudaHostAlloc, a mapped OpenCL buffer);
// the policy is here. Locking a buffer pins its pages (about 15 ms for 28 MB) and drivers lock
// one buffer at a time, so a decoder never waits for it: while another buffer is being locked,
// or before the device is ready, it gets ordinary memory, which the driver stages. Freed
// buffers are kept for the next image, up to a cap, so a long batch's buffers become
// page-locked one by one and are then reused.
#pragma once

#include <atomic>
#include <cstddef>
#include <map>
#include <memory>
#include <mutex>

#include "parfilter/image.hpp"

namespace parfilter {

/// The ordinary (pageable) buffers a pool hands out while it cannot lock one: allocated as an
/// Image's own samples are (detail::allocate_samples: a large one on huge pages, so a decoder
/// writing it takes a few faults instead of one per 4 KiB), and recorded, so that a pool tells
/// them from its locked buffers when they come back. Thread-safe.
class OrdinaryBuffers {
 public:
  OrdinaryBuffers() = default;
  OrdinaryBuffers(const OrdinaryBuffers&) = delete;
  OrdinaryBuffers& operator=(const OrdinaryBuffers&) = delete;
  ~OrdinaryBuffers() = default;

  [[nodiscard]] void* allocate(std::size_t bytes);
  /// Frees `p` if it is one of these buffers; false (and nothing done) otherwise.
  bool release(void* p) noexcept;

 private:
  std::mutex mutex_;
  std::map<void*, std::size_t> handed_out_;  // buffer -> its bytes
};

class HostBufferPool : public SampleAllocator {
 public:
  /// Keeps at most `cached_bytes` of freed buffers for reuse. Until mark_ready(), allocate()
  /// hands out ordinary memory (locking would wait for a device still starting).
  HostBufferPool(std::size_t cached_bytes, bool ready);
  HostBufferPool(const HostBufferPool&) = delete;
  HostBufferPool& operator=(const HostBufferPool&) = delete;
  /// A derived pool calls release_cached() in its own destructor (unlock is its own).
  ~HostBufferPool() override;

  /// A cached buffer, else a new locked one unless another is being locked right now or the
  /// device is not ready, else ordinary memory.
  [[nodiscard]] void* allocate(std::size_t bytes) override;
  /// A cached buffer or a new locked one, waiting for it if need be.
  [[nodiscard]] void* allocate_locked(std::size_t bytes);
  void deallocate(void* p, std::size_t bytes) noexcept override;

  void mark_ready() { ready_ = true; }
  /// Whether `p` starts one of this pool's locked buffers (handed out or cached).
  [[nodiscard]] bool is_locked(const void* p);

  /// An allocator over `pool` whose every buffer is locked (allocate_locked): where a result
  /// goes that has no input buffer to reuse, as reading back into pageable memory is slow.
  [[nodiscard]] static std::shared_ptr<SampleAllocator> results_of(
      std::shared_ptr<HostBufferPool> pool);

 protected:
  /// A new page-locked buffer of `bytes`; throws std::bad_alloc when there is none.
  [[nodiscard]] virtual void* lock_new(std::size_t bytes) = 0;
  /// Gives back a buffer lock_new made.
  virtual void unlock(void* p, std::size_t bytes) noexcept = 0;
  /// Unlocks every cached buffer.
  void release_cached() noexcept;

 private:
  [[nodiscard]] void* cached(std::size_t bytes);
  [[nodiscard]] void* locked(std::size_t bytes);

  std::atomic<bool> ready_;
  std::mutex locking_;  // held while lock_new runs
  std::mutex mutex_;
  std::size_t cap_;
  std::size_t cached_ = 0;
  std::multimap<std::size_t, void*> free_;  // cached locked buffers, by capacity
  std::map<void*, std::size_t> capacity_;   // every locked buffer, handed out or cached
  OrdinaryBuffers ordinary_;                // handed out while none could be locked
};

}  // namespace parfilter
