#include "parallel.hpp"

#include <algorithm>
#include <atomic>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

namespace parfilter::io {

void run_on_threads(int threads, std::size_t count, const std::function<void(std::size_t)>& task) {
  std::atomic<std::size_t> next{0};
  std::exception_ptr failure;
  std::mutex failure_mutex;
  const auto work = [&] {
    for (std::size_t i = next++; i < count; i = next++) {
      try {
        task(i);
      } catch (...) {
        const std::scoped_lock lock(failure_mutex);
        if (!failure) failure = std::current_exception();
        next = count;  // the others stop after their current task
      }
    }
  };
  const auto helpers = std::min<std::size_t>(static_cast<std::size_t>(std::max(threads, 1)) - 1,
                                             count > 0 ? count - 1 : 0);
  std::vector<std::jthread> pool;
  pool.reserve(helpers);
  for (std::size_t i = 0; i < helpers; ++i) pool.emplace_back(work);
  work();
  pool.clear();  // joins
  if (failure) std::rethrow_exception(failure);
}

}  // namespace parfilter::io
