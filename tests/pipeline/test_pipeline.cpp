// The batch pipeline (pipeline.hpp) against its promises: every job finishes once, reported in
// the order it was started; a failure in any stage is that job's outcome and the batch goes
// on; at most images_in_flight(threads) images are held at once, whatever the batch's length;
// while a host backend computes, no worker gets past a checkpoint, but one that computes on the
// workers themselves is never paused by them; a backend that overlaps several inputs (as the
// GPU backends do) is fed the same way, and one that fails before its first input (a missing
// device) ends the batch with that one error; PARFILTER_TRACE records every stage of every job.
#include <gtest/gtest.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <exception>
#include <filesystem>
#include <fstream>
#include <future>
#include <map>
#include <mutex>
#include <set>
#include <sstream>
#include <stdexcept>
#include <thread>
#include <vector>

#include "parfilter/backends/serial.hpp"
#include "parfilter/error.hpp"
#include "parfilter/pipeline.hpp"
#include "support/test_images.hpp"

namespace parfilter {
namespace {

constexpr int kSide = 24;
constexpr auto kStageWork = std::chrono::microseconds(300);
const OpChain kGaussian{{Op::gaussian, {}}};

/// Jobs 0 .. count - 1 whose input is a small synthetic image; records what the pipeline does.
class RecordingJobs : public BatchJobs {
 public:
  explicit RecordingJobs(std::size_t count) : count_(count) {}

  std::optional<std::size_t> next_job() override {
    if (next_ >= count_) return std::nullopt;
    return next_++;
  }
  Image load(std::size_t job, const StageContext& context) override {
    hold(+1);
    std::this_thread::sleep_for(kStageWork);
    context.checkpoint();
    if (job == fail_load_) throw InputError("job " + std::to_string(job) + ": cannot load");
    return test::synthetic_image(kSide, kSide, 3, static_cast<unsigned>(job));
  }
  void save(std::size_t job, const OpOutput& output, const StageContext& context) override {
    context.checkpoint();
    EXPECT_EQ(output.image.width(), kSide);
    std::this_thread::sleep_for(kStageWork);
    if (job == fail_save_) throw RuntimeError("job " + std::to_string(job) + ": cannot save");
    release(job);  // the pipeline drops the job's images once save returns
  }
  void finished(std::size_t job, const JobOutcome& outcome) override {
    release(job);  // a job that failed before its save
    const std::scoped_lock lock(mutex_);
    order_.push_back(job);
    outcomes_.push_back(outcome);
  }

  std::size_t fail_load_ = SIZE_MAX;
  std::size_t fail_save_ = SIZE_MAX;
  std::vector<std::size_t> order_;
  std::vector<JobOutcome> outcomes_;
  std::atomic<int> peak_{0};

 private:
  /// Once per job: its images are no longer held. Counted at the end of its save, before the
  /// pipeline frees its slot (its report comes later, and a new load may start before it).
  void release(std::size_t job) {
    {
      const std::scoped_lock lock(mutex_);
      if (!released_.insert(job).second) return;
    }
    hold(-1);
  }

  /// Images between their load's start and their release: an upper bound of those held.
  void hold(int change) {
    const int now = held_ += change;
    int peak = peak_.load();
    while (now > peak && !peak_.compare_exchange_weak(peak, now)) {
    }
  }

