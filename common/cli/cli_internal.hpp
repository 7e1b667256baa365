// Internals of the command line shared by cli.cpp (parsing, validation) and cli_jobs.cpp
// (running each input). Not installed.
#pragma once

#include <array>
#include <cstdint>
#include <exception>
#include <filesystem>
#include <iostream>
#include <memory>
#include <new>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "cli_driver.hpp"
#include "parfilter/backend.hpp"
#include "parfilter/error.hpp"
#include "parfilter/image_io.hpp"
#include "parfilter/op_set.hpp"
#include "parfilter/pipeline.hpp"
#include "parfilter/strip_pipeline.hpp"

namespace parfilter::cli_detail {

/// An option given to one step of a chain: "--2.sigma 3" or "--gaussian.sigma 3".
struct StepOption {
  std::string step;    ///< the step's 1-based position, or an op name (every step of that op)
  std::string option;  ///< without dashes: "sigma", "variant"
  std::string value;
};

/// Everything the command line sets.
struct CliArgs {
  std::string op_name;  ///< one op, or a chain "gray,gaussian,sobel"
  std::vector<std::string> files;
  std::string variant;
  /// The op parameters given (by Param), as text; flags as "true".
  std::array<std::optional<std::string>, kParamCount> params;
  std::vector<StepOption> step_options;
  bool print_threshold = false;
  int threads = 0;
  std::string platform;
  std::string device;
  bool device_only = false;
  std::string node_backend;
  std::string files_on;
  bool list_devices = false;
  int repeat = 1;
  bool timing = false;
  bool json = false;
  std::uint64_t max_image_bytes = kDefaultMaxImageBytes;
  /// Streaming (strip_pipeline.hpp): the most a job may hold before it runs in strips, and
  /// what the strips may hold; --strip-rows N forces strips of N rows.
  std::uint64_t max_memory = 0;  ///< 0: default_max_memory()
  int strip_rows = 0;
  bool quiet = false;  ///< no progress bar
  int png_level = kDefaultPngLevel;
  int jpeg_quality = kDefaultJpegQuality;
  std::string compression = "deflate";  ///< TIFF: none, lzw, deflate or packbits
  int tiff_level = kDefaultTiffLevel;   ///< TIFF Deflate's zlib level
  int depth = 0;                        ///< --depth 8 or 16; 0: the file's
  bool sync = false;
  bool list = false;
  bool help = false;  ///< per-op help: "parfilter-X OP --help"
  std::string out_dir;
  std::string format;
};

using Job = CliJob;

/// The command line parsed and validated, before any backend is created or file touched.
struct ParsedCommand {
  CliArgs args;
  OpChain chain;  // empty for --list and --list-devices
  std::vector<Job> jobs;
  std::optional<int> exit_code;  // set when --help or --version was answered on stdout
  /// The backend options given (--threads, --device, --platform, --node-backend, --files-on):
  /// checked once the backend exists, as it alone knows which it takes.
  std::vector<std::string> given_options;
};

/// Parses and validates argv (everything checkable without a backend or a file). Throws
/// UsageError. The option parser's fuzz target drives exactly this.
[[nodiscard]] ParsedCommand parse_args(int argc, const char* const* argv,
                                       const std::string& program);

/// Writes the one-line errors, timing lines and, on a terminal, the batch progress line.
class Reporter {
 public:
  Reporter(std::string program, bool show_progress)
      : program_(std::move(program)), show_progress_(show_progress) {}

  /// "<program>: <message>" as one line.
  void error(const std::string& message);
  void info(const std::string& line);
  /// Report lines: stdout ones on stdout, the others through info().
  void print(const std::vector<ReportLine>& lines);
  /// "[i/n] <input>" in place, on a terminal only.
  void progress(std::size_t done, std::size_t total, const std::filesystem::path& current);
  /// `text` in place of the progress line, on a terminal only.
  void status(const std::string& text);
  void clear_progress();

