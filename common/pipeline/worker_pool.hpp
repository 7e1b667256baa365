// Internal: the pipeline's threads. A fixed set of workers runs tasks from one queue, the
// urgent ones first; parallel_for spreads one job's pieces (a PNG's row bands) over whichever
// workers are idle, the calling thread taking its share, so a task may use it without
// deadlock. A gate lets the compute stage pause the workers: each pauses at its next
// checkpoint while the gate is closed (docs/PIPELINE.md).
#pragma once

#include <condition_variable>
#include <cstddef>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace parfilter::pipeline {

/// Task priority: a higher one runs first.
enum class Priority { decode = 0, encode = 1, piece = 2 };

class WorkerPool {
 public:
  explicit WorkerPool(int workers);
  WorkerPool(const WorkerPool&) = delete;
  WorkerPool& operator=(const WorkerPool&) = delete;
  /// Waits for the queued tasks to finish, then joins the workers.
  ~WorkerPool();

  [[nodiscard]] int workers() const { return static_cast<int>(threads_.size()); }

  /// Queues `task`; it must not throw.
  void submit(Priority priority, std::function<void()> task);

  /// Runs task(0) .. task(count - 1) on the calling thread and on idle workers; returns when
  /// all have returned, rethrowing the first failure.
  void parallel_for(std::size_t count, const std::function<void(std::size_t)>& task);

  /// While closed, checkpoint() blocks (the compute stage has the CPU).
  void close_gate();
  void open_gate();
  /// Blocks while the gate is closed.
  void checkpoint();

 private:
  void work();

  std::mutex mutex_;
  std::condition_variable wake_;
  std::condition_variable gate_opened_;
  std::vector<std::deque<std::function<void()>>> queues_;  // one per priority
  bool stopping_ = false;
  bool gate_closed_ = false;
  std::vector<std::jthread> threads_;
};

}  // namespace parfilter::pipeline
