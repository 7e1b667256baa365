// Internal to the CPU backends: how a threaded one runs a batch (Backend::run_batch).
#pragma once

#include <functional>

#include "parfilter/backend.hpp"
#include "row_scheduler.hpp"

namespace parfilter {

/// Runs one image through the chain on `scheduler`, filling its stage times.
using ChainOnScheduler =
    std::function<OpOutput(RowScheduler& scheduler, const ConstImageView& input, StageTimes&)>;

/// A batch on a threaded CPU backend. Whenever as many decoded inputs as `scheduler` has blocks
/// are at hand, they run side by side, one image per block on that block's thread: each image's
/// passes then wait on no other thread's, and the images of a light op do not queue one by one
/// for every core while the codec workers compete for those cores. A last, smaller group runs
/// one image at a time over every block. Results and failures are reported in input order.
void run_image_groups(RowScheduler& scheduler, const BatchCallbacks& callbacks,
                      const ChainOnScheduler& run);

}  // namespace parfilter
