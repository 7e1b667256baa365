// The batch pipeline (pipeline.hpp). The backend runs on the calling thread inside
// Backend::run_batch; its callbacks are the pipeline's two ends. `next` tops up the window
// (starting decodes on the workers while fewer than images_in_flight images are held) and
// hands over the oldest decoded input; `done` queues the result's encode on the workers. A
// job's slot leaves the window, and its outcome is reported, once it and every older job
// have finished, so reports keep the input order.
#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <deque>
#include <limits>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <thread>

#include "parfilter/backend.hpp"
#include "parfilter/pipeline.hpp"
#include "pipeline_trace.hpp"
#include "worker_pool.hpp"

namespace parfilter {
namespace {

using Clock = std::chrono::steady_clock;
constexpr std::size_t kExtraImagesInFlight = 2;  // the one computing and the next one ready

enum class SlotState { loading, loaded, computing, saving, finished };

struct Slot {
  std::size_t job = 0;
  SlotState state = SlotState::loading;
  Image image;
  JobOutcome outcome;
  Clock::time_point delivered;  ///< when the backend took it (the trace's compute start)
};

class Pipeline {
 public:
  Pipeline(Backend& backend, BatchJobs& jobs, const PipelineOptions& options, int workers)
      : jobs_(jobs),
        compute_on_host_(options.compute_on_host),
        pause_min_ms_(options.pause_min_ms),
        limit_(images_in_flight(workers) + backend.batch_depth() - 1),
        pool_(workers) {
    context_.checkpoint = [this] { pool_.checkpoint(); };
    context_.parallel_for = [this](std::size_t count,
                                   const std::function<void(std::size_t)>& task) {
      pool_.parallel_for(count, task);
    };
    context_.allocator = backend.host_allocator();
  }
  Pipeline(const Pipeline&) = delete;
  Pipeline& operator=(const Pipeline&) = delete;

  BatchCallbacks callbacks() {
    BatchCallbacks callbacks;
    callbacks.next = [this] { return next(); };
    callbacks.done = [this](std::size_t job, OpOutput&& output, const StageTimes& times) {
      done(job, std::move(output), times);
    };
    callbacks.failed = [this](std::size_t job, std::exception_ptr failure) {
      failed(job, std::move(failure));
    };
    callbacks.size_hint = jobs_.size_hint();
    callbacks.start_loads = [this] {
      std::unique_lock lock(mutex_);
      top_up(lock);
    };
    // A device backend computing on the host (its device still starting) shares the workers
    // with the codecs: its pieces run first, on whichever workers are idle.
    callbacks.host_parallel_for = context_.parallel_for;
    callbacks.host_threads = pool_.workers() + 1;  // the backend's own thread takes a share
    callbacks.host_submit = [this](std::function<void()> task) {
      // Computes on the workers share their threads: pausing the workers would stall them.
      tasks_lent_ = true;
      if (gated_) {
        pool_.open_gate();
        gated_ = false;
      }
      pool_.submit(pipeline::Priority::piece, std::move(task));
    };
    return callbacks;
  }

  /// Whether the batch stopped because next_job threw (not the backend itself).
  [[nodiscard]] bool source_failed() {
    const std::scoped_lock lock(mutex_);
    return source_failed_;
  }

  /// After the backend stopped with its own failure (a device that turned out missing, maybe
  /// after it ran some inputs on the host's cores): the jobs it never took end unreported once
  /// their loads are done, as the batch ends with the backend's one error; those it took
  /// still finish and are reported.
  void drop_untaken() {
    std::unique_lock lock(mutex_);
    exhausted_ = true;
    wait_for_loads(lock);
    const auto untaken = window_.begin() + static_cast<std::ptrdiff_t>(delivered_);
    for (auto slot = untaken; slot != window_.end(); ++slot) {
      if (slot->state != SlotState::finished) --active_;
    }
    window_.erase(untaken, window_.end());
    changed_.notify_all();
  }

