// The seam for an executable that runs the shared command line's jobs its own way
// (parfilter-mpi: rank 0 alone loads and saves while every rank computes, and a batch's
// images are spread over the ranks). cli_main parses and validates the command line and
// creates the backend exactly as for every executable, then hands the jobs to the driver,
// which runs each job's stages (JobRunner) where and when it likes.
#pragma once

#include <cstddef>
#include <cstdint>
#include <exception>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "parfilter/backend.hpp"
#include "parfilter/cli.hpp"
#include "parfilter/image.hpp"
#include "parfilter/op_set.hpp"
#include "parfilter/pipeline.hpp"
#include "parfilter/row_stream.hpp"
#include "parfilter/strip_pipeline.hpp"

namespace parfilter {

/// One input and the path its result goes to.
struct CliJob {
  std::filesystem::path input;
  std::filesystem::path output;
};

/// An op's output with the stage times of its --repeat runs (medians; build time summed).
struct ComputedJob {
  OpOutput output;
  StageTimes times;
};

/// One line of --timing: "<name> <ms> ms", with "(median of N runs)" when `repeated`.
struct StageTime {
  std::string name;
  double ms = 0.0;
  bool repeated = false;
};

/// A job run in strips (strip_pipeline.hpp): its input's reader, its output's writer (null
/// for a histogram), and the run's options, the budget and strips already chosen.
struct StreamedJob {
  std::unique_ptr<RowReader> reader;
  std::unique_ptr<RowWriter> writer;
  /// What `reader` was opened with, for another process that opens the input too (an MPI rank
  /// reading its own rows).
  LoadOptions load;
  StripOptions options;
  StageClock::time_point start;
};

/// One line a job reports: the threshold (--print-threshold, stdout) or a timing (stderr).
struct ReportLine {
  bool to_stdout = false;
  std::string text;
};

/// The command's jobs, and the stages of running one as cli_main runs them in turn. A stage
/// throws an error that names its file; exit_code_for gives the exit code it stands for.
class JobRunner {
 public:
  JobRunner() = default;
  JobRunner(const JobRunner&) = delete;
  JobRunner& operator=(const JobRunner&) = delete;
  virtual ~JobRunner() = default;

  [[nodiscard]] virtual const std::vector<CliJob>& jobs() const = 0;
  /// Whether the jobs are a batch (--out-dir), whose directory create_out_dir makes.
  [[nodiscard]] virtual bool batch() const = 0;
  [[nodiscard]] virtual Backend& backend() const = 0;
  /// The ops to run (one, or a chain), each step's variant resolved.
  [[nodiscard]] virtual const OpChain& chain() const = 0;
  /// The options the backend was made with, for a driver that makes another one.
  [[nodiscard]] virtual const BackendOptions& backend_options() const = 0;

