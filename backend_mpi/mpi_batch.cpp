// A batch over the ranks: the root hands out whole images one at a time, largest file first,
// to whichever rank asks next, so that uneven sizes balance. Every rank (the root too, while a
// second thread answers the others) runs the batch pipeline of every executable over the jobs
// it is given: its workers decode and encode while its backend computes, and it asks for the
// next job as soon as its window has room. A job's failure and report lines travel to the
// root, which alone prints them, with a progress line per finished image and a summary. A
// failure outside any job (the protocol itself) aborts the MPI job: the other ranks would
// otherwise wait forever.
#include <mpi.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <mutex>
#include <numeric>
#include <optional>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "mpi_comm.hpp"
#include "mpi_driver.hpp"
#include "mpi_rank.hpp"

namespace parfilter::mpi_detail {
namespace {

using Clock = std::chrono::steady_clock;

constexpr int kRequestTag = 200;  ///< worker -> root: give me a job
constexpr int kResultTag = 201;   ///< worker -> root: one job's result
constexpr int kAssignTag = 202;   ///< root -> worker: the next job, or kNoMoreJobs
constexpr int kDoneTag = 203;     ///< worker -> root: every job of mine has finished
constexpr int kNoMoreJobs = -1;
/// How often the root's dispatcher looks for requests: short next to any image's time, long
/// enough that the polling thread costs its core nothing.
constexpr auto kPollInterval = std::chrono::microseconds(500);
constexpr int kAbortCode = 1;

double elapsed_ms(Clock::time_point since) {
  return std::chrono::duration<double, std::milli>(Clock::now() - since).count();
}

/// What a rank reports about one job.
struct JobResult {
  int job = kNoMoreJobs;  ///< the job's index; kNoMoreJobs in a worker's first request
  int exit_code = kExitSuccess;
  std::string error;
  std::vector<ReportLine> lines;
};

// ---- the result as bytes: fixed-width integers, then length-prefixed strings ------------------
void put_int(std::string& out, std::int64_t value) {
  char bytes[sizeof value];
  std::memcpy(bytes, &value, sizeof value);
  out.append(bytes, sizeof value);
}

void put_string(std::string& out, const std::string& text) {
  put_int(out, static_cast<std::int64_t>(text.size()));
  out += text;
}

std::string pack(const JobResult& result) {
  std::string out;
  put_int(out, result.job);
  put_int(out, result.exit_code);
  put_string(out, result.error);
  put_int(out, static_cast<std::int64_t>(result.lines.size()));
  for (const ReportLine& line : result.lines) {
    put_int(out, line.to_stdout ? 1 : 0);
    put_string(out, line.text);
  }
  return out;
}

class Unpacker {
 public:
  explicit Unpacker(const std::string& bytes) : bytes_(bytes) {}
  std::int64_t get_int() {
    std::int64_t value = 0;
    std::memcpy(&value, bytes_.data() + at_, sizeof value);
    at_ += sizeof value;
    return value;
  }
  std::string get_string() {
    const auto size = static_cast<std::size_t>(get_int());
    std::string text = bytes_.substr(at_, size);
    at_ += size;
    return text;
  }

 private:
  const std::string& bytes_;
  std::size_t at_ = 0;
};

JobResult unpack(const std::string& bytes) {
  Unpacker in(bytes);
  JobResult result;
  result.job = static_cast<int>(in.get_int());
  result.exit_code = static_cast<int>(in.get_int());
  result.error = in.get_string();
  const auto lines = in.get_int();
  for (std::int64_t i = 0; i < lines; ++i) {
    const bool to_stdout = in.get_int() != 0;
    result.lines.push_back({to_stdout, in.get_string()});
  }
  return result;
}

// ---- the root's side ------------------------------------------------------------------------
/// The jobs in the order they are handed out: largest input first (a big image started last
/// would finish last, alone), unreadable ones at the end. Thread-safe.
class JobQueue {
 public:
  explicit JobQueue(const std::vector<CliJob>& jobs) : order_(jobs.size()) {
    std::vector<std::uintmax_t> sizes;
    for (const CliJob& job : jobs) {
      std::error_code ec;
      const std::uintmax_t size = std::filesystem::file_size(job.input, ec);
      sizes.push_back(ec ? 0 : size);
    }
    std::iota(order_.begin(), order_.end(), 0);
    std::stable_sort(order_.begin(), order_.end(),
                     [&](int a, int b) { return sizes[a] > sizes[b]; });
  }
  int next() {
    const std::size_t at = next_.fetch_add(1);
    return at < order_.size() ? order_[at] : kNoMoreJobs;
  }

