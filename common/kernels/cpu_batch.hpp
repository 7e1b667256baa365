// Internal to the CPU backends: how a threaded one runs a batch (Backend::run_batch).
#pragma once

#include <condition_variable>
#include <cstddef>
#include <exception>
#include <functional>
#include <mutex>
#include <optional>
#include <vector>

#include "parfilter/backend.hpp"
#include "row_scheduler.hpp"

namespace parfilter {

/// Runs one image through the chain on `scheduler`, filling its stage times.
using ChainOnScheduler =
    std::function<OpOutput(RowScheduler& scheduler, const Image& input, StageTimes&)>;

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

/// Images side by side as tasks on the caller's threads (BatchCallbacks::host_submit), one
/// task per image, each submitted as soon as it is taken. The thread that owns the callbacks
/// reports the finished images before it takes another, so the callbacks stay on that
/// thread, one call at a time, and the threads decode and encode between images.
class ImageTasks {
 public:
  /// What a task runs: one item on the task's own thread, as the scheduler it is given (one
  /// block: the calling thread) schedules it; a failure is kept in item.failure.
  using RunItem = std::function<void(RowScheduler&, BatchItem&)>;
  /// At most `most_held` images are held: running, or done and not yet reported.
  ImageTasks(const BatchCallbacks& callbacks, RunItem run, std::size_t most_held);
  ImageTasks(const ImageTasks&) = delete;
  ImageTasks& operator=(const ImageTasks&) = delete;
  /// Waits for the tasks still running (a batch ended by a throwing callback).
  ~ImageTasks();

  /// Reports the finished images until fewer than most_held are held.
  void report_and_make_room();
  /// Reports every image, waiting for those still running.
  void report_all();
  /// callbacks.next(); should it throw, every image taken so far is reported first.
  std::optional<BatchInput> take_next();
  /// Queues the image's task; one that cannot be queued is reported as that image's failure.
  void submit(BatchInput input);
  /// Images finished so far.
  [[nodiscard]] std::size_t finished();

 private:
  void report_until(const std::function<bool()>& enough);

  const BatchCallbacks& callbacks_;
  RunItem run_;
  const std::size_t most_held_;
  std::mutex mutex_;
  std::condition_variable changed_;
  std::vector<BatchItem> done_;  ///< finished, not yet reported
  std::size_t running_ = 0;
  std::size_t finished_ = 0;
};

/// A batch on a threaded CPU backend. When the batch has at least as many images as
/// `scheduler` has blocks (BatchCallbacks::size_hint), the images run side by side, one per
/// block's thread, each taken as soon as it is decoded and handed back as soon as it is done:
/// no image waits on another's rows or decode, and the codec workers keep decoding and
/// encoding around them. Where the caller lends its threads (BatchCallbacks::host_submit),
/// those images run as ImageTasks on them instead, so the codecs and the computes share one
/// set of threads. A smaller batch (or one of unknown size) runs one image at a time over
/// every block. Each input is reported once, done or failed, in any order.
void run_images_side_by_side(RowScheduler& scheduler, const BatchCallbacks& callbacks,
                             const ChainOnScheduler& run);

}  // namespace parfilter
