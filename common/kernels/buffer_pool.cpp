#include "buffer_pool.hpp"

#include <algorithm>
#include <new>

// A kept buffer is dead memory until it is handed out again: ASan reports any access to it
// (a use of a destroyed image's samples), and valgrind treats a reused buffer as unwritten,
// as it would a fresh one.
#if defined(__SANITIZE_ADDRESS__) && __has_include(<sanitizer/asan_interface.h>)
#include <sanitizer/asan_interface.h>
#define PARFILTER_POOL_POISON(p, n) ASAN_POISON_MEMORY_REGION(p, n)
#define PARFILTER_POOL_UNPOISON(p, n) ASAN_UNPOISON_MEMORY_REGION(p, n)
#else
#define PARFILTER_POOL_POISON(p, n) ((void)(p), (void)(n))
#define PARFILTER_POOL_UNPOISON(p, n) ((void)(p), (void)(n))
#endif
#if __has_include(<valgrind/memcheck.h>)
#include <valgrind/memcheck.h>
#define PARFILTER_POOL_UNDEFINED(p, n) VALGRIND_MAKE_MEM_UNDEFINED(p, n)
#else
#define PARFILTER_POOL_UNDEFINED(p, n) ((void)(p), (void)(n))
#endif

namespace parfilter {

BufferPool::BufferPool(std::size_t cached_bytes, bool prefault)
    : prefault_(prefault), cap_(cached_bytes) {}

BufferPool::~BufferPool() {
  for (const auto& [bytes, p] : free_) {
    PARFILTER_POOL_UNPOISON(p, bytes);
    detail::free_samples(p, bytes);
  }
}

void* BufferPool::allocate(std::size_t bytes) {
  if (bytes >= kMinPooledBytes) {
    const std::lock_guard lock(mutex_);
    // The most recently freed buffer of this size: the likeliest to be in cache.
    const auto it = std::find_if(free_.rbegin(), free_.rend(),
                                 [bytes](const auto& entry) { return entry.first == bytes; });
    if (it != free_.rend()) {
      void* p = it->second;
      cached_ -= bytes;
      free_.erase(std::next(it).base());
      PARFILTER_POOL_UNPOISON(p, bytes);
      PARFILTER_POOL_UNDEFINED(p, bytes);
      return p;
    }
  }
  void* p = detail::allocate_samples(bytes);
  if (prefault_) detail::prefault_samples(p, bytes);
  return p;
}

void BufferPool::deallocate(void* p, std::size_t bytes) noexcept {
  if (bytes < kMinPooledBytes || bytes > cap_) {
    detail::free_samples(p, bytes);
    return;
  }
  try {
    const std::lock_guard lock(mutex_);
    free_.emplace_back(bytes, p);
    cached_ += bytes;
    PARFILTER_POOL_POISON(p, bytes);
  } catch (const std::bad_alloc&) {
    detail::free_samples(p, bytes);  // no room to remember it: not kept
    return;
  }
  // The oldest buffers beyond the cap go back to the heap, outside the lock (munmap is slow).
  for (;;) {
    std::pair<std::size_t, void*> oldest;
    {
      const std::lock_guard lock(mutex_);
      if (cached_ <= cap_) return;
      oldest = free_.front();
      free_.pop_front();
      cached_ -= oldest.first;
    }
    PARFILTER_POOL_UNPOISON(oldest.second, oldest.first);
    detail::free_samples(oldest.second, oldest.first);
  }
}

std::size_t BufferPool::cached_bytes() {
  const std::lock_guard lock(mutex_);
  return cached_;
}

std::shared_ptr<BufferPool> make_buffer_pool(bool prefault) {
  return std::make_shared<BufferPool>(BufferPool::kDefaultCachedBytes, prefault);
}

}  // namespace parfilter