  std::size_t count_;
  std::size_t next_ = 0;
  std::atomic<int> held_{0};
  std::mutex mutex_;
  std::set<std::size_t> released_;
};

std::vector<std::size_t> iota(std::size_t count) {
  std::vector<std::size_t> values(count);
  for (std::size_t i = 0; i < count; ++i) values[i] = i;
  return values;
}

TEST(Pipeline, EveryJobFinishesOnceInStartOrder) {
  const auto backend = make_serial_backend({});
  for (const int threads : {1, 2, 5}) {
    RecordingJobs jobs(23);
    run_batch_pipeline(*backend, kGaussian, jobs, {threads, true});
    EXPECT_EQ(jobs.order_, iota(23)) << threads << " threads";
    for (const JobOutcome& outcome : jobs.outcomes_) EXPECT_FALSE(outcome.failure);
  }
}

TEST(Pipeline, AFailureInAnyStageIsThatJobsOutcomeAndTheBatchGoesOn) {
  const auto backend = make_serial_backend({});
  RecordingJobs jobs(9);
  jobs.fail_load_ = 2;
  jobs.fail_save_ = 6;
  OpChain bad_chain{{Op::gaussian, {}}};  // fails in the backend: an unknown variant
  bad_chain[0].params.variant = "no-such-variant";
  run_batch_pipeline(*backend, kGaussian, jobs, {3, true});
  ASSERT_EQ(jobs.order_, iota(9));
  for (std::size_t i = 0; i < 9; ++i) {
    const JobOutcome& outcome = jobs.outcomes_[i];
    if (i == 2) {
      EXPECT_TRUE(outcome.failure);
      EXPECT_EQ(outcome.failed_stage, JobStage::load);
    } else if (i == 6) {
      EXPECT_TRUE(outcome.failure);
      EXPECT_EQ(outcome.failed_stage, JobStage::save);
    } else {
      EXPECT_FALSE(outcome.failure) << i;
    }
  }
  RecordingJobs computing(4);
  run_batch_pipeline(*backend, bad_chain, computing, {2, true});
  ASSERT_EQ(computing.outcomes_.size(), 4U);
  for (const JobOutcome& outcome : computing.outcomes_) {
    EXPECT_TRUE(outcome.failure);
    EXPECT_EQ(outcome.failed_stage, JobStage::compute);
  }
}

TEST(Pipeline, HoldsAtMostImagesInFlightWhateverTheBatchLength) {
  const auto backend = make_serial_backend({});
  for (const std::size_t count : {4U, 40U}) {
    RecordingJobs jobs(count);
    run_batch_pipeline(*backend, kGaussian, jobs, {2, true});
    EXPECT_LE(static_cast<std::size_t>(jobs.peak_.load()), images_in_flight(2)) << count;
  }
  EXPECT_EQ(images_in_flight(4), 6U);
}

/// A serial backend whose compute records how many checkpoints workers passed meanwhile: at
/// most one each (a worker already past the gate when it closed), never more.
class WatchedBackend final : public Backend {
 public:
  WatchedBackend(std::atomic<int>& passed, int workers) : passed_(passed), workers_(workers) {}
  [[nodiscard]] std::string_view name() const override { return "watched"; }
  [[nodiscard]] std::vector<std::string> variants(Op) const override { return {"default"}; }
  [[nodiscard]] Availability availability() const override { return {}; }
  OpOutput run(Op op, const ConstImageView& input, const OpParams& params,
               StageTimes* times) override {
    const int before = passed_.load();
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
    if (passed_.load() - before > workers_) ++overlaps_;
    return inner_->run(op, input, params, times);
  }
  std::atomic<int> overlaps_{0};

 private:
  std::atomic<int>& passed_;
  int workers_;
  std::unique_ptr<Backend> inner_ = make_serial_backend({});
};

class CheckpointCounting final : public RecordingJobs {
 public:
  CheckpointCounting(std::size_t count, std::atomic<int>& passed)
      : RecordingJobs(count), passed_(passed) {}
  Image load(std::size_t job, const StageContext& context) override {
    StageContext counting = context;
    counting.checkpoint = [&] {
      context.checkpoint();
      ++passed_;
    };
    for (int i = 0; i < 20; ++i) counting.checkpoint();  // a long decode, pausing now and then
    return RecordingJobs::load(job, counting);
  }

 private:
  std::atomic<int>& passed_;
};

TEST(Pipeline, WorkersPauseWhileAHostBackendComputes) {
  std::atomic<int> passed{0};
  constexpr int kWorkers = 3;
  WatchedBackend backend(passed, kWorkers);
  CheckpointCounting jobs(12, passed);
  run_batch_pipeline(backend, kGaussian, jobs, {kWorkers, true, 0.0});  // pause for every compute
  EXPECT_EQ(jobs.order_, iota(12));
  EXPECT_EQ(backend.overlaps_.load(), 0);
}

/// A backend that holds three inputs when it asks for a fourth, and only then returns the
/// first result, as the GPU backends overlap uploads with kernels.
class OverlappingBackend final : public Backend {
 public:
  static constexpr std::size_t kDepth = 3;
  explicit OverlappingBackend(bool on_host = false) : on_host_(on_host) {}
  [[nodiscard]] std::size_t batch_depth() const override { return kDepth; }
  [[nodiscard]] std::string_view name() const override { return "overlapping"; }
  [[nodiscard]] std::vector<std::string> variants(Op) const override { return {"default"}; }
  [[nodiscard]] Availability availability() const override { return {}; }
  [[nodiscard]] bool computes_on_host() const override { return on_host_; }
  OpOutput run(Op op, const ConstImageView& input, const OpParams& params,
               StageTimes* times) override {
    return inner_->run(op, input, params, times);
  }
  void run_batch(const OpChain& chain, const BatchCallbacks& callbacks) override {
    std::vector<BatchInput> held;
    const auto retire = [&] {
      BatchInput& oldest = held.front();
      callbacks.done(oldest.index, run_chain(chain, oldest.image.view(), nullptr), {});
      held.erase(held.begin());
    };
    for (auto input = callbacks.next(); input; input = callbacks.next()) {
      held.push_back(std::move(*input));
      if (held.size() > kDepth) retire();
    }
    while (!held.empty()) retire();
  }

