#include "pinned_pool.hpp"

#include <cuda_runtime.h>

#include <memory>
#include <mutex>
#include <new>
#include <utility>

namespace parfilter::cuda {
namespace {

/// A cached buffer serves a request down to half its size: a little slack, never a large waste.
constexpr std::size_t kMaxSlack = 2;

}  // namespace

PinnedPool::PinnedPool(std::size_t cached_bytes) : cap_(cached_bytes) {}

PinnedPool::~PinnedPool() {
  for (const auto& [bytes, p] : free_) (void)cudaFreeHost(p);
}

void* PinnedPool::allocate(std::size_t bytes) {
  if (!device_ready_) return heap(bytes);
  if (void* p = cached(bytes)) return p;
  std::unique_lock pinning(pinning_, std::try_to_lock);
  if (!pinning.owns_lock()) return heap(bytes);
  return pin(bytes);
}

void* PinnedPool::allocate_pinned(std::size_t bytes) {
  if (void* p = cached(bytes)) return p;
  const std::scoped_lock pinning(pinning_);
  return pin(bytes);
}

void* PinnedPool::cached(std::size_t bytes) {
  const std::scoped_lock lock(mutex_);
  const auto fit = free_.lower_bound(bytes);
  if (fit == free_.end() || fit->first > bytes * kMaxSlack) return nullptr;
  void* p = fit->second;
  cached_ -= fit->first;
  capacity_[p] = fit->first;
  free_.erase(fit);
  return p;
}

void* PinnedPool::heap(std::size_t bytes) {
  void* p = ::operator new(bytes);
  const std::scoped_lock lock(mutex_);
  heap_.insert(p);
  return p;
}

void* PinnedPool::pin(std::size_t bytes) {
  void* p = nullptr;
  if (cudaHostAlloc(&p, bytes, cudaHostAllocPortable) != cudaSuccess) {
    (void)cudaGetLastError();
    throw std::bad_alloc();
  }
  const std::scoped_lock lock(mutex_);
  capacity_[p] = bytes;
  return p;
}

void PinnedPool::deallocate(void* p, std::size_t /*bytes*/) noexcept {
  std::unique_lock lock(mutex_);
  if (heap_.erase(p) > 0) {
    lock.unlock();
    ::operator delete(p);
    return;
  }
  const auto found = capacity_.find(p);
  const std::size_t capacity = found != capacity_.end() ? found->second : 0;
  if (found != capacity_.end()) capacity_.erase(found);
  if (cached_ + capacity <= cap_) {
    cached_ += capacity;
    free_.emplace(capacity, p);
    return;
  }
  lock.unlock();
  (void)cudaFreeHost(p);
}

namespace {

class PinnedResults final : public SampleAllocator {
 public:
  explicit PinnedResults(std::shared_ptr<PinnedPool> pool) : pool_(std::move(pool)) {}
  [[nodiscard]] void* allocate(std::size_t bytes) override { return pool_->allocate_pinned(bytes); }
  void deallocate(void* p, std::size_t bytes) noexcept override { pool_->deallocate(p, bytes); }

 private:
  std::shared_ptr<PinnedPool> pool_;
};

}  // namespace

std::shared_ptr<SampleAllocator> PinnedPool::results_of(std::shared_ptr<PinnedPool> pool) {
  return std::make_shared<PinnedResults>(std::move(pool));
}

bool is_pinned(const void* p) {
  cudaPointerAttributes attributes{};
  if (cudaPointerGetAttributes(&attributes, p) != cudaSuccess) {
    (void)cudaGetLastError();
    return false;
  }
  return attributes.type == cudaMemoryTypeHost;
}

}  // namespace parfilter::cuda
