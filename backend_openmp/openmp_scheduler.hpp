// Internal: the openmp backend's RowScheduler, for the MPI backend's ranks (hybrid mode), the
// scheduler tests and the benchmarks' copy baseline. Not installed.
#pragma once

#include <memory>

#include "row_scheduler.hpp"

namespace parfilter {

/// `threads` (>= 1) contiguous near-equal blocks of rows, one per thread of an OpenMP team of
/// `threads`. An exception thrown by a block is rethrown on the caller after the parallel
/// region.
[[nodiscard]] std::unique_ptr<RowScheduler> make_openmp_scheduler(int threads);

}  // namespace parfilter
