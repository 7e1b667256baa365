// A pool of page-locked host buffers for images (a SampleAllocator): the batch pipeline decodes
// inputs straight into them and the backend downloads results straight into them, so transfers
// run at bus speed with no staging copy and no freshly faulted-in pages. Freed buffers are kept
// for the next image, up to a cap; cudaHostAlloc is slow (it pins every page, about 15 ms for
// 28 MB, and the driver pins one buffer at a time), reuse is not.
#pragma once

#include <atomic>
#include <cstddef>
#include <map>
#include <memory>
#include <mutex>
#include <set>

#include "parfilter/image.hpp"

namespace parfilter::cuda {

class PinnedPool final : public SampleAllocator {
 public:
  /// Keeps at most `cached_bytes` of freed buffers for reuse.
  explicit PinnedPool(std::size_t cached_bytes);
  ~PinnedPool() override;

  /// A cached buffer, else a new page-locked one unless another is being pinned right now,
  /// else ordinary memory: a decoder never waits in the driver's line, and a long batch's
  /// buffers become page-locked one at a time, then are reused.
  [[nodiscard]] void* allocate(std::size_t bytes) override;
  /// A cached buffer or a new page-locked one, waiting for it if need be (a result's download
  /// target: a download into pageable memory blocks the host).
  [[nodiscard]] void* allocate_pinned(std::size_t bytes);
  void deallocate(void* p, std::size_t bytes) noexcept override;

  /// An allocator over `pool` whose every buffer is page-locked (allocate_pinned).
  [[nodiscard]] static std::shared_ptr<SampleAllocator> results_of(
      std::shared_ptr<PinnedPool> pool);

  /// From now on buffers are page-locked. Until then (the CUDA context is still being
  /// created: pinning would wait for it), they are ordinary memory, which the backend uploads
  /// through its staging buffer.
  void mark_device_ready() { device_ready_ = true; }

 private:
  [[nodiscard]] void* cached(std::size_t bytes);
  [[nodiscard]] void* heap(std::size_t bytes);
  [[nodiscard]] void* pin(std::size_t bytes);

  std::atomic<bool> device_ready_{false};
  std::mutex pinning_;    // held while cudaHostAlloc runs
  std::set<void*> heap_;  // the ordinary buffers handed out before the device was ready
  std::mutex mutex_;
  std::size_t cap_;
  std::size_t cached_ = 0;
  std::multimap<std::size_t, void*> free_;  // by capacity
  std::map<void*, std::size_t> capacity_;   // of every buffer handed out
};

/// Whether `p` lies in page-locked host memory (a transfer from it needs no staging).
[[nodiscard]] bool is_pinned(const void* p);

}  // namespace parfilter::cuda
