// Images side by side: every block's thread runs the same loop. One thread at a time holds
// the callbacks (the pipeline's next, done and failed are not reentrant): it reports the
// finished images, then asks for the next input; the others compute what it handed over.
// Holding the callbacks comes before computing, so the next input is asked for as soon as
// one is taken (the pipeline pauses its codec workers from a hand-over to the next call),
// and any one thread alone finishes the batch (a team smaller than its blocks runs them in
// turn). Where the caller lends its threads, the images run as tasks on them instead
// (ImageTasks): the team stays idle, and the computes and the codecs never hold more threads
// than the caller's.
#include "cpu_batch.hpp"

#include <algorithm>
#include <condition_variable>
#include <deque>
#include <exception>
#include <memory>
#include <mutex>
#include <optional>
#include <utility>
#include <vector>

namespace parfilter {

void run_item(RowScheduler& scheduler, BatchItem& item, const ChainOnScheduler& run) {
  try {
    item.output = run(scheduler, item.input.image, item.times);
  } catch (...) {
    item.failure = std::current_exception();
  }
  item.input.image = Image{};  // its memory back before the encode
}

void report_item(const BatchCallbacks& callbacks, BatchItem& item) {
  if (item.failure) {
    callbacks.failed(item.input.index, item.failure);
  } else {
    callbacks.done(item.input.index, std::move(item.output), item.times);
  }
}

ImageTasks::ImageTasks(const BatchCallbacks& callbacks, RunItem run, std::size_t most_held)
    : callbacks_(callbacks), run_(std::move(run)), most_held_(most_held) {}

ImageTasks::~ImageTasks() {
  std::unique_lock lock(mutex_);
  changed_.wait(lock, [&] { return running_ == 0; });
}

void ImageTasks::report_and_make_room() {
  report_until([&] { return running_ < most_held_; });
}

void ImageTasks::report_all() {
  report_until([&] { return running_ == 0; });
}

void ImageTasks::submit(BatchInput input) {
  auto item = std::make_shared<BatchItem>(BatchItem{std::move(input), {}, {}, {}});
  {
    const std::scoped_lock lock(mutex_);
    ++running_;
  }
  const auto task = [this, item] {
    CallingThreadScheduler one_thread;
    run_(one_thread, *item);
    const std::scoped_lock lock(mutex_);
    done_.push_back(std::move(*item));
    --running_;
    ++finished_;
    changed_.notify_all();
  };
  try {
    callbacks_.host_submit(task);
  } catch (...) {  // never queued: nothing to wait for
    {
      const std::scoped_lock lock(mutex_);
      --running_;
    }
    callbacks_.failed(item->input.index, std::current_exception());
  }
}

std::optional<BatchInput> ImageTasks::take_next() {
  try {
    return callbacks_.next();
  } catch (...) {
    report_all();  // the caller reports only what it was handed
    throw;
  }
}

std::size_t ImageTasks::finished() {
  const std::scoped_lock lock(mutex_);
  return finished_;
}

void ImageTasks::report_until(const std::function<bool()>& enough) {
  std::unique_lock lock(mutex_);
  for (;;) {
    if (!done_.empty()) {
      std::vector<BatchItem> done;
      done.swap(done_);
      lock.unlock();
      for (BatchItem& item : done) report_item(callbacks_, item);
      lock.lock();
    } else if (enough()) {
      return;
    } else {
      changed_.wait(lock);
    }
  }
}

namespace {

/// Images side by side on the caller's threads; the batch's thread keeps the callbacks.
void run_as_tasks(const BatchCallbacks& callbacks, const ChainOnScheduler& run,
                  std::size_t most_held) {
  ImageTasks tasks(
      callbacks,
      [&run](RowScheduler& one_thread, BatchItem& item) { run_item(one_thread, item, run); },
      most_held);
  for (;;) {
    tasks.report_and_make_room();
    std::optional<BatchInput> input = tasks.take_next();
    if (!input) break;
    tasks.submit(std::move(*input));
  }
  tasks.report_all();
}

class SideBySide {
 public:
  SideBySide(const BatchCallbacks& callbacks, const ChainOnScheduler& run, std::size_t most_held)
      : callbacks_(callbacks), run_(run), most_held_(most_held) {}

