// The JobRunner over one invocation's session: the stages of cli_jobs.cpp, and the loop that
// runs every job in turn when the executable gives no JobDriver.
#include <chrono>
#include <exception>
#include <filesystem>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "cli_internal.hpp"
#include "parfilter/backend.hpp"
#include "parfilter/error.hpp"

namespace parfilter {
namespace cli_detail {
namespace {

/// The jobs of one invocation and their stages, for cli_main's own loop or a JobDriver.
class SessionRunner final : public JobRunner {
 public:
  SessionRunner(const Session& session, const std::vector<Job>& jobs, BackendOptions options)
      : s_(session), jobs_(jobs), options_(std::move(options)) {}

  [[nodiscard]] const std::vector<CliJob>& jobs() const override { return jobs_; }
  [[nodiscard]] bool batch() const override { return s_.batch; }
  [[nodiscard]] Backend& backend() const override { return s_.backend; }
  [[nodiscard]] const OpChain& chain() const override { return s_.chain; }
  [[nodiscard]] const BackendOptions& backend_options() const override { return options_; }

  void create_out_dir() const override {
    const std::string& dir = s_.args.out_dir;
    std::error_code ec;
    std::filesystem::create_directories(dir, ec);
    if (!std::filesystem::is_directory(dir)) {
      throw InputError(dir + ": cannot create the output directory" +
                       (ec ? " (" + ec.message() + ")" : ""));
    }
  }
  [[nodiscard]] Image load(const CliJob& job, const StageContext& context) const override {
    return load_job_input(s_, job, context.checkpoint, context.allocator);
  }
  [[nodiscard]] ComputedJob compute(Backend& backend, const CliJob& job,
                                    const Image& input) const override {
    return compute_job(s_, backend, job, input);
  }
  void save(const CliJob& job, const OpOutput& output, const StageContext* context) const override {
    save_job_output(s_, job, output, context);
  }
  [[nodiscard]] std::vector<std::uint8_t> read_input(const CliJob& job) const override {
    return read_job_input(s_, job);
  }
  [[nodiscard]] Image decode_input(const CliJob& job, std::span<const std::uint8_t> bytes,
                                   const StageContext& context) const override {
    return decode_job_input(s_, job, bytes, context);
  }
  [[nodiscard]] std::vector<std::uint8_t> encode_output(
      const CliJob& job, const OpOutput& output, const StageContext& context) const override {
    return encode_job_output(s_, job, output, context);
  }
  void write_output(const CliJob& job, std::span<const std::uint8_t> bytes) const override {
    write_job_output(s_, job, bytes);
  }
  [[nodiscard]] PipelineOptions pipeline_options() const override {
    PipelineOptions options;
    options.threads = session_threads(s_);
    options.compute_on_host = s_.backend.computes_on_host();
    return options;
  }
  [[nodiscard]] std::vector<ReportLine> report(
      const CliJob& job, const OpOutput& output,
      const std::vector<StageTime>& stages) const override {
    return job_report(s_, job, output, stages);
  }
  [[nodiscard]] std::vector<StageTime> stage_times(double load_ms, const StageTimes& computed,
                                                   double save_ms) const override {
    return job_stage_times(load_ms, computed, save_ms);
  }

  [[nodiscard]] std::optional<StreamedJob> open_streamed(const CliJob& job) const override {
    return open_streamed_job(s_, job);
  }
  void finish_streamed(const CliJob& job, StreamedJob& streamed,
                       const OpOutput& output) const override {
    finish_streamed_job(s_, job, streamed, output);
  }

  void error(const std::string& message) const override { s_.reporter.error(message); }
  void info(const std::string& line) const override { s_.reporter.info(line); }
  void print(const std::vector<ReportLine>& lines) const override { s_.reporter.print(lines); }
  void progress(std::size_t done, std::size_t total,
                const std::filesystem::path& current) const override {
    s_.reporter.progress(done, total, current);
  }
  void clear_progress() const override { s_.reporter.clear_progress(); }

  [[nodiscard]] int run_in_turn() const override {
    if (batch()) create_out_dir();
    // A batch goes through Backend::run_batch, which a device backend overlaps; --repeat (a
    // timing tool) runs each job in turn.
    if (batch() && s_.args.repeat == 1) return run_batch();
    int exit_code = kExitSuccess;
    for (std::size_t i = 0; i < jobs_.size(); ++i) {
      progress(i, jobs_.size(), jobs_[i].input);
      try {
        run_job(s_, jobs_[i]);
      } catch (...) {
        if (!s_.backend.availability().present) throw;  // no device: one line ends the run
        const std::exception_ptr failure = std::current_exception();
        error(failure_message(failure));
        exit_code = worst_exit_code(exit_code, exit_code_for(failure));
      }
    }
    clear_progress();
    return exit_code;
  }

