// The pthread backend: every op with the shared row kernels, on a pool of POSIX threads that
// starts when the backend is created and lives as long as it does.
#pragma once

#include <memory>

#include "parfilter/backend.hpp"

namespace parfilter {

/// options.threads: 0 = every hardware thread this process may run on (its CPU affinity),
/// N > 0 = N threads. Throws UsageError for a negative count, RuntimeError when the threads
/// cannot be started.
[[nodiscard]] std::unique_ptr<Backend> make_pthread_backend(const BackendOptions& options);

}  // namespace parfilter
