#include "parfilter/host_buffer_pool.hpp"

#include <new>
#include <utility>

namespace parfilter {
namespace {

/// A cached buffer serves a request down to half its size: a little slack, never a large waste.
constexpr std::size_t kMaxSlack = 2;

/// The pool's buffers for results: always locked.
class LockedResults final : public SampleAllocator {
 public:
  explicit LockedResults(std::shared_ptr<HostBufferPool> pool) : pool_(std::move(pool)) {}
  [[nodiscard]] void* allocate(std::size_t bytes) override { return pool_->allocate_locked(bytes); }
  void deallocate(void* p, std::size_t bytes) noexcept override { pool_->deallocate(p, bytes); }

 private:
  std::shared_ptr<HostBufferPool> pool_;
};

}  // namespace

HostBufferPool::HostBufferPool(std::size_t cached_bytes, bool ready)
    : ready_(ready), cap_(cached_bytes) {}

HostBufferPool::~HostBufferPool() = default;

void* HostBufferPool::allocate(std::size_t bytes) {
  if (!ready_) return ordinary_.allocate(bytes);
  if (void* p = cached(bytes)) return p;
  const std::unique_lock locking(locking_, std::try_to_lock);
  if (!locking.owns_lock()) return ordinary_.allocate(bytes);
  return locked(bytes);
}

void* HostBufferPool::allocate_locked(std::size_t bytes) {
  if (void* p = cached(bytes)) return p;
  const std::scoped_lock locking(locking_);
  return locked(bytes);
}

void HostBufferPool::deallocate(void* p, std::size_t /*bytes*/) noexcept {
  if (ordinary_.release(p)) return;
  std::unique_lock lock(mutex_);
  const auto found = capacity_.find(p);
  if (found == capacity_.end()) return;
  const std::size_t capacity = found->second;
  if (cached_ + capacity <= cap_) {
    cached_ += capacity;
    free_.emplace(capacity, p);
    return;
  }
  capacity_.erase(found);
  lock.unlock();
  unlock(p, capacity);
}

bool HostBufferPool::is_locked(const void* p) {
  const std::scoped_lock lock(mutex_);
  return capacity_.contains(const_cast<void*>(p));  // NOLINT: a key, never written through
}

std::shared_ptr<SampleAllocator> HostBufferPool::results_of(std::shared_ptr<HostBufferPool> pool) {
  return std::make_shared<LockedResults>(std::move(pool));
}

void HostBufferPool::release_cached() noexcept {
  std::multimap<std::size_t, void*> cached;
  {
    const std::scoped_lock lock(mutex_);
    cached.swap(free_);
    for (const auto& [capacity, p] : cached) capacity_.erase(p);
    cached_ = 0;
  }
  for (const auto& [capacity, p] : cached) unlock(p, capacity);
}

void* HostBufferPool::cached(std::size_t bytes) {
  const std::scoped_lock lock(mutex_);
  const auto fit = free_.lower_bound(bytes);
  if (fit == free_.end() || fit->first > bytes * kMaxSlack) return nullptr;
  void* p = fit->second;
  cached_ -= fit->first;
  free_.erase(fit);
  return p;
}

void* HostBufferPool::locked(std::size_t bytes) {
  void* p = lock_new(bytes);
  const std::scoped_lock lock(mutex_);
  capacity_[p] = bytes;
  return p;
}

void* OrdinaryBuffers::allocate(std::size_t bytes) {
  void* p = detail::allocate_samples(bytes);
  try {
    const std::scoped_lock lock(mutex_);
    handed_out_.emplace(p, bytes);
  } catch (...) {
    detail::free_samples(p, bytes);
    throw;
  }
  return p;
}

bool OrdinaryBuffers::release(void* p) noexcept {
  std::size_t bytes = 0;
  {
    const std::scoped_lock lock(mutex_);
    const auto found = handed_out_.find(p);
    if (found == handed_out_.end()) return false;
    bytes = found->second;
    handed_out_.erase(found);
  }
  detail::free_samples(p, bytes);
  return true;
}

}  // namespace parfilter