 private:
  std::vector<int> order_;
  std::atomic<std::size_t> next_{0};
};

/// The root's record of finished jobs. Each prints as it arrives, under one lock: its failure
/// or report lines, then a progress line "[done/total] <input> (rank r)" (always, not only on
/// a terminal: under mpirun no rank's stderr is one).
class Tally {
 public:
  explicit Tally(const JobRunner& runner) : runner_(runner) {}
  void record(const JobResult& result, int rank) {
    const std::scoped_lock lock(mutex_);
    ++done_;
    if (result.exit_code != kExitSuccess) {
      runner_.error(result.error);
      ++failed_;
    }
    runner_.print(result.lines);
    exit_code_ = worst_exit_code(exit_code_, result.exit_code);
    const auto& jobs = runner_.jobs();
    runner_.info("[" + std::to_string(done_) + "/" + std::to_string(jobs.size()) + "] " +
                 jobs[static_cast<std::size_t>(result.job)].input.string() + " (rank " +
                 std::to_string(rank) + ")");
  }
  [[nodiscard]] std::size_t failed() const { return failed_; }
  [[nodiscard]] int exit_code() const { return exit_code_; }

 private:
  const JobRunner& runner_;
  std::mutex mutex_;
  std::size_t done_ = 0;
  std::size_t failed_ = 0;
  int exit_code_ = kExitSuccess;
};

/// Answers every worker's requests and records their results until each has finished.
void serve_workers(MPI_Comm comm, int workers, JobQueue& queue, Tally& tally) {
  std::string buffer;
  for (int active = workers; active > 0;) {
    int pending = 0;
    MPI_Status status;
    MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, comm, &pending, &status);
    if (pending == 0) {
      std::this_thread::sleep_for(kPollInterval);
      continue;
    }
    int bytes = 0;
    MPI_Get_count(&status, MPI_BYTE, &bytes);
    buffer.resize(static_cast<std::size_t>(bytes));
    MPI_Recv(buffer.data(), bytes, MPI_BYTE, status.MPI_SOURCE, status.MPI_TAG, comm,
             MPI_STATUS_IGNORE);
    if (status.MPI_TAG == kResultTag) {
      tally.record(unpack(buffer), status.MPI_SOURCE);
    } else if (status.MPI_TAG == kRequestTag) {
      const int next = queue.next();
      MPI_Send(&next, 1, MPI_INT, status.MPI_SOURCE, kAssignTag, comm);
    } else if (status.MPI_TAG == kDoneTag) {
      --active;
    }
  }
}

// ---- every rank's side ------------------------------------------------------------------------
/// A finished job as the root reports it.
JobResult result_of(const JobRunner& runner, std::size_t job, const JobOutcome& outcome,
                    const std::optional<int>& threshold) {
  const CliJob& cli_job = runner.jobs()[job];
  JobResult result;
  result.job = static_cast<int>(job);
  try {
    if (outcome.failure) std::rethrow_exception(outcome.failure);
    OpOutput reported;
    reported.threshold = threshold;
    result.lines = runner.report(
        cli_job, reported, runner.stage_times(outcome.load_ms, outcome.compute, outcome.save_ms));
  } catch (...) {
    std::exception_ptr failure = std::current_exception();
    if (outcome.failure && outcome.failed_stage == JobStage::compute) {
      failure = job_failure_naming(cli_job.input, failure);
    }
    result.exit_code = exit_code_for(failure);
    try {
      std::rethrow_exception(failure);
    } catch (const std::exception& e) {
      result.error = e.what();
    } catch (...) {
      result.error = cli_job.input.string() + ": unknown failure";
    }
  }
  return result;
}

/// This rank's jobs for the pipeline: from the root's queue (on the root) or by asking it (on
/// a worker). A worker's MPI calls all happen on the thread that runs the pipeline (inside
/// next_job and at the end), so MPI_THREAD_FUNNELED is enough there: results finished on
/// other threads wait in an outbox.
class RankJobs final : public BatchJobs {
 public:
  RankJobs(const JobRunner& runner, MPI_Comm comm, int root, JobQueue* queue, Tally* tally)
      : runner_(runner), comm_(comm), root_(root), queue_(queue), tally_(tally),
        thresholds_(runner.jobs().size()) {}

