// The CPU's bandwidth limit at a thread count: a memcpy of an image's bytes split into row
// blocks by a backend's own scheduler (the pthread pool, or OpenMP), so that the copy runs on
// the same worker threads the ops do. Shared by parfilter-bench-cpu and parfilter-bench.
#pragma once

#include <functional>
#include <memory>
#include <string_view>

#include "cpu_backend.hpp"
#include "parfilter/image.hpp"

namespace parfilter::bench {

/// The scheduler of the CPU backend `name` ("pthread", "openmp") with `threads` workers, or
/// nullptr when that backend is not built.
[[nodiscard]] std::unique_ptr<RowScheduler> make_scheduler(std::string_view name, int threads);

/// A scheduler of whichever threaded CPU backend is built (pthread first), or nullptr.
[[nodiscard]] std::unique_ptr<RowScheduler> make_any_scheduler(int threads);

/// memcpy of src's rows into dst (same size) over `scheduler`'s workers; both must outlive it.
[[nodiscard]] std::function<void()> scheduled_copy(RowScheduler& scheduler, const Image& src,
                                                   Image& dst);

}  // namespace parfilter::bench