 private:
  bool on_host_;
  std::unique_ptr<Backend> inner_ = make_serial_backend({});
};

TEST(Pipeline, FeedsABackendThatOverlapsSeveralInputs) {
  for (const int threads : {1, 2}) {  // one worker: a window of T + 2 alone would never fill
    OverlappingBackend backend;
    RecordingJobs jobs(10);
    jobs.fail_load_ = 4;
    run_batch_pipeline(backend, kGaussian, jobs, {threads, false});
    EXPECT_EQ(jobs.order_, iota(10));
    EXPECT_TRUE(jobs.outcomes_[4].failure);
  }
}

// A host backend that takes several inputs before its first result (a CPU backend running
// images side by side) computes only once it has them: the workers, paused while a host
// backend computes, must stay free to decode the inputs it is still waiting for.
TEST(Pipeline, AHostBackendThatHoldsSeveralInputsLetsTheWorkersDecodeThem) {
  for (const int threads : {1, 2}) {
    OverlappingBackend backend(/*on_host=*/true);
    RecordingJobs jobs(10);
    run_batch_pipeline(backend, kGaussian, jobs, {threads, true, 0.0});  // pause for every compute
    EXPECT_EQ(jobs.order_, iota(10));
  }
}

/// A host backend that computes each image as a task on the pipeline's workers (host_submit),
/// as a CPU backend runs a batch's images side by side, and waits for it before the next.
class TaskingBackend final : public Backend {
 public:
  [[nodiscard]] std::string_view name() const override { return "tasking"; }
  [[nodiscard]] std::vector<std::string> variants(Op) const override { return {"default"}; }
  [[nodiscard]] Availability availability() const override { return {}; }
  OpOutput run(Op op, const ConstImageView& input, const OpParams& params,
               StageTimes* times) override {
    return inner_->run(op, input, params, times);
  }
  void run_batch(const OpChain& chain, const BatchCallbacks& callbacks) override {
    ASSERT_TRUE(callbacks.host_submit);
    for (auto input = callbacks.next(); input; input = callbacks.next()) {
      std::promise<OpOutput> result;
      callbacks.host_submit([&] {
        try {
          result.set_value(run_chain(chain, input->image.view(), nullptr));
        } catch (...) {
          result.set_exception(std::current_exception());
        }
      });
      callbacks.done(input->index, result.get_future().get(), {});
    }
  }

 private:
  std::unique_ptr<Backend> inner_ = make_serial_backend({});
};

// The workers pause while a host backend computes on its own threads; one that computes on the
// workers themselves must not be paused by them, or its task would wait behind a paused decode.
TEST(Pipeline, AHostBackendComputingOnTheWorkersIsNotPausedByThem) {
  for (const int threads : {1, 2}) {
    TaskingBackend backend;
    std::atomic<int> passed{0};
    CheckpointCounting jobs(10, passed);
    run_batch_pipeline(backend, kGaussian, jobs, {threads, true, 0.0});  // pause for every compute
    EXPECT_EQ(jobs.order_, iota(10));
  }
}

class FailingSource final : public RecordingJobs {
 public:
  FailingSource() : RecordingJobs(100) {}
  std::optional<std::size_t> next_job() override {
    if (++asked_ == 5) throw std::runtime_error("protocol failure");
    return RecordingJobs::next_job();
  }

