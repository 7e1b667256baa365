// The OpenMP backend: every op with the shared row kernels, each phase one OpenMP
// parallel-for over blocks of rows.
#pragma once

#include <memory>

#include "parfilter/backend.hpp"

namespace parfilter {

/// options.threads: 0 = omp_get_max_threads() (OMP_NUM_THREADS when set, else every
/// hardware thread), N > 0 = a team of N. Throws UsageError for a negative count.
[[nodiscard]] std::unique_ptr<Backend> make_openmp_backend(const BackendOptions& options);

}  // namespace parfilter
