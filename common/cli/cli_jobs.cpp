// Running the command line's jobs: output checks before any load, then load, compute and save,
// each failure named after its file.
#include <algorithm>
#include <cctype>
#include <chrono>
#include <iomanip>
#include <map>
#include <new>
#include <optional>
#include <sstream>
#include <thread>

#include "cli_internal.hpp"
#include "parfilter/backend.hpp"
#include "parfilter/error.hpp"
#include "parfilter/histogram_output.hpp"

namespace parfilter::cli_detail {
namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

constexpr std::string_view kCsvFormat = "csv";
constexpr std::string_view kDefaultImageFormat = "png";
constexpr std::string_view kEraseLine = "\r\x1b[K";  // carriage return, clear to end of line

/// Writes `text` to the unbuffered stderr in one insertion, so in one write(2): with a write per
/// piece, a line written by a signal handler (parfilter-mpi's abort line, backend_mpi/main.cpp)
/// could land between a message and its newline.
void write_at_once(const std::string& text) { std::cerr << text << std::flush; }

bool is_csv(const fs::path& path) { return lower(path.extension().string()) == ".csv"; }

/// One stderr line: newlines in a message would break the one-line rule.
std::string one_line(std::string text) {
  std::replace(text.begin(), text.end(), '\n', ' ');
  std::replace(text.begin(), text.end(), '\r', ' ');
  return text;
}

/// Throws InputError when `output` cannot be written as `op`'s result: an unknown extension
/// or a directory that cannot take it. Runs before any input is loaded.
void check_job_output(Op op, const fs::path& output) {
  if (op == Op::histogram && is_csv(output)) {
    check_output_directory(output);  // CSV is valid for histogram only
    return;
  }
  if (op == Op::histogram) {
    try {
      (void)format_for_path(output);
    } catch (const InputError&) {
      throw InputError(output.string() + ": unknown output extension '" +
                       output.extension().string() +
                       "' for histogram (use .csv, .png, .bmp, .jpg, .jpeg or .tga)");
    }
  }
  check_output_path(output);
}

double median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  const std::size_t mid = values.size() / 2;
  return values.size() % 2 == 1 ? values[mid] : (values[mid - 1] + values[mid]) / 2.0;
}

std::string format_ms(double ms) {
  std::ostringstream out;
  out << std::fixed << std::setprecision(3) << ms << " ms";
  return out.str();
}

/// The batch's output extension for `input`: --format, else csv for histogram, else the
/// input's own extension when it is a save format, else png.
std::string batch_extension(Op op, const CliArgs& args, const fs::path& input) {
  if (!args.format.empty()) return args.format;
  if (op == Op::histogram) return std::string(kCsvFormat);
  try {
    (void)format_for_path(input);
    return input.extension().string().substr(1);
  } catch (const InputError&) {
    return std::string(kDefaultImageFormat);
  }
}

}  // namespace

