// The OpenMP backend: every op with the shared row kernels, each phase one OpenMP
// parallel-for over blocks of rows.
#pragma once

#include <memory>

#include "parfilter/backend.hpp"
#include "parfilter/cpu_backend.hpp"

namespace parfilter {

/// options.threads: 0 = omp_get_max_threads() (OMP_NUM_THREADS when set, else every
/// hardware thread), N > 0 = a team of N. Throws UsageError for a negative count.
[[nodiscard]] std::unique_ptr<Backend> make_openmp_backend(const BackendOptions& options);

/// The scheduler behind it: `threads` (>= 1) contiguous near-equal blocks of rows, one per
/// thread of an OpenMP team of `threads`. An exception thrown by a block is rethrown on the
/// caller after the parallel region.
[[nodiscard]] std::unique_ptr<RowScheduler> make_openmp_scheduler(int threads);

}  // namespace parfilter
