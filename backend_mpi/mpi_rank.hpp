// What runs inside one rank: its scheduler and, for batch jobs, a backend that needs no
// other rank. Not installed.
#pragma once

#include <memory>

#include "cpu_backend.hpp"
#include "parfilter/backend.hpp"

namespace parfilter::mpi_detail {

/// Threads per rank for options.threads: 0 means 1 (the ranks are the parallelism). Throws
/// UsageError for a negative count, or for more than 1 without OpenMP in this build.
[[nodiscard]] int threads_per_rank(const BackendOptions& options);

/// The scheduler inside each rank: OpenMP's for more than one thread (the hybrid mode), else
/// one block on the calling thread.
[[nodiscard]] std::unique_ptr<RowScheduler> make_rank_scheduler(int threads);

/// The node backend of an MPI backend (--node-backend), or null: what a batch job runs on.
[[nodiscard]] Backend* node_backend_of(const Backend& backend);

/// The shared CPU composition on this rank alone, with make_rank_scheduler: what a batch
/// job runs (it calls no MPI function, so it needs no other rank and no MPI thread support).
[[nodiscard]] std::unique_ptr<Backend> make_rank_local_backend(const BackendOptions& options);

}  // namespace parfilter::mpi_detail
