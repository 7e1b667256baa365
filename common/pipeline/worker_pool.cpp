#include "worker_pool.hpp"

#include <algorithm>
#include <atomic>
#include <exception>
#include <memory>

namespace parfilter::pipeline {
namespace {

constexpr std::size_t kPriorities = 3;

/// One parallel_for: pieces claimed by index, a count of those still running, the first
/// failure.
struct SharedLoop {
  std::size_t count = 0;
  const std::function<void(std::size_t)>* task = nullptr;
  std::atomic<std::size_t> next{0};
  std::mutex mutex;
  std::condition_variable finished;
  std::size_t done = 0;
  std::exception_ptr failure;

  /// Claims and runs pieces until none are left.
  void help() {
    for (std::size_t i = next++; i < count; i = next++) {
      std::exception_ptr error;
      try {
        (*task)(i);
      } catch (...) {
        error = std::current_exception();
      }
      const std::scoped_lock lock(mutex);
      if (error && !failure) failure = error;
      if (++done == count) finished.notify_all();
    }
  }
};

}  // namespace

WorkerPool::WorkerPool(int workers) : queues_(kPriorities) {
  const int count = std::max(workers, 1);
  threads_.reserve(static_cast<std::size_t>(count));
  for (int i = 0; i < count; ++i) threads_.emplace_back([this] { work(); });
}

WorkerPool::~WorkerPool() {
  {
    const std::scoped_lock lock(mutex_);
    stopping_ = true;
    gate_closed_ = false;
  }
  wake_.notify_all();
  gate_opened_.notify_all();
  threads_.clear();  // joins
}

void WorkerPool::submit(Priority priority, std::function<void()> task) {
  {
    const std::scoped_lock lock(mutex_);
    queues_[static_cast<std::size_t>(priority)].push_back(std::move(task));
  }
  wake_.notify_one();
}

void WorkerPool::work() {
  for (;;) {
    std::function<void()> task;
    {
      std::unique_lock lock(mutex_);
      wake_.wait(lock, [&] {
        return stopping_ || std::any_of(queues_.begin(), queues_.end(),
                                        [](const auto& queue) { return !queue.empty(); });
      });
      auto busiest = std::find_if(queues_.rbegin(), queues_.rend(),
                                  [](const auto& queue) { return !queue.empty(); });
      if (busiest == queues_.rend()) return;  // stopping, and nothing left to run
      task = std::move(busiest->front());
      busiest->pop_front();
    }
    task();
  }
}

void WorkerPool::parallel_for(std::size_t count, const std::function<void(std::size_t)>& task) {
  if (count == 0) return;
  auto loop = std::make_shared<SharedLoop>();
  loop->count = count;
  loop->task = &task;
  const std::size_t helpers = std::min(count - 1, threads_.size());
  for (std::size_t i = 0; i < helpers; ++i) {
    submit(Priority::piece, [loop] { loop->help(); });
  }
  loop->help();
  std::unique_lock lock(loop->mutex);
  loop->finished.wait(lock, [&] { return loop->done == loop->count; });
  if (loop->failure) std::rethrow_exception(loop->failure);
}

void WorkerPool::close_gate() {
  const std::scoped_lock lock(mutex_);
  gate_closed_ = true;
}

void WorkerPool::open_gate() {
  {
    const std::scoped_lock lock(mutex_);
    gate_closed_ = false;
  }
  gate_opened_.notify_all();
}

void WorkerPool::checkpoint() {
  std::unique_lock lock(mutex_);
  gate_opened_.wait(lock, [&] { return !gate_closed_; });
}

}  // namespace parfilter::pipeline
