// The pthread backend. POSIX threads are the framework under comparison, so the pool uses
// pthread_create/pthread_join and a pthread mutex and condition variables, not std::thread.
//
// One for_each_block call is one "job": the caller publishes it under the mutex and bumps a
// generation counter; each worker wakes, runs its own block, and decrements the count of
// pending workers; the caller runs block 0 itself and then waits for that count to reach 0.
// That wait is the join that for_each_block promises, so it is also the barrier between the
// phases of a two-phase op (histogram, then threshold or LUT, then apply).
//
// Waiting spins briefly before it sleeps on a condition variable, as OpenMP runtimes do: the
// phases of one op follow each other within microseconds, while waking a sleeping thread
// takes tens of microseconds (more in a VM). The generation and the pending count are atomics
// so that a spinning thread can watch them; they change only under the mutex or (the count)
// with the last decrement signalling under it, so a sleeper never misses a wake-up.
#include "parfilter/backends/pthread.hpp"
#include "pthread_scheduler.hpp"

#include <pthread.h>
#include <sched.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstring>
#include <exception>
#include <stdexcept>
#include <string>
#include <vector>

#include "cpu_backend.hpp"
#include "parfilter/error.hpp"

namespace parfilter {
namespace {

/// Throws RuntimeError naming the failed call when a pthread function returned an error.
void check(int error, const char* call) {
  if (error != 0) {
    throw RuntimeError(std::string("pthread backend: ") + call +
                       " failed: " + std::strerror(error));
  }
}

/// Holds a pthread mutex for one scope.
class ScopedLock {
 public:
  explicit ScopedLock(pthread_mutex_t& mutex) : mutex_(mutex) { pthread_mutex_lock(&mutex_); }
  ScopedLock(const ScopedLock&) = delete;
  ScopedLock& operator=(const ScopedLock&) = delete;
  ~ScopedLock() { pthread_mutex_unlock(&mutex_); }

 private:
  pthread_mutex_t& mutex_;
};

int at_least_one(int threads) {
  if (threads < 1) throw std::invalid_argument("make_pthread_scheduler: threads must be >= 1");
  return threads;
}

/// How long a waiting thread spins before it sleeps; about the wake-up time it saves.
constexpr auto kSpinTime = std::chrono::microseconds(50);
constexpr int kSpinsPerClockRead = 64;

/// A hint to the CPU that this is a spin-wait loop (frees the core's resources for its
/// hyper-thread sibling, saves power).
inline void cpu_relax() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#elif defined(__aarch64__)
  __asm__ __volatile__("yield");
#endif
}

/// Spins until done() holds or kSpinTime has passed; returns done().
template <typename Done>
bool spin_until(const Done& done) {
  const auto deadline = std::chrono::steady_clock::now() + kSpinTime;
  for (;;) {
    for (int i = 0; i < kSpinsPerClockRead; ++i) {
      if (done()) return true;
      cpu_relax();
    }
    if (std::chrono::steady_clock::now() >= deadline) return done();
  }
}

class PthreadScheduler;
/// The scheduler a thread is running a block for, to refuse a nested for_each_block (which
/// would wait for workers that are busy running the outer call).
thread_local const PthreadScheduler* running_block_of = nullptr;

class PthreadScheduler final : public RowScheduler {
 public:
  explicit PthreadScheduler(int threads)
      : threads_(at_least_one(threads)),
        // A spinning thread without a core of its own would only delay the ones working.
        spin_(threads_ <= hardware_thread_count()),
        errors_(static_cast<std::size_t>(threads_)) {
    check(pthread_mutex_init(&mutex_, nullptr), "pthread_mutex_init");
    check(pthread_mutex_init(&dispatch_, nullptr), "pthread_mutex_init");
    check(pthread_cond_init(&work_ready_, nullptr), "pthread_cond_init");
    check(pthread_cond_init(&work_done_, nullptr), "pthread_cond_init");
    // Worker w runs block w + 1; the caller runs block 0.
    starts_.reserve(static_cast<std::size_t>(threads_ - 1));
    workers_.reserve(static_cast<std::size_t>(threads_ - 1));
    for (int block = 1; block < threads_; ++block) {
      starts_.push_back({this, block});
      pthread_t worker{};
      const int error = pthread_create(&worker, nullptr, &worker_main, &starts_.back());
      if (error != 0) {
        stop_workers();
        destroy_sync();
        check(error, "pthread_create");
      }
      workers_.push_back(worker);
    }
  }

  PthreadScheduler(const PthreadScheduler&) = delete;
  PthreadScheduler& operator=(const PthreadScheduler&) = delete;

  ~PthreadScheduler() override {
    stop_workers();
    destroy_sync();
  }

  [[nodiscard]] int max_blocks() const override { return threads_; }

