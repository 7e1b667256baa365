// The CPU backends' allocator for op outputs and intermediates (a SampleAllocator): freed
// buffers are kept and handed out again for the next image of the same size, so an op on a
// stream of same-size images writes into pages that are already mapped. A fresh buffer's
// first touch costs the kernel a page fault and a zeroed page per 4 KiB: on the 2-vCPU VM
// 35-40 ms per 64 MiB, more than most ops' whole computation (docs/CPU_KERNELS.md).
#pragma once

#include <cstddef>
#include <list>
#include <memory>
#include <mutex>
#include <utility>

#include "parfilter/image.hpp"

namespace parfilter {

class BufferPool final : public SampleAllocator {
 public:
  /// Buffers smaller than this go straight back to the heap: malloc reuses those itself (it
  /// maps only large ones fresh).
  static constexpr std::size_t kMinPooledBytes = std::size_t{1} << 20;
  /// The freed bytes kept at most; the oldest buffers go back to the heap beyond it. They are
  /// bytes the process held a moment before, so the pool adds nothing to its peak memory.
  static constexpr std::size_t kDefaultCachedBytes = std::size_t{512} << 20;

  /// `prefault`: map a new buffer's pages at once (detail::prefault_samples), for a backend
  /// whose one thread fills its outputs.
  explicit BufferPool(std::size_t cached_bytes = kDefaultCachedBytes, bool prefault = false);
  BufferPool(const BufferPool&) = delete;
  BufferPool& operator=(const BufferPool&) = delete;
  ~BufferPool() override;

  /// A kept buffer of exactly `bytes` if there is one (the most recently freed), else a new
  /// one. Its contents are unspecified, as Image::uninitialized's are.
  [[nodiscard]] void* allocate(std::size_t bytes) override;
  /// Keeps the buffer for reuse, or frees it. Thread-safe: images die on any thread.
  void deallocate(void* p, std::size_t bytes) noexcept override;

  /// Bytes kept now (for tests).
  [[nodiscard]] std::size_t cached_bytes();

 private:
  std::mutex mutex_;
  bool prefault_;
  std::size_t cap_;
  std::size_t cached_ = 0;
  std::list<std::pair<std::size_t, void*>> free_;  ///< (bytes, buffer), the oldest first
};

/// A new pool for one backend; `prefault` as BufferPool's.
[[nodiscard]] std::shared_ptr<BufferPool> make_buffer_pool(bool prefault = false);

}  // namespace parfilter
