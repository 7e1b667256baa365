// The thread schedulers of the pthread and OpenMP backends, below the ops: how they split rows,
// that their return is a barrier, that a failing block reaches the caller, and that one
// scheduler serves many calls (its workers start once). scripts/tsan.sh runs the pthread part
// under ThreadSanitizer.
#include <gtest/gtest.h>

#include <array>
#include <functional>
#include <memory>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "cpu_backend.hpp"
#ifdef PARFILTER_HAVE_PTHREAD
#include "parfilter/backends/pthread.hpp"
#include "pthread_scheduler.hpp"
#endif
#ifdef PARFILTER_HAVE_OPENMP
#include "openmp_scheduler.hpp"
#include "parfilter/backends/openmp.hpp"
#endif

namespace parfilter {
namespace {

struct SchedulerKind {
  std::string name;
  std::function<std::unique_ptr<RowScheduler>(int threads)> make;
};

std::vector<SchedulerKind> scheduler_kinds() {
  std::vector<SchedulerKind> kinds;
#ifdef PARFILTER_HAVE_PTHREAD
  kinds.push_back({"pthread", &make_pthread_scheduler});
#endif
#ifdef PARFILTER_HAVE_OPENMP
  kinds.push_back({"openmp", &make_openmp_scheduler});
#endif
  return kinds;
}

void PrintTo(const SchedulerKind& kind, std::ostream* os) { *os << kind.name; }

constexpr std::array kThreadCounts = {1, 2, 3, 7, 16};
constexpr std::array kRowCounts = {1, 2, 3, 7, 8, 100};

class RowSchedulers : public ::testing::TestWithParam<SchedulerKind> {};

/// Every row in exactly one call, each block the range block_range gives it, no block twice.
TEST_P(RowSchedulers, SplitRowsIntoTheNearEqualBlocks) {
  for (const int threads : kThreadCounts) {
    const auto scheduler = GetParam().make(threads);
    ASSERT_EQ(scheduler->max_blocks(), threads);
    for (const int rows : kRowCounts) {
      // Slot b is written only by the call for block b: no two threads share one.
      std::vector<RowRange> seen(static_cast<std::size_t>(threads), RowRange{-1, -1});
      std::vector<int> calls(static_cast<std::size_t>(threads), 0);
      scheduler->for_each_block(rows, [&](RowRange range, int block) {
        ASSERT_GE(block, 0);
        ASSERT_LT(block, threads);
        seen[static_cast<std::size_t>(block)] = range;
        ++calls[static_cast<std::size_t>(block)];
      });
      for (int block = 0; block < threads; ++block) {
        const RowRange expected = block_range(rows, threads, block);
        const auto b = static_cast<std::size_t>(block);
        SCOPED_TRACE(::testing::Message()
                     << threads << " threads, " << rows << " rows, block " << block);
        // An empty block (more threads than rows) is not called at all.
        EXPECT_EQ(calls[b], expected.empty() ? 0 : 1);
        if (!expected.empty()) {
          EXPECT_EQ(seen[b], expected);
        }
      }
    }
  }
}

TEST_P(RowSchedulers, ZeroRowsCallsNothing) {
  const auto scheduler = GetParam().make(3);
  bool called = false;
  scheduler->for_each_block(0, [&](RowRange, int) { called = true; });
  EXPECT_FALSE(called);
}

/// Phase 2 reads what every block wrote in phase 1 (a histogram merge in miniature): the
/// return of for_each_block must order the two. Many rounds on one scheduler also check that
/// the workers serve call after call.
TEST_P(RowSchedulers, ReturnIsABarrierBetweenPhases) {
  constexpr int kThreads = 3;
  constexpr int kRows = 30;
  constexpr int kRounds = 300;
  const auto scheduler = GetParam().make(kThreads);
  std::vector<int> row_values(kRows, 0);
  std::vector<long> block_sums(kThreads, 0);
  for (int round = 1; round <= kRounds; ++round) {
    scheduler->for_each_block(kRows, [&](RowRange range, int) {
      for (int y = range.begin; y < range.end; ++y) row_values[static_cast<std::size_t>(y)] = round;
    });
    scheduler->for_each_block(kRows, [&](RowRange range, int block) {
      long sum = 0;  // reads rows of other blocks, written in the previous phase
      for (const int value : row_values) sum += value;
      block_sums[static_cast<std::size_t>(block)] = range.empty() ? 0 : sum;
    });
    for (int block = 0; block < kThreads; ++block) {
      ASSERT_EQ(block_sums[static_cast<std::size_t>(block)], static_cast<long>(round) * kRows)
          << "round " << round << ", block " << block;
    }
  }
}

/// After the caller releases the idle threads (a batch's end), the next call still runs every
/// block, on threads started anew where the scheduler stopped its own.
TEST_P(RowSchedulers, ServesCallsAfterReleasingItsIdleThreads) {
  constexpr int kThreads = 4;
  constexpr int kRows = 8;
  const auto scheduler = GetParam().make(kThreads);
  for (int round = 0; round < 3; ++round) {
    std::vector<int> calls(kThreads, 0);
    scheduler->for_each_block(
        kRows, [&](RowRange, int block) { ++calls[static_cast<std::size_t>(block)]; });
    EXPECT_EQ(calls, std::vector<int>(kThreads, 1)) << "round " << round;
    scheduler->release_idle_threads();
  }
}

/// A throwing block reaches the caller (the first in block order), after the other blocks
/// finished; the scheduler keeps working afterwards.
TEST_P(RowSchedulers, AnExceptionInABlockReachesTheCaller) {
  constexpr int kThreads = 4;
  constexpr int kRows = 8;
  const auto scheduler = GetParam().make(kThreads);
  std::vector<int> finished(kThreads, 0);
  try {
    scheduler->for_each_block(kRows, [&](RowRange, int block) {
      if (block == 1 || block == 3) throw std::runtime_error("block " + std::to_string(block));
      finished[static_cast<std::size_t>(block)] = 1;
    });
    ADD_FAILURE() << "no exception";
  } catch (const std::runtime_error& error) {
    EXPECT_STREQ(error.what(), "block 1");
  }
  EXPECT_EQ(finished, (std::vector<int>{1, 0, 1, 0}));

  int rows_done = 0;
  std::vector<int> block_rows(kThreads, 0);
  scheduler->for_each_block(kRows, [&](RowRange range, int block) {
    block_rows[static_cast<std::size_t>(block)] = range.end - range.begin;
  });
  for (const int r : block_rows) rows_done += r;
  EXPECT_EQ(rows_done, kRows);
}

/// Two threads sharing one scheduler (two callers of one backend) each get all their rows.
TEST_P(RowSchedulers, ConcurrentCallersEachGetEveryRow) {
  constexpr int kThreads = 3;
  constexpr int kRows = 50;
  constexpr int kCalls = 100;
  const auto scheduler = GetParam().make(kThreads);
  const auto caller = [&](std::vector<int>& totals) {
    for (int call = 0; call < kCalls; ++call) {
      std::vector<int> block_rows(kThreads, 0);
      scheduler->for_each_block(kRows, [&](RowRange range, int block) {
        block_rows[static_cast<std::size_t>(block)] = range.end - range.begin;
      });
      int total = 0;
      for (const int r : block_rows) total += r;
      totals.push_back(total);
    }
  };
  std::vector<int> first;
  std::vector<int> second;
  std::thread other(caller, std::ref(second));
  caller(first);
  other.join();
  EXPECT_EQ(first, std::vector<int>(kCalls, kRows));
  EXPECT_EQ(second, std::vector<int>(kCalls, kRows));
}

INSTANTIATE_TEST_SUITE_P(Threaded, RowSchedulers, ::testing::ValuesIn(scheduler_kinds()),
                         [](const ::testing::TestParamInfo<SchedulerKind>& info) {
                           return info.param.name;
                         });
GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(RowSchedulers);

#ifdef PARFILTER_HAVE_PTHREAD
/// A block that calls back into its own pthread scheduler would wait for workers busy with the
/// outer call: refused with an exception instead of a deadlock.
TEST(PthreadScheduler, RefusesANestedCall) {
  const auto scheduler = make_pthread_scheduler(2);
  EXPECT_THROW(scheduler->for_each_block(
                   4, [&](RowRange, int) { scheduler->for_each_block(4, [](RowRange, int) {}); }),
               std::logic_error);
}

TEST(PthreadScheduler, RejectsZeroThreads) {
  EXPECT_THROW((void)make_pthread_scheduler(0), std::invalid_argument);
}
#endif

}  // namespace
}  // namespace parfilter
