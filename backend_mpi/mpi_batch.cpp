// A batch over the ranks: the root hands out whole images one at a time, largest file
// first, to whichever rank asks next, so that uneven sizes balance. Every rank (the root too,
// on its main thread, while a second thread answers the others) loads, computes and saves
// its images on its own; a job's failure and report lines travel to the root, which alone
// prints them, with a progress line per finished image and a summary. A failure outside any
// job (the protocol itself) aborts the MPI job: the other ranks would otherwise wait forever.
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

constexpr int kResultTag = 201;  ///< worker -> root: the previous job's result, a request
constexpr int kAssignTag = 202;  ///< root -> worker: the next job, or kNoMoreJobs
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

/// Answers every worker's requests until each has been told there is no more work.
void serve_workers(MPI_Comm comm, int workers, JobQueue& queue, Tally& tally) {
  std::string buffer;
  for (int active = workers; active > 0;) {
    int pending = 0;
    MPI_Status status;
    MPI_Iprobe(MPI_ANY_SOURCE, kResultTag, comm, &pending, &status);
    if (pending == 0) {
      std::this_thread::sleep_for(kPollInterval);
      continue;
    }
    int bytes = 0;
    MPI_Get_count(&status, MPI_BYTE, &bytes);
    buffer.resize(static_cast<std::size_t>(bytes));
    MPI_Recv(buffer.data(), bytes, MPI_BYTE, status.MPI_SOURCE, kResultTag, comm,
             MPI_STATUS_IGNORE);
    const JobResult result = unpack(buffer);
    if (result.job != kNoMoreJobs) tally.record(result, status.MPI_SOURCE);
    int next = queue.next();
    if (next == kNoMoreJobs) --active;
    MPI_Send(&next, 1, MPI_INT, status.MPI_SOURCE, kAssignTag, comm);
  }
}

// ---- every rank's side ------------------------------------------------------------------------
/// Loads, computes and saves one job on this rank alone.
JobResult run_job(const JobRunner& runner, Backend& backend, int index) {
  const CliJob& job = runner.jobs()[static_cast<std::size_t>(index)];
  JobResult result;
  result.job = index;
  try {
    const auto load_start = Clock::now();
    const Image image = runner.load(job);
    const double load_ms = elapsed_ms(load_start);
    const ComputedJob computed = runner.compute(backend, job, image.view());
    const auto save_start = Clock::now();
    runner.save(job, computed.output);
    result.lines = runner.report(
        job, computed.output, runner.stage_times(load_ms, computed.times, elapsed_ms(save_start)));
  } catch (...) {
    const std::exception_ptr failure = std::current_exception();
    result.exit_code = exit_code_for(failure);
    try {
      std::rethrow_exception(failure);
    } catch (const std::exception& e) {
      result.error = e.what();
    } catch (...) {
      result.error = job.input.string() + ": unknown failure";
    }
  }
  return result;
}

/// A worker: asks for a job (sending the previous one's result) until there are none left.
void work(MPI_Comm comm, int root, const JobRunner& runner, Backend& backend) {
  JobResult result;
  for (;;) {
    const std::string packed = pack(result);
    MPI_Send(packed.data(), static_cast<int>(packed.size()), MPI_BYTE, root, kResultTag, comm);
    int next = kNoMoreJobs;
    MPI_Recv(&next, 1, MPI_INT, root, kAssignTag, comm, MPI_STATUS_IGNORE);
    if (next == kNoMoreJobs) return;
    result = run_job(runner, backend, next);
  }
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

std::string summary(std::size_t jobs, int ranks, double ms, std::size_t failed) {
  std::ostringstream line;
  line.precision(3);
  line << std::fixed << "batch: " << jobs << " image(s) on " << ranks << " rank(s) in "
       << ms / 1000.0 << " s: " << jobs - failed << " written, " << failed << " failed";
  return line.str();
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
    or_abort([&] {
      if (workers > 0 && threads_may_call_mpi()) {
        // The root computes too; a second thread answers the workers meanwhile.
        std::thread dispatcher(
            [&] { or_abort([&] { serve_workers(comm, workers, queue, tally); }); });
        for (int job = queue.next(); job != kNoMoreJobs; job = queue.next()) {
          tally.record(run_job(runner, *backend, job), world.root);
        }
        dispatcher.join();
      } else if (workers > 0) {
        serve_workers(comm, workers, queue, tally);
      } else {
        for (int job = queue.next(); job != kNoMoreJobs; job = queue.next()) {
          tally.record(run_job(runner, *backend, job), world.root);
        }
      }
    });
    runner.info(summary(runner.jobs().size(), world.size, elapsed_ms(start), tally.failed()));
    exit_code = tally.exit_code();
  } else {
    or_abort([&] { work(comm, world.root, runner, *backend); });
  }
  MPI_Comm_free(&comm);
  MPI_Bcast(&exit_code, 1, MPI_INT, world.root, world.comm);
  return exit_code;
}

}  // namespace parfilter::mpi_detail
