// A pool of page-locked host buffers for images (a SampleAllocator): the batch pipeline decodes
// inputs straight into them and the backend downloads results straight into them, so transfers
// run at bus speed with no staging copy and no freshly faulted-in pages. Freed buffers are kept
// for the next image, up to a cap; cudaHostAlloc is slow (it pins every page), reuse is not.
#pragma once

#include <cstddef>
#include <map>
#include <mutex>

#include "parfilter/image.hpp"

namespace parfilter::cuda {

class PinnedPool final : public SampleAllocator {
 public:
  /// Keeps at most `cached_bytes` of freed buffers for reuse.
  explicit PinnedPool(std::size_t cached_bytes);
  ~PinnedPool() override;

  [[nodiscard]] void* allocate(std::size_t bytes) override;
  void deallocate(void* p, std::size_t bytes) noexcept override;

 private:
  std::mutex mutex_;
  std::size_t cap_;
  std::size_t cached_ = 0;
  std::multimap<std::size_t, void*> free_;  // by capacity
  std::map<void*, std::size_t> capacity_;   // of every buffer handed out
};

/// Whether `p` lies in page-locked host memory (a transfer from it needs no staging).
[[nodiscard]] bool is_pinned(const void* p);

}  // namespace parfilter::cuda