 private:
  int asked_ = 0;
};

TEST(Pipeline, ASourceFailureEndsTheBatchAfterTheStartedJobs) {
  const auto backend = make_serial_backend({});
  FailingSource jobs;
  EXPECT_THROW(run_batch_pipeline(*backend, kGaussian, jobs, {2, true}), std::runtime_error);
  EXPECT_EQ(jobs.order_, iota(4));
}

/// A device backend whose device turns out missing: it starts the loads, as the GPU backends do
/// while their device starts, then fails before it takes an input.
class DevicelessBackend final : public Backend {
 public:
  [[nodiscard]] std::string_view name() const override { return "deviceless"; }
  [[nodiscard]] std::vector<std::string> variants(Op) const override { return {"default"}; }
  [[nodiscard]] Availability availability() const override { return {false, "no device"}; }
  [[nodiscard]] bool computes_on_host() const override { return false; }
  OpOutput run(Op, const ConstImageView&, const OpParams&, StageTimes*) override {
    throw RuntimeError("no device");
  }
  void run_batch(const OpChain&, const BatchCallbacks& callbacks) override {
    callbacks.start_loads();
    throw RuntimeError("no device");
  }
};

TEST(Pipeline, ABackendFailingBeforeItsFirstInputEndsTheBatchWithItsOneError) {
  DevicelessBackend backend;
  RecordingJobs jobs(10);
  jobs.fail_load_ = 1;  // loaded while the device started, yet not reported: the run failed
  EXPECT_THROW(run_batch_pipeline(backend, kGaussian, jobs, {2, false}), RuntimeError);
  EXPECT_TRUE(jobs.order_.empty());
  EXPECT_GT(jobs.peak_.load(), 0);  // the loads had started
}

/// A device backend that runs its first inputs on the host while its device starts, then
/// finds the device missing.
class DeviceLostAfterTwoBackend final : public Backend {
 public:
  [[nodiscard]] std::string_view name() const override { return "device-lost"; }
  [[nodiscard]] std::vector<std::string> variants(Op) const override { return {"default"}; }
  [[nodiscard]] Availability availability() const override { return {}; }
  [[nodiscard]] bool computes_on_host() const override { return false; }
  OpOutput run(Op, const ConstImageView&, const OpParams&, StageTimes*) override {
    throw RuntimeError("no device");
  }
  void run_batch(const OpChain&, const BatchCallbacks& callbacks) override {
    callbacks.start_loads();
    for (int i = 0; i < 2; ++i) {
      BatchInput input = *callbacks.next();
      OpOutput output;
      output.image = std::move(input.image);
      callbacks.done(input.index, std::move(output), StageTimes{});
    }
    throw RuntimeError("no device");
  }
};

TEST(Pipeline, ABackendFailingAfterSomeInputsReportsThoseAndDropsTheRest) {
  DeviceLostAfterTwoBackend backend;
  RecordingJobs jobs(10);
  EXPECT_THROW(run_batch_pipeline(backend, kGaussian, jobs, {3, false}), RuntimeError);
  EXPECT_EQ(jobs.order_, iota(2));
}

TEST(Pipeline, PARFILTER_TRACERecordsEveryStageOfEveryJob) {
  const std::filesystem::path trace =
      std::filesystem::temp_directory_path() / ("parfilter-trace-" + std::to_string(::getpid()));
  ::setenv("PARFILTER_TRACE", trace.c_str(), 1);
  {
    const auto backend = make_serial_backend({});
    RecordingJobs jobs(5);
    run_batch_pipeline(*backend, kGaussian, jobs, {2, true});
  }
  ::unsetenv("PARFILTER_TRACE");
  std::ifstream file(trace);
  std::string line;
  ASSERT_TRUE(std::getline(file, line));
  EXPECT_EQ(line, "job,stage,thread,start_ms,end_ms");
  std::map<std::string, int> per_stage;
  while (std::getline(file, line)) {
    std::istringstream fields(line);
    std::string job, stage, thread, start, end;
    std::getline(fields, job, ',');
    std::getline(fields, stage, ',');
    std::getline(fields, thread, ',');
    std::getline(fields, start, ',');
    std::getline(fields, end, ',');
    EXPECT_LE(std::stod(start), std::stod(end)) << line;
    ++per_stage[stage];
  }
  const std::map<std::string, int> expected{
      {"compute", 5}, {"decode", 5}, {"encode", 5}, {"wait", 5}};
  EXPECT_EQ(per_stage, expected);
  std::filesystem::remove(trace);
}

}  // namespace
}  // namespace parfilter
