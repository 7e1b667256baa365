// The JobRunner over one invocation's session: the stages of cli_jobs.cpp, and the loop that
// runs every job in turn when the executable gives no JobDriver.
#include <chrono>
#include <exception>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "cli_internal.hpp"
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
  [[nodiscard]] Image load(const CliJob& job) const override { return load_job_input(s_, job); }
  [[nodiscard]] ComputedJob compute(Backend& backend, const CliJob& job,
                                    const ConstImageView& input) const override {
    return compute_job(s_, backend, job, input);
  }
  void save(const CliJob& job, const OpOutput& output) const override {
    save_job_output(s_, job, output);
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
        const std::exception_ptr failure = std::current_exception();
        error(failure_message(failure));
        exit_code = worst_exit_code(exit_code, exit_code_for(failure));
      }
    }
    clear_progress();
    return exit_code;
  }

 private:
  /// The batch through Backend::run_batch: each job loaded when the backend asks for it,
  /// computed once, then saved and reported, in input order.
  [[nodiscard]] int run_batch() const {
    int exit_code = kExitSuccess;
    const auto fail = [&](const std::exception_ptr& failure) {
      error(failure_message(failure));
      exit_code = worst_exit_code(exit_code, exit_code_for(failure));
    };
    std::vector<double> load_ms(jobs_.size(), 0.0);
    BatchCallbacks callbacks;
    callbacks.load = [&](std::size_t i) -> std::optional<Image> {
      progress(i, jobs_.size(), jobs_[i].input);
      try {
        const auto start = Clock::now();
        Image image = load(jobs_[i]);
        load_ms[i] = ms_since(start);
        return image;
      } catch (...) {
        fail(std::current_exception());
        return std::nullopt;
      }
    };
    callbacks.done = [&](std::size_t i, OpOutput&& output, const StageTimes& times) {
      try {
        const auto start = Clock::now();
        save(jobs_[i], output);
        const double save_ms = ms_since(start);
        print(report(jobs_[i], output, stage_times(load_ms[i], times, save_ms)));
      } catch (...) {
        fail(std::current_exception());
      }
    };
    callbacks.failed = [&](std::size_t i, const std::exception_ptr& failure) {
      fail(job_compute_failure(jobs_[i], failure));
    };
    s_.backend.run_batch(s_.op, s_.params, jobs_.size(), callbacks);
    clear_progress();
    return exit_code;
  }

  using Clock = std::chrono::steady_clock;
  static double ms_since(Clock::time_point start) {
    return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
  }

  static std::string failure_message(const std::exception_ptr& failure) {
    try {
      std::rethrow_exception(failure);
    } catch (const std::exception& e) {
      return e.what();
    } catch (...) {
      return "unknown failure";
    }
  }

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

int worst_exit_code(int a, int b) {
  // A runtime failure is the more serious outcome, so it wins when both happened.
  if (a == kExitRuntimeFailure || b == kExitRuntimeFailure) return kExitRuntimeFailure;
  if (a == kExitBadInput || b == kExitBadInput) return kExitBadInput;
  return kExitSuccess;
}

}  // namespace parfilter