  /// After the backend stopped early (next_job threw): the jobs it will never take end with
  /// `failure`, once their loads are done.
  void abandon(const std::exception_ptr& failure) {
    {
      std::unique_lock lock(mutex_);
      wait_for_loads(lock);
      for (Slot& slot : window_) {
        if (slot.state == SlotState::loaded) finish(slot, failure, JobStage::compute);
      }
    }
    flush();
  }

  /// Waits for every started job to finish and reports the rest.
  void drain() {
    std::unique_lock lock(mutex_);
    changed_.wait(lock, [&] { return active_ == 0; });
    lock.unlock();
    flush();
  }

 private:
  std::optional<BatchInput> next() {
    // A backend that asks for another input before handing back a result (several images
    // side by side) computes only once it has them: the workers stay free to decode them.
    if (gated_) {
      pool_.open_gate();
      gated_ = false;
    }
    const auto asked = Clock::now();
    std::unique_lock lock(mutex_);
    for (;;) {
      top_up(lock);
      if (delivered_ < window_.size()) {
        Slot& slot = window_[delivered_];
        if (slot.state == SlotState::loaded) {
          ++delivered_;
          slot.state = SlotState::computing;
          slot.delivered = Clock::now();
          if (trace_) trace_->record(slot.job, "wait", asked, slot.delivered);
          gated_ = compute_on_host_ && !tasks_lent_ && last_compute_ms_ >= pause_min_ms_;
          if (gated_) pool_.close_gate();
          return BatchInput{slot.job, std::move(slot.image)};
        }
        if (slot.state == SlotState::finished) {  // its load failed
          ++delivered_;
          continue;
        }
      } else if (exhausted_) {
        return std::nullopt;
      }
      changed_.wait(lock);
    }
  }

  /// Starts loads (the lock held) while the window has room and jobs remain.
  void top_up(std::unique_lock<std::mutex>& lock) {
    while (active_ < limit_ && !exhausted_) start_one(lock);
  }

  /// Waits (the lock held) until no started load is still running.
  void wait_for_loads(std::unique_lock<std::mutex>& lock) {
    changed_.wait(lock, [&] {
      return std::none_of(window_.begin(), window_.end(),
                          [](const Slot& slot) { return slot.state == SlotState::loading; });
    });
  }

  /// Asks for the next job (without the lock: it may wait on the network) and queues its load.
  void start_one(std::unique_lock<std::mutex>& lock) {
    lock.unlock();
    std::optional<std::size_t> job;
    try {
      job = jobs_.next_job();
    } catch (...) {
      lock.lock();
      exhausted_ = true;
      source_failed_ = true;
      throw;
    }
    lock.lock();
    if (!job) {
      exhausted_ = true;
      return;
    }
    window_.emplace_back().job = *job;
    ++active_;
    pool_.submit(pipeline::Priority::decode, [this, job = *job] { load(job); });
  }

  Slot& slot_of(std::size_t job) {
    for (Slot& slot : window_) {
      if (slot.job == job) return slot;
    }
    throw std::logic_error("pipeline: unknown job");
  }

  /// What a job's decode or encode took, and what it threw (null when nothing).
  struct StageRun {
    double ms;
    std::exception_ptr failure;
  };
  /// Runs `work`, one stage of `job`, timed, traced as `stage`, and what it throws caught.
  template <class Work>
  StageRun run_stage(std::size_t job, const char* stage, const Work& work) {
    const auto start = Clock::now();
    std::exception_ptr failure;
    try {
      work();
    } catch (...) {
      failure = std::current_exception();
    }
    if (trace_) trace_->record(job, stage, start, Clock::now());
    return {elapsed_ms(start), std::move(failure)};
  }

  void load(std::size_t job) {
    Image image;
    const StageRun run = run_stage(job, "decode", [&] { image = jobs_.load(job, context_); });
    const std::exception_ptr& failure = run.failure;
    {
      const std::scoped_lock lock(mutex_);
      Slot& slot = slot_of(job);
      slot.outcome.load_ms = run.ms;
      if (failure) {
        finish(slot, failure, JobStage::load);
      } else {
        slot.image = std::move(image);
        slot.state = SlotState::loaded;
      }
      changed_.notify_all();
    }
    if (failure) flush();
  }

