// The OpenMP backend. Each for_each_block is one `#pragma omp parallel for` over as many
// blocks as the team has threads; the implicit barrier at the end of the region is the join
// for_each_block promises, and so the barrier between the phases of a two-phase op.
// Histograms need no OpenMP reduction: run_cpu_op already gives each block its own array
// and merges them after the join.
#include "openmp_scheduler.hpp"
#include "parfilter/backends/openmp.hpp"

#include <omp.h>

#include <exception>
#include <stdexcept>
#include <vector>

#include "cpu_backend.hpp"

namespace parfilter {
namespace {

class OpenMpScheduler final : public RowScheduler {
 public:
  explicit OpenMpScheduler(int threads) : threads_(threads) {
    if (threads < 1) throw std::invalid_argument("make_openmp_scheduler: threads must be >= 1");
  }

  [[nodiscard]] int max_blocks() const override { return threads_; }

  void for_each_block(int rows, const std::function<void(RowRange, int)>& fn) override {
    if (rows <= 0) return;
    if (threads_ == 1) {
      // One block, all rows: no region to start (a tiny image's op runs its phases in
      // microseconds, and a region and the error slots cost about as much again).
      fn(RowRange{0, rows}, 0);
      return;
    }
    // An exception must not leave the parallel region (that would std::terminate): each
    // block keeps its own, and the first in block order is rethrown after the join.
    std::vector<std::exception_ptr> errors(static_cast<std::size_t>(threads_));
    // schedule(static) with one block per thread: every block costs the same (each op's
    // work per row is uniform), so static has no imbalance to fix and no scheduling
    // overhead; thread t gets block t, the same contiguous rows in every phase and the same
    // split as the pthread backend, so the two differ only in the framework. A team smaller
    // than asked for (OMP_THREAD_LIMIT, OMP_DYNAMIC) still runs every block.
#pragma omp parallel for schedule(static) num_threads(threads_)
    for (int block = 0; block < threads_; ++block) {
      const RowRange range = block_range(rows, threads_, block);
      if (range.empty()) continue;  // more threads than rows
      try {
        fn(range, block);
      } catch (...) {
        errors[static_cast<std::size_t>(block)] = std::current_exception();
      }
    }
    for (const auto& error : errors) {
      if (error) std::rethrow_exception(error);
    }
  }

  // libgomp's idle threads spin for milliseconds after a region (300,000 pauses by default),
  // on cores the batch's encoders need; a soft pause ends them, and the next region starts a
  // new team (about a millisecond, once per batch).
  void release_idle_threads() override { omp_pause_resource_all(omp_pause_soft); }

 private:
  int threads_;
};

}  // namespace

std::unique_ptr<RowScheduler> make_openmp_scheduler(int threads) {
  return std::make_unique<OpenMpScheduler>(threads);
}

std::unique_ptr<Backend> make_openmp_backend(const BackendOptions& options) {
  return make_threaded_cpu_backend("openmp", options, omp_get_max_threads(), make_openmp_scheduler);
}

}  // namespace parfilter
