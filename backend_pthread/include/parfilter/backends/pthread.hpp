// The pthread backend: every op with the shared row kernels, on a pool of POSIX threads that
// starts when the backend is created and lives as long as it does.
#pragma once

#include <memory>

#include "parfilter/backend.hpp"
#include "parfilter/cpu_backend.hpp"

namespace parfilter {

/// options.threads: 0 = every hardware thread this process may run on (its CPU affinity),
/// N > 0 = N threads. Throws UsageError for a negative count, RuntimeError when the threads
/// cannot be started.
[[nodiscard]] std::unique_ptr<Backend> make_pthread_backend(const BackendOptions& options);

/// The scheduler behind it: `threads` (>= 1) contiguous near-equal blocks of rows, block 0 on
/// the calling thread and one pthread worker for each other block. The workers start here
/// and are joined when the scheduler is destroyed. An exception thrown by a block is
/// rethrown on the caller once every block has finished.
[[nodiscard]] std::unique_ptr<RowScheduler> make_pthread_scheduler(int threads);

/// The hardware threads this process may run on: its CPU affinity mask, else the online CPUs.
[[nodiscard]] int hardware_thread_count();

}  // namespace parfilter