  std::optional<std::size_t> next_job() override {
    int next = kNoMoreJobs;
    if (queue_ != nullptr) {
      next = queue_->next();
    } else {
      send_outbox();
      MPI_Send(nullptr, 0, MPI_BYTE, root_, kRequestTag, comm_);
      MPI_Recv(&next, 1, MPI_INT, root_, kAssignTag, comm_, MPI_STATUS_IGNORE);
    }
    if (next == kNoMoreJobs) return std::nullopt;
    return static_cast<std::size_t>(next);
  }
  Image load(std::size_t job, const StageContext& context) override {
    return runner_.load(runner_.jobs()[job], context);
  }
  void save(std::size_t job, const OpOutput& output, const StageContext& context) override {
    runner_.save(runner_.jobs()[job], output, &context);
    thresholds_[job] = output.threshold;
  }
  void finished(std::size_t job, const JobOutcome& outcome) override {
    const JobResult result = result_of(runner_, job, outcome, thresholds_[job]);
    if (tally_ != nullptr) {
      tally_->record(result, root_);
      return;
    }
    const std::scoped_lock lock(outbox_mutex_);
    outbox_.push_back(pack(result));
  }
  /// A worker's last messages: the results not sent yet, then that it has finished.
  void finish_worker() {
    send_outbox();
    MPI_Send(nullptr, 0, MPI_BYTE, root_, kDoneTag, comm_);
  }

 private:
  void send_outbox() {
    std::vector<std::string> ready;
    {
      const std::scoped_lock lock(outbox_mutex_);
      ready.swap(outbox_);
    }
    for (const std::string& packed : ready) {
      MPI_Send(packed.data(), static_cast<int>(packed.size()), MPI_BYTE, root_, kResultTag,
               comm_);
    }
  }

  const JobRunner& runner_;
  MPI_Comm comm_;
  int root_;
  JobQueue* queue_;
  Tally* tally_;
  std::vector<std::optional<int>> thresholds_;  // each written by its own job's save
  std::mutex outbox_mutex_;
  std::vector<std::string> outbox_;
};

/// Runs this rank's share of the batch through the pipeline.
void run_rank_pipeline(const JobRunner& runner, Backend& backend, RankJobs& jobs) {
  PipelineOptions options = runner.pipeline_options();
  options.threads = backend.computes_on_host() ? backend.threads() : options.threads;
  options.compute_on_host = backend.computes_on_host();
  run_batch_pipeline(backend, runner.chain(), jobs, options);
}

/// The last resort for a failure outside any job: every rank must stop, not wait.
template <typename Protocol>
void or_abort(Protocol&& protocol) {
  try {
    protocol();
  } catch (const std::exception& e) {
    std::fprintf(stderr, "parfilter-mpi: batch protocol failed: %s\n", e.what());
    MPI_Abort(MPI_COMM_WORLD, kAbortCode);
  }
}

bool threads_may_call_mpi() {
  int provided = MPI_THREAD_SINGLE;
  MPI_Query_thread(&provided);
  return provided >= MPI_THREAD_SERIALIZED;
}

}  // namespace

int run_batch(const JobRunner& runner) {
  const auto start = Clock::now();
  Comm world{MPI_COMM_WORLD};
  MPI_Comm_rank(world.comm, &world.rank);
  MPI_Comm_size(world.comm, &world.size);
  // Every rank makes the directory (they need not share a file system); a failure anywhere
  // stops every rank.
  on_every_rank(world, [&] { runner.create_out_dir(); });
  const std::unique_ptr<Backend> backend = make_rank_local_backend(runner.backend_options());

  MPI_Comm comm = MPI_COMM_NULL;
  MPI_Comm_dup(world.comm, &comm);
  int exit_code = kExitSuccess;
  if (world.is_root()) {
    JobQueue queue(runner.jobs());
    Tally tally(runner);
    const int workers = world.size - 1;
    RankJobs own_jobs(runner, comm, world.root, &queue, &tally);
    or_abort([&] {
      if (workers > 0 && threads_may_call_mpi()) {
        // The root computes too; a second thread answers the workers meanwhile.
        std::thread dispatcher(
            [&] { or_abort([&] { serve_workers(comm, workers, queue, tally); }); });
        run_rank_pipeline(runner, *backend, own_jobs);
        dispatcher.join();
      } else if (workers > 0) {
        serve_workers(comm, workers, queue, tally);
      } else {
        run_rank_pipeline(runner, *backend, own_jobs);
      }
    });
    runner.info(batch_summary(runner.jobs().size(), tally.failed(), elapsed_ms(start),
                              world.size));
    exit_code = tally.exit_code();
  } else {
    RankJobs jobs(runner, comm, world.root, nullptr, nullptr);
    or_abort([&] {
      run_rank_pipeline(runner, *backend, jobs);
      jobs.finish_worker();
    });
  }
  MPI_Comm_free(&comm);
  MPI_Bcast(&exit_code, 1, MPI_INT, world.root, world.comm);
  return exit_code;
}

}  // namespace parfilter::mpi_detail
