// A batch over the ranks: the root hands out whole images one at a time, largest file first,
// to whichever rank asks next, so that uneven sizes balance. Every rank (the root too, while a
// second thread answers the others) runs the batch pipeline of every executable over the jobs
// it is given: its workers decode and encode while its backend computes, and it asks for the
// next job as soon as its window has room. A job's failure and report lines travel to the
// root, which alone prints them, with a progress line per finished image and a summary. With
// the files on the root (--files-on root, the default) the root alone opens files: it sends
// each job's input file with the job and writes the encoded output that comes back with the
// result; the other ranks decode and encode. A failure outside any job (the protocol itself)
// aborts the MPI job: the other ranks would otherwise wait forever.
#include <mpi.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <map>
#include <memory>
#include <mutex>
#include <numeric>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "mpi_comm.hpp"
#include "mpi_driver.hpp"
#include "mpi_messages.hpp"
#include "mpi_rank.hpp"
#include "parfilter/backend.hpp"

namespace parfilter::mpi_detail {
namespace {

using Clock = std::chrono::steady_clock;

/// How often the root's dispatcher looks for requests: short next to any image's time, long
/// enough that the polling thread costs its core nothing.
constexpr auto kPollInterval = std::chrono::microseconds(500);
constexpr int kAbortCode = 1;

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

/// What the root's dispatcher needs: the runner, and whether the files are the root's alone.
struct Dispatch {
  const JobRunner& runner;
  MPI_Comm comm;
  bool files_on_root;
  JobQueue& queue;
  Tally& tally;
};

/// Gives `worker` its next job: with the files on the root, the input's bytes follow it, and a
/// job whose input the root cannot read (or whose output it cannot write) fails here, on the
/// root, and the next one is tried.
void assign_next(const Dispatch& d, int worker, int root) {
  for (;;) {
    const int job = d.queue.next();
    if (job == kNoMoreJobs || !d.files_on_root) {
      MPI_Send(&job, 1, MPI_INT, worker, kAssignTag, d.comm);
      return;
    }
    std::vector<std::uint8_t> input;
    try {
      input = d.runner.read_input(d.runner.jobs()[static_cast<std::size_t>(job)]);
    } catch (...) {
      d.tally.record(failed_job(job, std::current_exception()), root);
      continue;
    }
    MPI_Send(&job, 1, MPI_INT, worker, kAssignTag, d.comm);
    send_bytes(d.comm, worker, kInputTag, input);
    return;
  }
}

/// A worker's result; with the files on the root, its output's bytes follow it and the root
/// writes them (atomically), a failed write becoming the job's failure.
void record_result(const Dispatch& d, const std::string& packed, int worker) {
  JobResult result = unpack(packed);
  if (d.files_on_root) {
    const std::vector<std::uint8_t> output = recv_bytes(d.comm, worker, kOutputTag);
    if (result.exit_code == kExitSuccess) {
      try {
        d.runner.write_output(d.runner.jobs()[static_cast<std::size_t>(result.job)], output);
      } catch (...) {
        result = failed_job(result.job, std::current_exception());
      }
    }
  }
  d.tally.record(result, worker);
}

/// Answers every worker's requests and records their results until each has finished.
void serve_workers(const Dispatch& d, int workers, int root) {
  std::string buffer;
  for (int active = workers; active > 0;) {
    int pending = 0;
    MPI_Status status;
    MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, d.comm, &pending, &status);
    if (pending == 0) {
      std::this_thread::sleep_for(kPollInterval);
      continue;
    }
    int bytes = 0;
    MPI_Get_count(&status, MPI_BYTE, &bytes);
    buffer.resize(static_cast<std::size_t>(bytes));
    MPI_Recv(buffer.data(), bytes, MPI_BYTE, status.MPI_SOURCE, status.MPI_TAG, d.comm,
             MPI_STATUS_IGNORE);
    if (status.MPI_TAG == kResultTag) {
      record_result(d, buffer, status.MPI_SOURCE);
    } else if (status.MPI_TAG == kRequestTag) {
      assign_next(d, status.MPI_SOURCE, root);
    } else if (status.MPI_TAG == kDoneTag) {
      --active;
    }
  }
}

// ---- every rank's side ------------------------------------------------------------------------
/// This rank's jobs for the pipeline: from the root's queue (on the root) or by asking it (on
/// a worker). A worker's MPI calls all happen on the thread that runs the pipeline (inside
/// next_job and at the end), so MPI_THREAD_FUNNELED is enough there: results finished on
/// other threads wait in an outbox. With the files on the root, a worker's inputs arrive with
/// their jobs and wait for their decode in `inputs_`; its encoded outputs go with the results.
class RankJobs final : public BatchJobs {
 public:
  RankJobs(const JobRunner& runner, MPI_Comm comm, int root, bool files_on_root, JobQueue* queue,
           Tally* tally)
      : runner_(runner),
        comm_(comm),
        root_(root),
        files_on_root_(files_on_root),
        queue_(queue),
        tally_(tally),
        thresholds_(runner.jobs().size()) {}

