// Internal: a parallel-for over threads started for one call, for callers that give no
// ParallelFor of their own (parallel_for_threads).
#pragma once

#include <cstddef>
#include <functional>

namespace parfilter::io {

/// Runs task(0) .. task(count - 1) on up to `threads` threads (the caller is one), each
/// taking the next index as it finishes one; rethrows the first failure after all returned.
void run_on_threads(int threads, std::size_t count, const std::function<void(std::size_t)>& task);

}  // namespace parfilter::io