std::string lower(std::string text) {
  std::transform(text.begin(), text.end(), text.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return text;
}

void Reporter::error(const std::string& message) {
  clear_progress();
  write_at_once(program_ + ": " + one_line(message) + '\n');
}

void Reporter::info(const std::string& line) {
  clear_progress();
  write_at_once(line + '\n');
}

void Reporter::progress(std::size_t done, std::size_t total, const fs::path& current) {
  if (!show_progress_) return;
  write_at_once(std::string(kEraseLine) + "[" + std::to_string(done + 1) + "/" +
                std::to_string(total) + "] " + current.string());
  progress_shown_ = true;
}

void Reporter::status(const std::string& text) {
  if (!show_progress_) return;
  write_at_once(std::string(kEraseLine) + text);
  progress_shown_ = true;
}

void Reporter::clear_progress() {
  if (!progress_shown_) return;
  write_at_once(std::string(kEraseLine));
  progress_shown_ = false;
}

void Reporter::print(const std::vector<ReportLine>& lines) {
  for (const ReportLine& line : lines) {
    if (line.to_stdout) {
      std::cout << line.text << '\n' << std::flush;
    } else {
      info(line.text);
    }
  }
}

int session_threads(const Session& s) {
  if (s.backend.computes_on_host()) return s.backend.threads();
  return s.args.threads > 0 ? s.args.threads
                            : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
}

void check_job_paths(const Session& s, const Job& job) {
  check_job_output(s.chain.back().op, job.output);
  std::error_code ec;
  if (fs::exists(job.output, ec) && fs::equivalent(job.input, job.output, ec)) {
    throw UsageError(job.output.string() + ": the output would overwrite its input");
  }
}

SaveOptions save_options(const Session& s, const StageContext* context) {
  SaveOptions options;
  options.png_level = s.args.png_level;
  options.jpeg_quality = s.args.jpeg_quality;
  options.tiff_compression = parse_tiff_compression(s.args.compression).value();
  options.tiff_level = s.args.tiff_level;
  options.sync = s.args.sync;
  if (context != nullptr) {
    options.parallel_for = context->parallel_for;
    options.checkpoint = context->checkpoint;
  } else {
    options.parallel_for = parallel_for_threads(session_threads(s));
  }
  return options;
}

std::vector<std::uint8_t> read_job_input(const Session& s, const Job& job) {
  check_job_paths(s, job);
  return naming_file(job.input, [&] { return read_image_file(job.input, s.args.max_image_bytes); });
}

/// The loaded image at --depth, checked against what the backend and the output take: a
/// 16-bit image refused here, before any compute, where neither can.
Image at_job_depth(const Session& s, const Job& job, Image image) {
  if (s.args.depth != 0) {
    image = convert_depth(image, depth_of_bits(s.args.depth));
  }
  for (const OpStep& step : s.chain) validate_params(step.op, step.params, image.depth());
  if (image.depth() == Depth::u8) return image;
  check_depth(s.backend, image.depth());
  if (!op_info(s.chain.back().op).traits.histogram_result && !job.output.empty()) {
    check_format_depth(format_for_path(job.output), image.depth(), job.output.string());
  }
  return image;
}

Image decode_job_input(const Session& s, const Job& job, std::span<const std::uint8_t> bytes,
                       const StageContext& context) {
  return naming_file(job.input, [&] {
    LoadOptions options;
    options.max_bytes = s.args.max_image_bytes;
    options.checkpoint = context.checkpoint;
    options.allocator = context.allocator;
    return at_job_depth(s, job, load_image_from_memory(bytes, job.input.string(), options));
  });
}

std::vector<std::uint8_t> encode_job_output(const Session& s, const Job& job,
                                            const OpOutput& output, const StageContext& context) {
  return naming_file(job.output, [&] {
    if (op_info(s.chain.back().op).traits.histogram_result) {
      // As save_histogram writes them: CSV, or the chart with the default save options.
      if (is_csv(job.output)) {
        const std::string csv = histogram_csv(output);
        return std::vector<std::uint8_t>(csv.begin(), csv.end());
      }
      return encode_image(histogram_chart(output).view(), format_for_path(job.output),
                          SaveOptions{}, job.output.string());
    }
    return encode_image(output.image, format_for_path(job.output), save_options(s, &context),
                        job.output.string());
  });
}

void write_job_output(const Session& s, const Job& job, std::span<const std::uint8_t> bytes) {
  naming_file(job.output, [&] { write_file_atomically(job.output, bytes, s.args.sync); });
}

Image load_job_input(const Session& s, const Job& job, const Checkpoint& checkpoint,
                     std::shared_ptr<SampleAllocator> allocator, bool alone) {
  check_job_paths(s, job);
  return naming_file(job.input, [&] {
    LoadOptions options;
    options.max_bytes = s.args.max_image_bytes;
    options.checkpoint = checkpoint;
    options.allocator = std::move(allocator);
    options.map_pages_first = alone;
    return at_job_depth(s, job, load_image(job.input, options));
  });
}

ComputedJob compute_job(const Session& s, Backend& backend, const Job& job, const Image& input) {
  return naming_file(job.input, [&] {
    std::vector<double> compute_ms;
    std::vector<double> upload_ms;
    std::vector<double> download_ms;
    ComputedJob result;
    for (int run = 0; run < s.args.repeat; ++run) {
      StageTimes times;
      const auto start = Clock::now();
      result.output = run_chain_on(backend, s.chain, input, &times);
      const double wall_ms = elapsed_ms(start);
      // Device backends report compute without transfers; otherwise the wall time is compute.
      compute_ms.push_back(times.compute_ms > 0.0 ? times.compute_ms : wall_ms);
      if (times.upload_ms) upload_ms.push_back(*times.upload_ms);
      if (times.download_ms) download_ms.push_back(*times.download_ms);
      // Summed over the runs: only the first one builds.
      if (times.build_ms) {
        result.times.build_ms = result.times.build_ms.value_or(0.0) + *times.build_ms;
      }
    }
    result.times.compute_ms = median(compute_ms);
    if (!upload_ms.empty()) result.times.upload_ms = median(upload_ms);
    if (!download_ms.empty()) result.times.download_ms = median(download_ms);
    return result;
  });
}

void save_job_output(const Session& s, const Job& job, const OpOutput& output,
                     const StageContext* context) {
  naming_file(job.output, [&] {
    if (op_info(s.chain.back().op).traits.histogram_result) {
      save_histogram(output, job.output);
      return;
    }
    save_image(output.image, job.output, save_options(s, context));
  });
}

std::vector<StageTime> job_stage_times(double load_ms, const StageTimes& computed, double save_ms) {
  std::vector<StageTime> stages{{"load", load_ms}};
  if (computed.build_ms) stages.push_back({"build", *computed.build_ms});
  if (computed.upload_ms) stages.push_back({"upload", *computed.upload_ms});
  stages.push_back({"compute", computed.compute_ms, true});
  if (computed.download_ms) stages.push_back({"download", *computed.download_ms});
  stages.push_back({"save", save_ms});
  return stages;
}

namespace {

/// `text` as a JSON string literal.
std::string json_string(const std::string& text) {
  std::ostringstream out;
  out << '"';
  for (const char c : text) {
    const auto byte = static_cast<unsigned char>(c);
    if (c == '"' || c == '\\') {
      out << '\\' << c;
    } else if (byte < 0x20) {
      out << "\\u" << std::hex << std::setw(4) << std::setfill('0') << static_cast<int>(byte)
          << std::dec << std::setfill(' ');
    } else {
      out << c;
    }
  }
  out << '"';
  return out.str();
}

/// Histograms (256 or 65536 bins each) as a JSON array of arrays.
template <typename Histograms>
void json_counts(std::ostream& out, const Histograms& histograms) {
  out << "[";
  for (std::size_t h = 0; h < histograms.size(); ++h) {
    out << (h == 0 ? "[" : ", [");
    for (std::size_t bin = 0; bin < histograms[h].size(); ++bin) {
      out << (bin == 0 ? "" : ", ") << histograms[h][bin];
    }
    out << "]";
  }
  out << "]";
}

/// One JSON object per job on stdout: what --timing, --print-threshold and a histogram give.
ReportLine json_report(const Session& s, const Job& job, const OpOutput& output,
                       const std::vector<StageTime>& stages) {
  std::ostringstream out;
  out << "{\"input\": " << json_string(job.input.string())
      << ", \"output\": " << json_string(job.output.string())
      << ", \"ops\": " << json_string(chain_name(s.chain));
  if (s.args.print_threshold && output.threshold) out << ", \"threshold\": " << *output.threshold;
  if (!output.histogram.empty()) {
    out << ", \"histogram\": ";
    json_counts(out, output.histogram);
  }
  if (!output.wide_histogram.empty()) {
    out << ", \"histogram\": ";
    json_counts(out, output.wide_histogram);
  }
  if (s.args.timing) {
    out << ", \"timing_ms\": {" << std::fixed << std::setprecision(3);
    for (std::size_t i = 0; i < stages.size(); ++i) {
      out << (i == 0 ? "" : ", ") << json_string(stages[i].name) << ": " << stages[i].ms;
    }
    out << "}";
    if (s.args.repeat > 1) out << ", \"runs\": " << s.args.repeat;
  }
  out << "}";
  return {true, out.str()};
}

}  // namespace

std::vector<ReportLine> job_report(const Session& s, const Job& job, const OpOutput& output,
                                   const std::vector<StageTime>& stages) {
  if (s.args.print_threshold && !output.threshold) {
    throw RuntimeError(job.input.string() + ": the backend reported no threshold");
  }
  if (s.args.json) return {json_report(s, job, output, stages)};
  std::vector<ReportLine> lines;
  if (s.args.print_threshold) {
    const std::string threshold = std::to_string(*output.threshold);
    lines.push_back({true, s.batch ? job.input.string() + ": " + threshold : threshold});
  }
  if (s.args.timing) {
    const std::string prefix = "timing: " + job.input.string() + ": ";
    const std::string runs =
        s.args.repeat > 1 ? " (median of " + std::to_string(s.args.repeat) + " runs)" : "";
    for (const StageTime& stage : stages) {
      lines.push_back(
          {false, prefix + stage.name + " " + format_ms(stage.ms) + (stage.repeated ? runs : "")});
    }
  }
  return lines;
}

void run_job(const Session& s, const Job& job) {
  if (run_streamed_job(s, job)) return;
  const auto load_start = Clock::now();
  const Image image = load_job_input(s, job, {}, s.backend.host_allocator(), /*alone=*/true);
  const double load_ms = elapsed_ms(load_start);
  // A device backend has been starting while the input loaded (start_in_background); a missing
  // device is the run's error, not this file's.
  const Availability availability = s.backend.availability();
  if (!availability.present) throw RuntimeError(availability.reason);
  const ComputedJob computed = compute_job(s, s.backend, job, image);
  const auto save_start = Clock::now();
  save_job_output(s, job, computed.output);
  const double save_ms = elapsed_ms(save_start);
  s.reporter.print(
      job_report(s, job, computed.output, job_stage_times(load_ms, computed.times, save_ms)));
}

std::exception_ptr job_compute_failure(const Job& job, const std::exception_ptr& failure) {
  try {
    naming_file(job.input, [&] { std::rethrow_exception(failure); });
  } catch (...) {
    return std::current_exception();
  }
  return failure;
}

std::vector<Job> make_jobs(Op last_op, const CliArgs& args) {
  const Op op = last_op;
  if (args.out_dir.empty()) {
    if (!args.format.empty()) throw UsageError("--format needs --out-dir");
    if (args.files.size() != 2) {
      throw UsageError("expected <input> <output> (or --out-dir DIR with inputs), got " +
                       std::to_string(args.files.size()) + " file argument(s); see --help");
    }
    return {Job{args.files[0], args.files[1]}};
  }
  if (args.files.empty()) throw UsageError("--out-dir needs at least one input");
  if (!args.format.empty()) {
    const bool csv = lower(args.format) == kCsvFormat;
    if (csv && op != Op::histogram) throw UsageError("--format csv is for histogram only");
    if (!csv) {
      try {
        (void)format_for_path(fs::path("x." + args.format));
      } catch (const InputError&) {
        throw UsageError("--format: unknown format '" + args.format +
                         "' (use png, bmp, jpg, jpeg or tga" +
                         (op == Op::histogram ? ", or csv)" : ")"));
      }
    }
  }
  std::vector<Job> jobs;
  std::map<fs::path, fs::path> input_of_output;
  for (const auto& file : args.files) {
    const fs::path input(file);
    // Not replace_extension: a stem such as "scan.v2" keeps its dot.
    const fs::path output =
        fs::path(args.out_dir) / (input.stem().string() + '.' + batch_extension(op, args, input));
    const auto [it, fresh] = input_of_output.emplace(output.lexically_normal(), input);
    if (!fresh) {
      throw UsageError("inputs '" + it->second.string() + "' and '" + file +
                       "' would both write '" + output.string() + "'");
    }
    jobs.push_back({input, output});
  }
  return jobs;
}

}  // namespace parfilter::cli_detail