  /// Creates the batch's output directory; InputError when it cannot.
  virtual void create_out_dir() const = 0;
  /// Checks the output path (nothing is loaded for a job that cannot be written), then
  /// loads the input, pausing at the context's checkpoint now and then, into its allocator.
  [[nodiscard]] virtual Image load(const CliJob& job, const StageContext& context) const = 0;
  /// Runs the op --repeat times on `backend` with `input`.
  [[nodiscard]] virtual ComputedJob compute(Backend& backend, const CliJob& job,
                                            const Image& input) const = 0;
  /// Writes the result (atomically: a failure leaves no partial file), inside a pipeline's
  /// `context`, or with nullptr on the session's own threads.
  virtual void save(const CliJob& job, const OpOutput& output,
                    const StageContext* context) const = 0;
  /// load() in two halves, for a driver whose processes share no file system (parfilter-mpi
  /// --files-on root): read_input checks the output path and returns the input file's bytes,
  /// where the files are; decode_input decodes them anywhere. Errors as load()'s.
  [[nodiscard]] virtual std::vector<std::uint8_t> read_input(const CliJob& job) const = 0;
  [[nodiscard]] virtual Image decode_input(const CliJob& job, std::span<const std::uint8_t> bytes,
                                           const StageContext& context) const = 0;
  /// save() in two halves: encode_output gives the bytes save() would write (an image in the
  /// output's format, a histogram's CSV or chart), anywhere; write_output writes them
  /// atomically, where the files are. Errors as save()'s.
  [[nodiscard]] virtual std::vector<std::uint8_t> encode_output(
      const CliJob& job, const OpOutput& output, const StageContext& context) const = 0;
  virtual void write_output(const CliJob& job, std::span<const std::uint8_t> bytes) const = 0;
  /// The job in strips, its reader and writer open, where it should run so: its whole-image
  /// run would need more than --max-memory, or --strip-rows asks for strips. nullopt, nothing
  /// touched, for a job that runs whole. Errors as load()'s.
  [[nodiscard]] virtual std::optional<StreamedJob> open_streamed(const CliJob& job) const = 0;
  /// After run_streamed: commits the output (or saves the histogram) and prints the report.
  virtual void finish_streamed(const CliJob& job, StreamedJob& streamed,
                               const OpOutput& output) const = 0;
  /// The batch pipeline's settings for this session (its threads, whether compute pauses it).
  [[nodiscard]] virtual PipelineOptions pipeline_options() const = 0;
  /// The job's --print-threshold and --timing lines, the timings from `stages` in order.
  [[nodiscard]] virtual std::vector<ReportLine> report(
      const CliJob& job, const OpOutput& output, const std::vector<StageTime>& stages) const = 0;
  /// The stages cli_main times: load, then `computed`'s build, upload, compute, download,
  /// then save.
  [[nodiscard]] virtual std::vector<StageTime> stage_times(double load_ms,
                                                           const StageTimes& computed,
                                                           double save_ms) const = 0;

  /// "<program>: <message>" as one line on stderr.
  virtual void error(const std::string& message) const = 0;
  /// A plain line on stderr.
  virtual void info(const std::string& line) const = 0;
  virtual void print(const std::vector<ReportLine>& lines) const = 0;
  /// "[i/n] <input>" in place, on a terminal and in a batch only.
  virtual void progress(std::size_t done, std::size_t total,
                        const std::filesystem::path& current) const = 0;
  virtual void clear_progress() const = 0;

  /// Runs every job in turn in this process and returns the exit code: what cli_main does
  /// without a driver.
  [[nodiscard]] virtual int run_in_turn() const = 0;
};

/// Runs the jobs and returns the exit code.
using JobDriver = std::function<int(const JobRunner& runner)>;

/// cli_main with the jobs run by `driver`. Everything before the jobs (parsing, --help,
/// --list, the backend's creation and availability) is as for every executable.
int cli_main(int argc, const char* const* argv, std::string_view backend_name,
             BackendFactory factory, const JobDriver& driver);

/// A failure's message, as its one error line says it ("unknown failure" for a foreign one).
[[nodiscard]] std::string failure_message(const std::exception_ptr& failure);

/// The exit code a failure stands for: kExitBadInput for UsageError and InputError,
/// kExitRuntimeFailure for anything else.
[[nodiscard]] int exit_code_for(const std::exception_ptr& failure);

/// `failure` with "<file>: " in front unless its message names the file already.
[[nodiscard]] std::exception_ptr job_failure_naming(const std::filesystem::path& file,
                                                    const std::exception_ptr& failure);

/// The exit code of several jobs: a runtime failure wins over bad input, which wins over
/// success.
[[nodiscard]] int worst_exit_code(int a, int b);

/// The line every executable ends a batch with: "batch: N image(s) [on R rank(s)] in S s:
/// W written, F failed" (ranks 0: not said).
[[nodiscard]] std::string batch_summary(std::size_t jobs, std::size_t failed, double ms,
                                        int ranks = 0);

}  // namespace parfilter