  std::optional<std::size_t> next_job() override {
    int next = kNoMoreJobs;
    if (queue_ != nullptr) {
      next = queue_->next();
    } else {
      send_outbox();
      MPI_Send(nullptr, 0, MPI_BYTE, root_, kRequestTag, comm_);
      MPI_Recv(&next, 1, MPI_INT, root_, kAssignTag, comm_, MPI_STATUS_IGNORE);
      if (next != kNoMoreJobs && ships_files()) {
        std::vector<std::uint8_t> input = recv_bytes(comm_, root_, kInputTag);
        const std::scoped_lock lock(mutex_);
        inputs_[static_cast<std::size_t>(next)] = std::move(input);
      }
    }
    if (next == kNoMoreJobs) return std::nullopt;
    return static_cast<std::size_t>(next);
  }
  Image load(std::size_t job, const StageContext& context) override {
    const CliJob& cli_job = runner_.jobs()[job];
    if (!ships_files()) return runner_.load(cli_job, context);
    const std::vector<std::uint8_t> input = take(inputs_, job);
    return runner_.decode_input(cli_job, input, context);
  }
  void save(std::size_t job, const OpOutput& output, const StageContext& context) override {
    const CliJob& cli_job = runner_.jobs()[job];
    if (ships_files()) {
      std::vector<std::uint8_t> encoded = runner_.encode_output(cli_job, output, context);
      const std::scoped_lock lock(mutex_);
      outputs_[job] = std::move(encoded);
    } else {
      runner_.save(cli_job, output, &context);
    }
    thresholds_[job] = output.threshold;
  }
  void finished(std::size_t job, const JobOutcome& outcome) override {
    const JobResult result = result_of(runner_, job, outcome, thresholds_[job], files_on_root_);
    if (tally_ != nullptr) {
      tally_->record(result, root_);
      return;
    }
    std::vector<std::uint8_t> output =
        ships_files() ? take(outputs_, job) : std::vector<std::uint8_t>{};
    const std::scoped_lock lock(mutex_);
    outbox_.push_back({pack(result), std::move(output)});
  }
  /// A worker's last messages: the results not sent yet, then that it has finished.
  void finish_worker() {
    send_outbox();
    MPI_Send(nullptr, 0, MPI_BYTE, root_, kDoneTag, comm_);
  }

 private:
  struct Outgoing {
    std::string result;
    std::vector<std::uint8_t> output;  ///< the encoded file, with the files on the root
  };

  /// Whether this rank gets and gives files' bytes instead of opening them: a worker, with the
  /// files on the root.
  [[nodiscard]] bool ships_files() const { return files_on_root_ && queue_ == nullptr; }

  std::vector<std::uint8_t> take(std::map<std::size_t, std::vector<std::uint8_t>>& from,
                                 std::size_t job) {
    const std::scoped_lock lock(mutex_);
    const auto it = from.find(job);
    if (it == from.end()) return {};  // a job that failed before it made any
    std::vector<std::uint8_t> bytes = std::move(it->second);
    from.erase(it);
    return bytes;
  }

