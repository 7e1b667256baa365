// HostBufferPool (parfilter/host_buffer_pool.hpp), the device backends' page-locked host
// buffers, against its promises with a fake lock: freed buffers are reused within a bounded
// slack and up to a cap; before the device is ready, and while another buffer is being locked,
// allocate() hands out ordinary memory instead of waiting, allocated as an Image's own samples
// are; results are always locked.
#include <gtest/gtest.h>

#include <atomic>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <new>
#include <thread>

#include "parfilter/host_buffer_pool.hpp"

namespace parfilter {
namespace {

constexpr std::size_t kBytes = 1000;
constexpr std::size_t kRoomy = 10 * kBytes;
/// An image-sized buffer: an Image's samples of this size start on a cache line at least.
constexpr std::size_t kImageBytes = std::size_t{8} << 20;
constexpr std::uintptr_t kCacheLine = 64;

/// Locks with plain new and delete, counting; lock_new can be held until let go.
class FakePool final : public HostBufferPool {
 public:
  FakePool(std::size_t cached_bytes, bool ready) : HostBufferPool(cached_bytes, ready) {}
  ~FakePool() override { release_cached(); }
  FakePool(const FakePool&) = delete;
  FakePool& operator=(const FakePool&) = delete;

  void hold_locks() { held_ = true; }
  void let_go() {
    const std::scoped_lock lock(mutex_);
    held_ = false;
    changed_.notify_all();
  }
  void wait_until_locking() {
    std::unique_lock lock(mutex_);
    changed_.wait(lock, [&] { return locking_; });
  }

  std::atomic<int> locks{0};
  std::atomic<int> unlocks{0};

 private:
  void* lock_new(std::size_t bytes) override {
    std::unique_lock lock(mutex_);
    locking_ = true;
    changed_.notify_all();
    changed_.wait(lock, [&] { return !held_; });
    locking_ = false;
    ++locks;
    return ::operator new(bytes);
  }
  void unlock(void* p, std::size_t /*bytes*/) noexcept override {
    ++unlocks;
    ::operator delete(p);
  }

  std::mutex mutex_;
  std::condition_variable changed_;
  bool held_ = false;
  bool locking_ = false;
};

TEST(HostBufferPool, AFreedBufferServesTheNextRequestDownToHalfItsSize) {
  FakePool pool(kRoomy, true);
  void* first = pool.allocate(kBytes);
  EXPECT_TRUE(pool.is_locked(first));
  pool.deallocate(first, kBytes);
  void* again = pool.allocate(kBytes / 2);
  EXPECT_EQ(again, first);
  pool.deallocate(again, kBytes / 2);
  void* small = pool.allocate(kBytes / 2 - 1);  // too small for the cached buffer
  EXPECT_NE(small, first);
  EXPECT_EQ(pool.locks, 2);
  pool.deallocate(small, kBytes / 2 - 1);
}

TEST(HostBufferPool, KeepsFreedBuffersUpToItsCap) {
  FakePool pool(kBytes, true);
  void* a = pool.allocate(kBytes);
  void* b = pool.allocate(kBytes);
  pool.deallocate(a, kBytes);
  pool.deallocate(b, kBytes);  // over the cap: unlocked at once
  EXPECT_EQ(pool.unlocks, 1);
}

TEST(HostBufferPool, HandsOutOrdinaryMemoryUntilTheDeviceIsReady) {
  FakePool pool(kRoomy, false);
  void* early = pool.allocate(kBytes);
  EXPECT_FALSE(pool.is_locked(early));
  EXPECT_EQ(pool.locks, 0);
  pool.mark_ready();
  void* later = pool.allocate(kBytes);
  EXPECT_TRUE(pool.is_locked(later));
  pool.deallocate(early, kBytes);
  pool.deallocate(later, kBytes);
  EXPECT_EQ(pool.unlocks, 0);  // the ordinary one went back to the heap, the locked one cached
}

TEST(HostBufferPool, OrdinaryMemoryIsAllocatedAsAnImagesSamples) {
  FakePool pool(kRoomy, false);
  void* early = pool.allocate(kImageBytes);
  EXPECT_EQ(reinterpret_cast<std::uintptr_t>(early) % kCacheLine, 0U);
  pool.deallocate(early, kImageBytes);
}

TEST(OrdinaryBuffers, ReleasesOnlyItsOwnBuffers) {
  OrdinaryBuffers buffers;
  void* own = buffers.allocate(kBytes);
  int elsewhere = 0;
  EXPECT_FALSE(buffers.release(&elsewhere));
  EXPECT_TRUE(buffers.release(own));
  EXPECT_FALSE(buffers.release(own));  // once only
}

TEST(HostBufferPool, ADecoderNeverWaitsWhileAnotherBufferIsBeingLocked) {
  FakePool pool(kRoomy, true);
  pool.hold_locks();
  void* first = nullptr;
  std::thread locker([&] { first = pool.allocate(kBytes); });
  pool.wait_until_locking();
  void* meanwhile = pool.allocate(kBytes);  // returns at once
  EXPECT_FALSE(pool.is_locked(meanwhile));
  pool.let_go();
  locker.join();
  EXPECT_TRUE(pool.is_locked(first));
  pool.deallocate(first, kBytes);
  pool.deallocate(meanwhile, kBytes);
}

TEST(HostBufferPool, AResultWaitsForItsLockedBuffer) {
  auto pool = std::make_shared<FakePool>(kRoomy, true);
  const std::shared_ptr<SampleAllocator> results = HostBufferPool::results_of(pool);
  pool->hold_locks();
  void* first = nullptr;
  std::thread locker([&] { first = pool->allocate(kBytes); });
  pool->wait_until_locking();
  void* result = nullptr;
  std::thread reader([&] { result = results->allocate(kBytes); });
  pool->let_go();
  locker.join();
  reader.join();
  EXPECT_TRUE(pool->is_locked(first));
  EXPECT_TRUE(pool->is_locked(result));
  results->deallocate(result, kBytes);
  pool->deallocate(first, kBytes);
}

}  // namespace
}  // namespace parfilter