 private:
  std::string program_;
  bool show_progress_;
  bool progress_shown_ = false;
};

/// What one invocation runs: the chain (one op or several) on one backend.
struct Session {
  OpChain chain;
  const CliArgs& args;
  Backend& backend;
  Reporter& reporter;
  bool batch;
};

/// The jobs of the command line: <input> <output>, or every input into --out-dir. Throws
/// UsageError for a wrong file count, a bad --format or two inputs writing the same output.
[[nodiscard]] std::vector<Job> make_jobs(Op last_op, const CliArgs& args);

/// The chain the command line names, each step's parameters from the shared options and its
/// own ("--2.sigma", "--gaussian.sigma"); throws UsageError.
[[nodiscard]] OpChain make_chain(const CliArgs& args);

/// "parfilter-X OP --help": the op's summary, its options with their ranges and defaults.
[[nodiscard]] std::string op_help(const std::string& program, Op op,
                                  const std::vector<std::string>& variants);

// The stages of one job, as JobRunner offers them; each throws an error naming the file.
/// `alone`: the process loads this one image and nothing else meanwhile
/// (LoadOptions::map_pages_first).
[[nodiscard]] Image load_job_input(const Session& session, const Job& job,
                                   const Checkpoint& checkpoint = {},
                                   std::shared_ptr<SampleAllocator> allocator = {},
                                   bool alone = false);
[[nodiscard]] ComputedJob compute_job(const Session& session, Backend& backend, const Job& job,
                                      const Image& input);
// load_job_input and save_job_output in halves (JobRunner::read_input and the others).
[[nodiscard]] std::vector<std::uint8_t> read_job_input(const Session& session, const Job& job);
[[nodiscard]] Image decode_job_input(const Session& session, const Job& job,
                                     std::span<const std::uint8_t> bytes,
                                     const StageContext& context);
[[nodiscard]] std::vector<std::uint8_t> encode_job_output(const Session& session, const Job& job,
                                                          const OpOutput& output,
                                                          const StageContext& context);
void write_job_output(const Session& session, const Job& job, std::span<const std::uint8_t> bytes);
/// Saves with `context`'s checkpoint and parallel_for, or without a context on
/// session_threads() threads.
void save_job_output(const Session& session, const Job& job, const OpOutput& output,
                     const StageContext* context = nullptr);
/// The CPU threads a session's codecs use: the backend's own where it computes on the host
/// (so that decode, compute and encode share them), else --threads (0: every hardware thread).
[[nodiscard]] int session_threads(const Session& session);
[[nodiscard]] std::vector<StageTime> job_stage_times(double load_ms, const StageTimes& computed,
                                                     double save_ms);
[[nodiscard]] std::vector<ReportLine> job_report(const Session& session, const Job& job,
                                                 const OpOutput& output,
                                                 const std::vector<StageTime>& stages);

/// Runs `stage`; a failure that does not name `file` yet gets it as a prefix, so that each
/// error line says which file it is about. bad_alloc and foreign exceptions become
/// RuntimeError.
template <typename Stage>
auto naming_file(const std::filesystem::path& file, Stage&& stage) {
  const std::string name = file.string();
  const auto with_name = [&](const char* what) {
    const std::string message = what;
    return message.find(name) != std::string::npos ? message : name + ": " + message;
  };
  try {
    return stage();
  } catch (const UsageError& e) {
    throw UsageError(with_name(e.what()));
  } catch (const InputError& e) {
    throw InputError(with_name(e.what()));
  } catch (const std::bad_alloc&) {
    throw RuntimeError(name + ": out of memory");
  } catch (const std::exception& e) {
    throw RuntimeError(with_name(e.what()));
  }
}

/// What every load checks first: the output can be written, and is not the input.
void check_job_paths(const Session& session, const Job& job);
/// The command line's save options, with `context`'s checkpoint and parallel_for, or without a
/// context on session_threads() threads.
[[nodiscard]] SaveOptions save_options(const Session& session, const StageContext* context);

/// Runs the job in strips (strip_pipeline.hpp) when its whole-image run would need more than
/// --max-memory, or --strip-rows asks for strips, and the input and output formats stream;
/// returns false, touching nothing, for a job that runs whole. cli_streamed.cpp.
[[nodiscard]] bool run_streamed_job(const Session& session, const Job& job);
/// Its halves, as JobRunner::open_streamed and finish_streamed.
[[nodiscard]] std::optional<StreamedJob> open_streamed_job(const Session& session, const Job& job);
void finish_streamed_job(const Session& session, const Job& job, StreamedJob& streamed,
                         const OpOutput& output);

/// Checks the output path, loads, runs (args.repeat times) and saves one job, then prints the
/// threshold and timings asked for. Throws an error whose message names the file.
void run_job(const Session& session, const Job& job);

/// A failure of the backend while computing `job`, as compute_job throws it (naming the input).
[[nodiscard]] std::exception_ptr job_compute_failure(const Job& job,
                                                     const std::exception_ptr& failure);

/// The JobRunner of a session (cli_runner.cpp); run_in_turn is cli_main's own loop.
[[nodiscard]] std::unique_ptr<JobRunner> make_job_runner(const Session& session,
                                                         const std::vector<Job>& jobs,
                                                         BackendOptions options);

[[nodiscard]] std::string lower(std::string text);

}  // namespace parfilter::cli_detail
