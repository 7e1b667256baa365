// The CPU backends' BufferPool: freed buffers come back for the next image of the same size,
// small ones and those beyond the cap go to the heap, and images from a backend reuse them.
#include <gtest/gtest.h>

#include <cstdint>
#include <thread>
#include <vector>

#include "buffer_pool.hpp"
#include "parfilter/backend.hpp"
#include "support/test_images.hpp"

namespace parfilter {
namespace {

constexpr std::size_t kLarge = BufferPool::kMinPooledBytes * 2;

TEST(BufferPool, ReusesAFreedBufferOfTheSameSize) {
  BufferPool pool;
  void* first = pool.allocate(kLarge);
  pool.deallocate(first, kLarge);
  EXPECT_EQ(pool.cached_bytes(), kLarge);
  void* other_size = pool.allocate(kLarge + 1);
  EXPECT_NE(other_size, first);
  void* again = pool.allocate(kLarge);
  EXPECT_EQ(again, first);
  EXPECT_EQ(pool.cached_bytes(), 0U);
  pool.deallocate(again, kLarge);
  pool.deallocate(other_size, kLarge + 1);
}

TEST(BufferPool, KeepsNoSmallBuffers) {
  BufferPool pool;
  const std::size_t small = BufferPool::kMinPooledBytes / 2;
  pool.deallocate(pool.allocate(small), small);
  EXPECT_EQ(pool.cached_bytes(), 0U);
}

TEST(BufferPool, GivesBackTheOldestBeyondItsCap) {
  BufferPool pool(kLarge * 2);
  void* a = pool.allocate(kLarge);
  void* b = pool.allocate(kLarge);
  void* c = pool.allocate(kLarge);
  pool.deallocate(a, kLarge);
  pool.deallocate(b, kLarge);
  pool.deallocate(c, kLarge);  // a goes back to the heap
  EXPECT_EQ(pool.cached_bytes(), kLarge * 2);
  void* reused = pool.allocate(kLarge);
  EXPECT_EQ(reused, c);  // the most recently freed first
  pool.deallocate(reused, kLarge);
}

TEST(BufferPool, ServesThreadsConcurrently) {
  BufferPool pool;
  constexpr int kThreads = 4;
  constexpr int kRounds = 50;
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&pool, t] {
      const std::size_t bytes = kLarge + static_cast<std::size_t>(t % 2);
      for (int i = 0; i < kRounds; ++i) {
        auto* p = static_cast<std::uint8_t*>(pool.allocate(bytes));
        p[0] = static_cast<std::uint8_t>(i);
        p[bytes - 1] = p[0];
        pool.deallocate(p, bytes);
      }
    });
  }
  for (auto& thread : threads) thread.join();
  EXPECT_LE(pool.cached_bytes(), BufferPool::kDefaultCachedBytes);
}

TEST(BufferPool, BackendOutputsComeBackForTheNextRun) {
  const BackendInfo* info = find_backend("serial");
  ASSERT_NE(info, nullptr);
  const auto backend = info->create({});
  constexpr int kSide = 1024;  // a 1 MiB gray output: pooled
  const Image input = test::noise_image(kSide, kSide, 1, 3);
  const std::uint8_t* first = nullptr;
  {
    const OpOutput out = backend->run(Op::erode, input.view(), {});
    ASSERT_NE(out.image.allocator(), nullptr);
    first = out.image.data();
  }
  const OpOutput again = backend->run(Op::erode, input.view(), {});
  EXPECT_EQ(again.image.data(), first);
}

}  // namespace
}  // namespace parfilter