  void for_each_block(int rows, const std::function<void(RowRange, int)>& fn) override {
    if (running_block_of == this) {
      throw std::logic_error("pthread backend: for_each_block called from inside a block");
    }
    if (rows <= 0) return;
    const ScopedLock dispatch(dispatch_);  // one job at a time if callers share a backend
    {
      const ScopedLock lock(mutex_);
      job_ = &fn;
      job_rows_ = rows;
      for (auto& error : errors_) error = nullptr;
      pending_.store(static_cast<int>(workers_.size()), std::memory_order_relaxed);
      // Release: a worker that sees the new generation also sees the job.
      generation_.fetch_add(1, std::memory_order_release);
      pthread_cond_broadcast(&work_ready_);
    }
    run_block(0);
    // Acquire: once the count is 0, every block's writes are visible here.
    const auto all_done = [this] { return pending_.load(std::memory_order_acquire) == 0; };
    if (!(spin_ && spin_until(all_done))) {
      const ScopedLock lock(mutex_);
      while (!all_done()) pthread_cond_wait(&work_done_, &mutex_);
    }
    job_ = nullptr;
    // Every block has finished: report the first failure in block order.
    for (const auto& error : errors_) {
      if (error) std::rethrow_exception(error);
    }
  }

 private:
  struct WorkerStart {
    PthreadScheduler* scheduler;
    int block;
  };

  static void* worker_main(void* arg) {
    const auto* start = static_cast<const WorkerStart*>(arg);
    start->scheduler->worker_loop(start->block);
    return nullptr;
  }

  void worker_loop(int block) {
    std::uint64_t seen = 0;
    const auto new_job = [&] { return generation_.load(std::memory_order_acquire) != seen; };
    for (;;) {
      if (!(spin_ && spin_until(new_job))) {
        const ScopedLock lock(mutex_);
        while (!new_job() && !stopping_) pthread_cond_wait(&work_ready_, &mutex_);
        if (stopping_) return;
      }
      seen = generation_.load(std::memory_order_acquire);
      run_block(block);
      // Release: this block's writes happen before the caller sees the count reach 0. The
      // signal is sent under the mutex, so a caller about to sleep cannot miss it.
      if (pending_.fetch_sub(1, std::memory_order_acq_rel) == 1) {
        const ScopedLock lock(mutex_);
        pthread_cond_signal(&work_done_);
      }
    }
  }

  /// Runs this thread's block of the current job; an exception is kept for the caller.
  /// job_ and job_rows_ were written under mutex_ before the generation this thread saw,
  /// and stay unchanged until every block has reported back.
  void run_block(int block) {
    const RowRange range = block_range(job_rows_, threads_, block);
    if (range.empty()) return;  // more threads than rows
    running_block_of = this;
    try {
      (*job_)(range, block);
    } catch (...) {
      errors_[static_cast<std::size_t>(block)] = std::current_exception();
    }
    running_block_of = nullptr;
  }

  void stop_workers() {
    {
      const ScopedLock lock(mutex_);
      stopping_ = true;
      pthread_cond_broadcast(&work_ready_);
    }
    for (const pthread_t worker : workers_) pthread_join(worker, nullptr);
    workers_.clear();
  }

  void destroy_sync() {
    pthread_cond_destroy(&work_done_);
    pthread_cond_destroy(&work_ready_);
    pthread_mutex_destroy(&dispatch_);
    pthread_mutex_destroy(&mutex_);
  }

  int threads_;
  bool spin_;
  std::vector<WorkerStart> starts_;  // reserved up front: workers hold pointers into it
  std::vector<pthread_t> workers_;
  pthread_mutex_t mutex_{};     // guards the job, stopping_, and the sleeps
  pthread_mutex_t dispatch_{};  // held for a whole for_each_block
  pthread_cond_t work_ready_{};
  pthread_cond_t work_done_{};
  const std::function<void(RowRange, int)>* job_ = nullptr;
  int job_rows_ = 0;
  std::atomic<std::uint64_t> generation_ = 0;  // bumped once per job, under mutex_
  std::atomic<int> pending_ = 0;               // workers that have not finished the current job
  bool stopping_ = false;
  std::vector<std::exception_ptr> errors_;  // one per block, read after the join
};

}  // namespace

int hardware_thread_count() {
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof(set), &set) == 0) {
    const int count = CPU_COUNT(&set);
    if (count > 0) return count;
  }
  const long online = sysconf(_SC_NPROCESSORS_ONLN);
  return online > 0 ? static_cast<int>(online) : 1;
}

std::unique_ptr<RowScheduler> make_pthread_scheduler(int threads) {
  return std::make_unique<PthreadScheduler>(threads);
}

std::unique_ptr<Backend> make_pthread_backend(const BackendOptions& options) {
  return make_threaded_cpu_backend("pthread", options, hardware_thread_count(),
                                   make_pthread_scheduler);
}

}  // namespace parfilter
