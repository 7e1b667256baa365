// The CUDA backend's pool of page-locked host buffers for images (HostBufferPool's policy:
// locked one at a time, ordinary memory meanwhile, cached for reuse), locked with
// cudaHostAlloc. Until the device is ready it hands out ordinary memory: pinning would wait
// for the context being created.
#pragma once

#include <cstddef>

#include "parfilter/host_buffer_pool.hpp"

namespace parfilter::cuda {

class PinnedPool final : public HostBufferPool {
 public:
  /// Keeps at most `cached_bytes` of freed buffers for reuse.
  explicit PinnedPool(std::size_t cached_bytes) : HostBufferPool(cached_bytes, false) {}
  PinnedPool(const PinnedPool&) = delete;
  PinnedPool& operator=(const PinnedPool&) = delete;
  ~PinnedPool() override { release_cached(); }

 private:
  [[nodiscard]] void* lock_new(std::size_t bytes) override;
  void unlock(void* p, std::size_t bytes) noexcept override;
};

/// Whether `p` lies in page-locked host memory (a transfer from it needs no staging).
[[nodiscard]] bool is_pinned(const void* p);

}  // namespace parfilter::cuda
