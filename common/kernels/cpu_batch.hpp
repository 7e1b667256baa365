// Internal to the CPU backends: how a threaded one runs a batch (Backend::run_batch).
#pragma once

#include <exception>
#include <functional>

#include "parfilter/backend.hpp"
#include "row_scheduler.hpp"

namespace parfilter {

/// Runs one image through the chain on `scheduler`, filling its stage times.
using ChainOnScheduler =
    std::function<OpOutput(RowScheduler& scheduler, const ConstImageView& input, StageTimes&)>;

/// One input of a batch and what became of it.
struct BatchItem {
  BatchInput input;
  OpOutput output;
  StageTimes times;
  std::exception_ptr failure;
};

/// Runs the chain on item.input (a failure is kept in item.failure), then frees the input.
void run_item(RowScheduler& scheduler, BatchItem& item, const ChainOnScheduler& run);

/// Hands item's result or failure to the callbacks.
void report_item(const BatchCallbacks& callbacks, BatchItem& item);

/// A batch on a threaded CPU backend. When the batch has at least as many images as
/// `scheduler` has blocks (BatchCallbacks::size_hint), the images run side by side, one per
/// block's thread, each taken as soon as it is decoded and handed back as soon as it is done:
/// no image waits on another's rows or decode, and the codec workers keep decoding and
/// encoding around them. A smaller batch (or one of unknown size) runs one image at a time
/// over every block. Each input is reported once, done or failed, in any order.
void run_images_side_by_side(RowScheduler& scheduler, const BatchCallbacks& callbacks,
                             const ChainOnScheduler& run);

}  // namespace parfilter