  /// One block's share: until every input is taken, computed and reported.
  void work() {
    std::unique_lock lock(mutex_);
    for (;;) {
      if (!calling_ && (!finished_.empty() || (!exhausted_ && held_ < most_held_))) {
        call_back(lock);
      } else if (!todo_.empty()) {
        compute(lock);
      } else if (exhausted_ && finished_.empty() && held_ == 0) {
        return;
      } else {
        changed_.wait(lock);
      }
    }
  }

  /// What the pipeline's next threw (no more inputs were taken after it), or null.
  [[nodiscard]] std::exception_ptr failure() const { return failure_; }

 private:
  /// Reports the finished images, then asks for the next input (the lock released meanwhile).
  void call_back(std::unique_lock<std::mutex>& lock) {
    calling_ = true;
    std::vector<BatchItem> finished;
    finished.swap(finished_);
    const bool ask = !exhausted_ && held_ < most_held_;
    lock.unlock();
    std::optional<BatchInput> input;
    std::exception_ptr failure;
    try {
      for (BatchItem& item : finished) report_item(callbacks_, item);
      if (ask) input = callbacks_.next();
    } catch (...) {
      failure = std::current_exception();
    }
    lock.lock();
    calling_ = false;
    held_ -= finished.size();
    if (failure && !failure_) failure_ = failure;
    if (input) {
      todo_.push_back({std::move(*input), {}, {}, {}});
      ++held_;
    } else if (ask || failure) {
      exhausted_ = true;
    }
    changed_.notify_all();
  }

  void compute(std::unique_lock<std::mutex>& lock) {
    BatchItem item = std::move(todo_.front());
    todo_.pop_front();
    lock.unlock();
    CallingThreadScheduler one_thread;
    run_item(one_thread, item, run_);
    lock.lock();
    finished_.push_back(std::move(item));
    changed_.notify_all();
  }

  const BatchCallbacks& callbacks_;
  const ChainOnScheduler& run_;
  const std::size_t most_held_;  // inputs taken and not yet reported, at most
  std::mutex mutex_;
  std::condition_variable changed_;
  std::deque<BatchItem> todo_;
  std::vector<BatchItem> finished_;
  std::size_t held_ = 0;
  bool calling_ = false;  // a thread is in the callbacks
  bool exhausted_ = false;
  std::exception_ptr failure_;
};

}  // namespace

void run_images_side_by_side(RowScheduler& scheduler, const BatchCallbacks& callbacks,
                             const ChainOnScheduler& run) {
  const int blocks = scheduler.max_blocks();
  if (blocks < 2 || callbacks.size_hint < static_cast<std::size_t>(blocks)) {
    while (std::optional<BatchInput> input = callbacks.next()) {
      BatchItem item{std::move(*input), {}, {}, {}};
      run_item(scheduler, item, run);
      report_item(callbacks, item);
    }
    return;
  }
  // At most one image per block is held: the pipeline's window (threads + 2) keeps room to
  // decode the next while every block computes.
  if (callbacks.host_submit) {
    // The lent threads run one image each: holding more would only take window slots.
    const int lent = callbacks.host_threads > 1 ? callbacks.host_threads - 1 : blocks;
    run_as_tasks(callbacks, run, static_cast<std::size_t>(std::min(blocks, lent)));
    return;
  }
  SideBySide side_by_side(callbacks, run, static_cast<std::size_t>(blocks));
  scheduler.for_each_block(blocks, [&](RowRange, int) { side_by_side.work(); });
  if (side_by_side.failure()) std::rethrow_exception(side_by_side.failure());
}

}  // namespace parfilter
