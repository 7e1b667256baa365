// One job in strips: the input read and the output written a band of rows at a time, so that
// an image larger than memory runs in --max-memory (strip_pipeline.hpp).
#include <chrono>
#include <iomanip>
#include <sstream>

#include "cli_internal.hpp"
#include "parfilter/error.hpp"
#include "parfilter/histogram_output.hpp"
#include "parfilter/row_stream.hpp"

namespace parfilter::cli_detail {
namespace {

/// A job shorter than this shows no progress bar.
constexpr double kProgressAfterMs = 2000.0;
constexpr double kMsPerSecond = 1000.0;
constexpr int kBarWidth = 30;
constexpr int kPercent = 100;

/// The bytes a whole-image run holds: the input, and an image per step (its result, which the
/// next step reads while it writes its own).
std::uint64_t whole_image_bytes(const OpChain& chain, const StreamShape& input) {
  std::uint64_t bytes = input.image_bytes();
  OpChain prefix;
  for (const OpStep& step : chain) {
    prefix.push_back(step);
    bytes += streamed_result_shape(prefix, input).image_bytes();
  }
  return bytes;
}

/// "[=====>     ] 41% 6561/16000 rows, 2300 rows/s, 4 s left".
std::string progress_bar(int done, int total, double elapsed_ms) {
  const double share = total > 0 ? static_cast<double>(done) / total : 1.0;
  const auto filled = static_cast<int>(share * kBarWidth);
  const double rate = elapsed_ms > 0.0 ? done * kMsPerSecond / elapsed_ms : 0.0;
  std::ostringstream line;
  line << '[' << std::string(static_cast<std::size_t>(filled), '=')
       << std::string(static_cast<std::size_t>(kBarWidth - filled), ' ') << "] "
       << static_cast<int>(share * kPercent) << "% " << done << '/' << total << " rows, "
       << std::fixed << std::setprecision(0) << rate << " rows/s";
  if (rate > 0.0) line << ", " << (total - done) / rate << " s left";
  return line.str();
}

}  // namespace

std::optional<StreamedJob> open_streamed_job(const Session& s, const Job& job) {
  if (s.args.repeat != 1) return std::nullopt;  // timing studies run whole
  check_job_paths(s, job);
  LoadOptions load;
  load.max_bytes = s.args.max_image_bytes;
  StreamedJob streamed;
  streamed.load = load;
  streamed.reader = naming_file(job.input, [&] { return open_row_reader(job.input, load); });
  if (!streamed.reader) {
    if (s.args.strip_rows > 0) {
      throw UsageError(job.input.string() +
                       ": this file's format or layout is not read in "
                       "strips (--strip-rows): PNG, TIFF, PNM, BMP and baseline JPEG are");
    }
    return std::nullopt;
  }
  if (s.args.depth != 0) {
    streamed.reader = read_at_depth(std::move(streamed.reader), depth_of_bits(s.args.depth));
  }
  const StreamShape shape = streamed.reader->shape();
  const std::uint64_t budget = s.args.max_memory != 0 ? s.args.max_memory : default_max_memory();
  if (s.args.strip_rows == 0 && whole_image_bytes(s.chain, shape) <= budget) return std::nullopt;
  for (const OpStep& step : s.chain) validate_params(step.op, step.params, shape.depth);
  if (shape.depth == Depth::u16) check_depth(s.backend, shape.depth);
  if (!op_info(s.chain.back().op).traits.histogram_result) {
    const StreamShape out_shape = streamed_result_shape(s.chain, shape);
    streamed.writer = naming_file(job.output, [&] {
      return open_row_writer(job.output, out_shape, save_options(s, nullptr));
    });
    if (!streamed.writer) {
      throw UsageError(job.output.string() +
                       ": this format is not written in strips, which an image over "
                       "--max-memory needs (write PNG, TIFF, PNM, BMP or JPEG)");
    }
  }
  StripOptions& options = streamed.options;
  options.strip_rows = s.args.strip_rows;
  options.max_memory = budget;
  options.threads = session_threads(s);
  options.parallel_for = parallel_for_threads(options.threads);
  streamed.start = StageClock::now();
  if (!s.args.quiet) {
    options.progress = [&reporter = s.reporter, start = streamed.start](int done, int total) {
      const double ms = elapsed_ms(start);
      if (ms >= kProgressAfterMs) reporter.status(progress_bar(done, total, ms));
    };
  }
  return streamed;
}

void finish_streamed_job(const Session& s, const Job& job, StreamedJob& streamed,
                         const OpOutput& output) {
  naming_file(job.output, [&] {
    if (streamed.writer) {
      streamed.writer->commit();
    } else {
      save_histogram(output, job.output);
    }
  });
  s.reporter.clear_progress();
  const std::vector<StageTime> stages{
      {"streamed (load, compute, save)", elapsed_ms(streamed.start), true}};
  s.reporter.print(job_report(s, job, output, stages));
}

bool run_streamed_job(const Session& s, const Job& job) {
  std::optional<StreamedJob> streamed = open_streamed_job(s, job);
  if (!streamed) return false;
  const Availability availability = s.backend.availability();
  if (!availability.present) throw RuntimeError(availability.reason);
  const OpOutput output = naming_file(job.input, [&] {
    return run_streamed(s.backend, s.chain, *streamed->reader, streamed->writer.get(),
                        streamed->options);
  });
  finish_streamed_job(s, job, *streamed, output);
  return true;
}

}  // namespace parfilter::cli_detail
