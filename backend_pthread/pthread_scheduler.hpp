// Internal: the pthread backend's RowScheduler, for the MPI backend's ranks (hybrid mode), the
// scheduler tests and the benchmarks' copy baseline. Not installed.
#pragma once

#include <memory>

#include "row_scheduler.hpp"

namespace parfilter {

/// `threads` (>= 1) contiguous near-equal blocks of rows, block 0 on the calling thread and one
/// pthread worker for each other block. The workers start here and are joined when the
/// scheduler is destroyed. An exception thrown by a block is rethrown on the caller once every
/// block has finished.
[[nodiscard]] std::unique_ptr<RowScheduler> make_pthread_scheduler(int threads);

/// The hardware threads this process may run on: its CPU affinity mask, else the online CPUs.
[[nodiscard]] int hardware_thread_count();

}  // namespace parfilter