 private:
  /// The batch through the pipeline (decode and encode workers around Backend::run_batch);
  /// each job's lines printed in input order as it finishes, then one summary line.
  [[nodiscard]] int run_batch() const {
    const auto start = Clock::now();
    BatchOfJobs batch(*this, s_, jobs_);
    run_batch_pipeline(s_.backend, s_.chain, batch, pipeline_options());
    clear_progress();
    std::string summary = batch_summary(jobs_.size(), batch.failures(), elapsed_ms(start));
    if (batch.on_host() > 0) {
      summary += " (" + std::to_string(batch.on_host()) + " on the CPU)";
    }
    info(summary);
    return batch.exit_code();
  }

  /// The command line's jobs as the pipeline sees them.
  class BatchOfJobs final : public BatchJobs {
   public:
    BatchOfJobs(const SessionRunner& runner, const Session& session, const std::vector<Job>& jobs)
        : runner_(runner), s_(session), jobs_(jobs), reported_(jobs.size()) {}

    std::optional<std::size_t> next_job() override {
      if (next_ >= jobs_.size()) return std::nullopt;
      return next_++;
    }
    Image load(std::size_t job, const StageContext& context) override {
      return load_job_input(s_, jobs_[job], context.checkpoint, context.allocator);
    }
    void save(std::size_t job, const OpOutput& output, const StageContext& context) override {
      save_job_output(s_, jobs_[job], output, &context);
      reported_[job].threshold = output.threshold;
      if (s_.args.json) reported_[job].histogram = output.histogram;
    }
    void finished(std::size_t job, const JobOutcome& outcome) override {
      runner_.progress(job, jobs_.size(), jobs_[job].input);
      if (outcome.failure) {
        const std::exception_ptr failure = outcome.failed_stage == JobStage::compute
                                               ? job_compute_failure(jobs_[job], outcome.failure)
                                               : outcome.failure;
        runner_.error(failure_message(failure));
        exit_code_ = worst_exit_code(exit_code_, exit_code_for(failure));
        ++failures_;
        return;
      }
      if (outcome.compute.on_host) ++on_host_;
      try {
        runner_.print(
            runner_.report(jobs_[job], reported_[job],
                           runner_.stage_times(outcome.load_ms, outcome.compute, outcome.save_ms)));
      } catch (...) {
        runner_.error(failure_message(std::current_exception()));
        exit_code_ = worst_exit_code(exit_code_, kExitRuntimeFailure);
      }
    }
    [[nodiscard]] std::size_t size_hint() const override { return jobs_.size(); }
    [[nodiscard]] int exit_code() const { return exit_code_; }
    [[nodiscard]] std::size_t failures() const { return failures_; }
    [[nodiscard]] std::size_t on_host() const { return on_host_; }

   private:
    const SessionRunner& runner_;
    const Session& s_;
    const std::vector<Job>& jobs_;
    /// What each job's report needs of its output (threshold, histogram for --json), each
    /// written by its own job's save; the images are gone by then.
    std::vector<OpOutput> reported_;
    std::size_t next_ = 0;
    int exit_code_ = kExitSuccess;
    std::size_t failures_ = 0;
    std::size_t on_host_ = 0;  ///< images a device backend ran on the host's cores
  };

  using Clock = std::chrono::steady_clock;

  const Session& s_;
  const std::vector<Job>& jobs_;
  BackendOptions options_;
};

}  // namespace

std::unique_ptr<JobRunner> make_job_runner(const Session& session, const std::vector<Job>& jobs,
                                           BackendOptions options) {
  return std::make_unique<SessionRunner>(session, jobs, std::move(options));
}

}  // namespace cli_detail

std::string failure_message(const std::exception_ptr& failure) {
  try {
    std::rethrow_exception(failure);
  } catch (const std::exception& e) {
    return e.what();
  } catch (...) {
    return "unknown failure";
  }
}

int exit_code_for(const std::exception_ptr& failure) {
  try {
    std::rethrow_exception(failure);
  } catch (const UsageError&) {
    return kExitBadInput;
  } catch (const InputError&) {
    return kExitBadInput;
  } catch (...) {
    return kExitRuntimeFailure;
  }
}

std::exception_ptr job_failure_naming(const std::filesystem::path& file,
                                      const std::exception_ptr& failure) {
  return cli_detail::job_compute_failure(cli_detail::Job{file, {}}, failure);
}

std::string batch_summary(std::size_t jobs, std::size_t failed, double ms, int ranks) {
  std::ostringstream line;
  line.precision(3);
  line << std::fixed << "batch: " << jobs << " image(s)";
  if (ranks > 0) line << " on " << ranks << " rank(s)";
  line << " in " << ms / 1000.0 << " s: " << jobs - failed << " written, " << failed << " failed";
  return line.str();
}

int worst_exit_code(int a, int b) {
  // A runtime failure is the more serious outcome, so it wins when both happened.
  if (a == kExitRuntimeFailure || b == kExitRuntimeFailure) return kExitRuntimeFailure;
  if (a == kExitBadInput || b == kExitBadInput) return kExitBadInput;
  return kExitSuccess;
}

}  // namespace parfilter
