// A device backend's batch while its device starts: the inputs that are ready run on the
// host's cores, through the shared row kernels, instead of waiting for a GPU driver's start
// (about 0.3 s, longer than a whole batch of light images on 16 cores).
#pragma once

#include <functional>

#include "parfilter/backend.hpp"

namespace parfilter {

/// Takes inputs from callbacks.next and runs `chain` on each with the CPU backends' kernels
/// (each op's default CPU variant: every variant gives the same bytes), on the threads lent by
/// callbacks.host_parallel_for, until device_ready() says the device can take over. The first
/// input runs over every thread; light ops then run in rounds of one image per thread (holding
/// up to host_threads inputs), heavy ones one at a time over every thread until one takes over
/// 50 ms (the device is then left the rest, rather than wait for the host's next image once it
/// is ready). Results go to callbacks.done with StageTimes::on_host set, failures to
/// callbacks.failed, each as soon as it is done (in any order, one call at a time, from the
/// lent threads too).
/// Returns true when the batch ended on the host (callbacks.next gave nullopt); false when the
/// device should run the rest, or at once when the caller lent no threads
/// (host_parallel_for empty).
bool run_on_host_while_starting(const OpChain& chain, const BatchCallbacks& callbacks,
                                const std::function<bool()>& device_ready);

}  // namespace parfilter