  void done(std::size_t job, OpOutput&& output, const StageTimes& times) {
    if (gated_) pool_.open_gate();
    last_compute_ms_ = times.compute_ms;
    {
      const std::scoped_lock lock(mutex_);
      Slot& slot = slot_of(job);
      slot.outcome.compute = times;
      slot.state = SlotState::saving;
      if (trace_) trace_->record(job, "compute", slot.delivered, Clock::now());
    }
    pool_.submit(pipeline::Priority::encode,
                 [this, job, result = std::make_shared<OpOutput>(std::move(output))] {
                   save(job, *result);
                 });
  }

  void failed(std::size_t job, std::exception_ptr failure) {
    if (gated_) pool_.open_gate();
    {
      const std::scoped_lock lock(mutex_);
      finish(slot_of(job), std::move(failure), JobStage::compute);
      changed_.notify_all();
    }
    flush();
  }

  void save(std::size_t job, const OpOutput& output) {
    StageRun run = run_stage(job, "encode", [&] { jobs_.save(job, output, context_); });
    {
      const std::scoped_lock lock(mutex_);
      Slot& slot = slot_of(job);
      slot.outcome.save_ms = run.ms;
      finish(slot, std::move(run.failure), JobStage::save);
      changed_.notify_all();
    }
    flush();
  }

  /// Marks a slot finished (the lock held) and frees its image.
  void finish(Slot& slot, std::exception_ptr failure, JobStage stage) {
    slot.outcome.failure = std::move(failure);
    slot.outcome.failed_stage = stage;
    slot.state = SlotState::finished;
    slot.image = Image{};
    --active_;
  }

  /// Reports the finished jobs at the front of the window, in order, one reporter at a time.
  void flush() {
    const std::scoped_lock reporting(flush_mutex_);
    for (;;) {
      Slot slot;
      {
        const std::scoped_lock lock(mutex_);
        if (window_.empty() || window_.front().state != SlotState::finished) return;
        slot = std::move(window_.front());
        window_.pop_front();
        if (delivered_ > 0) --delivered_;  // else a failed load that next() had not reached
      }
      jobs_.finished(slot.job, slot.outcome);
    }
  }

  BatchJobs& jobs_;
  bool compute_on_host_;
  double pause_min_ms_;
  // Only the callbacks read and write these, and the backend calls them one at a time.
  double last_compute_ms_ = std::numeric_limits<double>::infinity();  // unknown: pause
  bool gated_ = false;
  bool tasks_lent_ = false;  // the backend computes on the workers (host_submit)
  std::size_t limit_;
  std::mutex mutex_;
  std::condition_variable changed_;
  std::mutex flush_mutex_;
  std::deque<Slot> window_;    // started jobs not yet reported, in start order
  std::size_t delivered_ = 0;  // the window's first slots the backend has taken or skipped
  std::size_t active_ = 0;     // started jobs not yet finished
  bool exhausted_ = false;
  bool source_failed_ = false;  // next_job threw
  StageContext context_;
  std::unique_ptr<pipeline::Trace> trace_ = pipeline::Trace::from_environment();
  pipeline::WorkerPool pool_;  // last: destroyed (joined) first
};

}  // namespace

std::size_t images_in_flight(int threads) {
  const int workers =
      threads > 0 ? threads : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  return static_cast<std::size_t>(workers) + kExtraImagesInFlight;
}

void run_batch_pipeline(Backend& backend, const OpChain& chain, BatchJobs& jobs,
                        const PipelineOptions& options) {
  const int workers = options.threads > 0
                          ? options.threads
                          : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  Pipeline pipeline(backend, jobs, options, workers);
  std::exception_ptr protocol_failure;
  try {
    backend.run_batch(chain, pipeline.callbacks());
  } catch (...) {
    protocol_failure = std::current_exception();
    if (pipeline.source_failed()) {
      pipeline.abandon(protocol_failure);
    } else {
      pipeline.drop_untaken();
    }
  }
  pipeline.drain();
  if (protocol_failure) std::rethrow_exception(protocol_failure);
}

}  // namespace parfilter