  void send_outbox() {
    std::vector<Outgoing> ready;
    {
      const std::scoped_lock lock(mutex_);
      ready.swap(outbox_);
    }
    for (const Outgoing& out : ready) {
      MPI_Send(out.result.data(), static_cast<int>(out.result.size()), MPI_BYTE, root_, kResultTag,
               comm_);
      if (files_on_root_) send_bytes(comm_, root_, kOutputTag, out.output);
    }
  }

  const JobRunner& runner_;
  MPI_Comm comm_;
  int root_;
  bool files_on_root_;
  JobQueue* queue_;
  Tally* tally_;
  std::vector<std::optional<int>> thresholds_;  // each written by its own job's save
  std::mutex mutex_;                            // guards inputs_, outputs_ and outbox_
  std::map<std::size_t, std::vector<std::uint8_t>> inputs_;
  std::map<std::size_t, std::vector<std::uint8_t>> outputs_;
  std::vector<Outgoing> outbox_;
};

/// Runs this rank's share of the batch through the pipeline.
void run_rank_pipeline(const JobRunner& runner, Backend& backend, RankJobs& jobs) {
  PipelineOptions options = runner.pipeline_options();
  options.threads = backend.computes_on_host() ? backend.threads() : runner.backend().threads();
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

bool files_on_root(const BackendOptions& options, MPI_Comm comm) {
  if (options.files_on == "root") return true;
  if (options.files_on == "every-rank") return false;
  // auto: ranks that mpirun placed on one node share its file system, where shipping the files
  // through rank 0 would only load it; ranks on several nodes may not share one.
  MPI_Comm node = MPI_COMM_NULL;
  MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
  int node_size = 0;
  int world_size = 0;
  MPI_Comm_size(node, &node_size);
  MPI_Comm_size(comm, &world_size);
  MPI_Comm_free(&node);
  return node_size != world_size;
}

int run_batch(const JobRunner& runner) {
  const auto start = Clock::now();
  Comm world{MPI_COMM_WORLD};
  MPI_Comm_rank(world.comm, &world.rank);
  MPI_Comm_size(world.comm, &world.size);
  const bool on_root = files_on_root(runner.backend_options(), world.comm);
  // With the files on every rank each makes the directory (they need not share a file
  // system); a failure anywhere stops every rank.
  on_every_rank(world, [&] {
    if (!on_root || world.is_root()) runner.create_out_dir();
  });
  std::unique_ptr<Backend> own_backend;
  Backend* backend = node_backend_of(runner.backend());
  if (backend == nullptr) {
    own_backend = make_rank_local_backend(runner.backend_options());
    backend = own_backend.get();
  }

  MPI_Comm comm = MPI_COMM_NULL;
  MPI_Comm_dup(world.comm, &comm);
  int exit_code = kExitSuccess;
  if (world.is_root()) {
    JobQueue queue(runner.jobs());
    Tally tally(runner);
    const int workers = world.size - 1;
    RankJobs own_jobs(runner, comm, world.root, on_root, &queue, &tally);
    const Dispatch dispatch{runner, comm, on_root, queue, tally};
    or_abort([&] {
      if (workers > 0 && threads_may_call_mpi()) {
        // The root computes too; a second thread answers the workers meanwhile.
        std::thread dispatcher(
            [&] { or_abort([&] { serve_workers(dispatch, workers, world.root); }); });
        run_rank_pipeline(runner, *backend, own_jobs);
        dispatcher.join();
      } else if (workers > 0) {
        serve_workers(dispatch, workers, world.root);
      } else {
        run_rank_pipeline(runner, *backend, own_jobs);
      }
    });
    runner.info(batch_summary(runner.jobs().size(), tally.failed(), elapsed_ms(start), world.size));
    exit_code = tally.exit_code();
  } else {
    RankJobs jobs(runner, comm, world.root, on_root, nullptr, nullptr);
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
