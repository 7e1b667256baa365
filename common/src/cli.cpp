// The command line of every parfilter-<backend> executable: parse, validate everything that
// can be validated before touching a file, then load, run and save each input. Every error is
// one line "parfilter-<backend>: <message>" on stderr, and exit codes follow cli.hpp.
#include "parfilter/cli.hpp"

#include <unistd.h>

#include <CLI/CLI.hpp>
#include <csignal>
#include <algorithm>
#include <filesystem>
#include <iomanip>
#include <iostream>
#include <map>
#include <new>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "cli_internal.hpp"
#include "parfilter/error.hpp"

#ifndef PARFILTER_VERSION
#define PARFILTER_VERSION "unknown"
#endif

namespace parfilter {
namespace {

using cli_detail::CliArgs;
using cli_detail::Job;
using cli_detail::Reporter;
using cli_detail::Session;

constexpr int kMaxThreads = 4096;
constexpr int kMaxRepeat = 100000;
constexpr int kListOpColumn = 11;
constexpr int kListVariantColumn = 30;

/// Options that only some ops read. Giving one to another op is a usage error: a mistake such
/// as --se with gaussian is caught instead of silently ignored.
const std::map<std::string, std::vector<Op>>& op_specific_options() {
  static const std::map<std::string, std::vector<Op>> options = {
      {"--border", {Op::gaussian, Op::sobel, Op::sharpen}},
      {"--sigma", {Op::gaussian}},
      {"--output", {Op::sobel}},
      {"--per-channel", {Op::histogram}},
      {"--se", {Op::erode, Op::dilate, Op::open, Op::close}},
      {"--iterations", {Op::erode, Op::dilate, Op::open, Op::close}},
      {"--adaptive", {Op::segment}},
      {"--window", {Op::segment}},
      {"--min-contrast", {Op::segment}},
      {"--print-threshold", {Op::otsu, Op::segment}},
  };
  return options;
}

std::string join_op_names(const std::vector<Op>& ops) {
  std::string names;
  for (Op op : ops) names += (names.empty() ? "" : ", ") + std::string(op_name(op));
  return names;
}

std::string all_op_names() { return join_op_names({kAllOps.begin(), kAllOps.end()}); }

/// Builds OpParams from the command line; throws UsageError for anything wrong with it.
OpParams make_params(Op op, const CLI::App& app, const CliArgs& args) {
  for (const auto& [option, ops] : op_specific_options()) {
    if (app.count(option) > 0 && std::find(ops.begin(), ops.end(), op) == ops.end()) {
      throw UsageError(option + " does not apply to " + std::string(op_name(op)) +
                       " (it is read by " + join_op_names(ops) + ")");
    }
  }
  for (const char* option : {"--window", "--min-contrast"}) {
    if (app.count(option) > 0 && !args.adaptive)
      throw UsageError(option + std::string(" needs --adaptive"));
  }
  if (args.threads < 0 || args.threads > kMaxThreads) {
    throw UsageError("--threads must be from 0 (every hardware thread) to " +
                     std::to_string(kMaxThreads) + ", got " + std::to_string(args.threads));
  }
  if (args.repeat < 1 || args.repeat > kMaxRepeat) {
    throw UsageError("--repeat must be from 1 to " + std::to_string(kMaxRepeat) + ", got " +
                     std::to_string(args.repeat));
  }
  if (args.max_image_bytes == 0) throw UsageError("--max-image-bytes must be at least 1");
  if (args.png_level < kMinPngLevel || args.png_level > kMaxPngLevel) {
    throw UsageError("--png-level must be from 0 to 9, got " + std::to_string(args.png_level));
  }
  if (args.jpeg_quality < kMinJpegQuality || args.jpeg_quality > kMaxJpegQuality) {
    throw UsageError("--jpeg-quality must be from 1 to 100, got " +
                     std::to_string(args.jpeg_quality));
  }

  OpParams params;
  params.variant = args.variant;
  const auto border = parse_border(args.border);
  if (!border) {
    throw UsageError("bad --border '" + args.border +
                     "' (use replicate, reflect101, constant or constant:V with V in 0..255)");
  }
  params.border = *border;
  params.sigma = args.sigma;
  const auto sobel_output = parse_sobel_output(args.sobel_output);
  if (!sobel_output) {
    throw UsageError("bad --output '" + args.sobel_output + "' (use magnitude, l1, dx or dy)");
  }
  params.sobel_output = *sobel_output;
  params.per_channel = args.per_channel;
  const auto se = parse_se(args.se);
  if (!se) {
    throw UsageError("bad --se '" + args.se +
                     "' (use rect, cross or ellipse:WxH with W and H in 1.." +
                     std::to_string(kMaxSeSize) + ")");
  }
  params.se = *se;
  params.iterations = args.iterations;
  params.adaptive = args.adaptive;
  params.window = args.window;
  params.min_contrast = args.min_contrast;
  validate_params(op, params);
  return params;
}

void print_list(Backend& backend, const std::string& program) {
  const Availability availability = backend.availability();
  std::cout << program << " " << PARFILTER_VERSION << ": device "
            << (availability.present ? "present" : "absent (" + availability.reason + ")") << ", "
            << backend.threads() << " thread(s)\n"
            << std::left << std::setw(kListOpColumn) << "op" << std::setw(kListVariantColumn)
            << "variants (default first)"
            << "what it computes\n";
  for (Op op : kAllOps) {
    std::string variants;
    for (const auto& v : backend.variants(op)) variants += (variants.empty() ? "" : ",") + v;
    std::cout << std::setw(kListOpColumn) << op_name(op) << std::setw(kListVariantColumn)
              << variants << op_summary(op) << '\n';
  }
}

std::string help_footer(const std::string& program) {
  std::string ops;
  for (Op op : kAllOps) {
    std::ostringstream line;
    line << "  " << std::left << std::setw(kListOpColumn) << op_name(op) << op_summary(op) << '\n';
    ops += line.str();
  }
  return "\nOps:\n" + ops + "\nBatch: " + program +
         " <op> [options] --out-dir DIR a.png b.png ...\n"
         "  writes DIR/<input stem>.<ext> (ext: --format, else the input's, else png; csv for\n"
         "  histogram) and goes on past failed inputs. Worker threads decode and encode while\n"
         "  the backend computes; at most --threads + 2 images are in memory at once (decoded,\n"
         "  computing or being encoded), however long the batch.\n"
         "Options an op does not read are rejected. docs/FILTERS.md specifies every op.\n"
         "Exit codes: 0 success, 1 runtime failure, 2 bad usage or bad input.";
}

void add_options(CLI::App& app, CliArgs& args) {
  app.add_option("op", args.op_name, "the op to run (see the list below, or --list)");
  app.add_option("files", args.files, "<input> <output>, or the inputs with --out-dir");
  app.add_option("--variant", args.variant, "implementation variant (see --list)");
  app.add_option("--border", args.border,
                 "replicate|reflect101|constant[:V] (gaussian, sobel, sharpen)")
      ->capture_default_str();
  app.add_option("--sigma", args.sigma, "Gaussian sigma (gaussian)")->capture_default_str();
  app.add_option("--output", args.sobel_output, "magnitude|l1|dx|dy (sobel)")
      ->capture_default_str();
  app.add_flag("--per-channel", args.per_channel, "one histogram per channel (histogram)");
  app.add_option("--se", args.se, "rect|cross|ellipse:WxH structuring element (morphology)")
      ->capture_default_str();
  app.add_option("--iterations", args.iterations, "repetitions (morphology)")
      ->capture_default_str();
  app.add_flag("--adaptive", args.adaptive, "local thresholds (segment)");
  app.add_option("--window", args.window, "odd window size (segment --adaptive)")
      ->capture_default_str();
  app.add_option("--min-contrast", args.min_contrast, "flat-window limit (segment --adaptive)")
      ->capture_default_str();
  app.add_flag("--print-threshold", args.print_threshold,
               "print the global threshold (otsu, segment)");
  app.add_option("--threads", args.threads, "CPU worker threads, 0 = all")->capture_default_str();
  app.add_option("--platform", args.platform,
                 "device backends: platform index or name substring (see --list-devices)");
  app.add_option("--device", args.device,
                 "device backends: device index or name substring (see --list-devices)");
  app.add_flag("--list-devices", args.list_devices, "list the devices this backend can use");
  app.add_option("--repeat", args.repeat, "run N times, report the median compute time")
      ->capture_default_str();
  app.add_flag("--timing", args.timing, "print load, compute and save times (ms) on stderr");
  app.add_option("--max-image-bytes", args.max_image_bytes, "refuse larger decoded images")
      ->capture_default_str();
  app.add_option("--png-level", args.png_level,
                 "PNG compression 0-9: 0 stores, 1 is fast (run-length or Huffman-only), "
                 "2-9 are zlib's levels")
      ->capture_default_str();
  app.add_option("--jpeg-quality", args.jpeg_quality, "JPEG quality 1-100 (4:2:0 chroma)")
      ->capture_default_str();
  app.add_flag("--fsync", args.sync,
               "make each output durable (fsync) before it is renamed into place");
  app.add_option("--out-dir", args.out_dir, "batch: write every input's result into DIR");
  app.add_option("--format", args.format, "batch: output extension (png, bmp, jpg, tga, csv)");
  app.add_flag("--list", args.list, "list the ops and variants of this backend");
}

}  // namespace

cli_detail::ParsedCommand cli_detail::parse_args(int argc, const char* const* argv,
                                                 const std::string& program) {
  ParsedCommand parsed;
  CliArgs& args = parsed.args;
  CLI::App app{"parfilter: one image-filter set on many parallel frameworks.", program};
  add_options(app, args);
  app.set_version_flag("--version", program + " " + PARFILTER_VERSION);
  app.footer(help_footer(program));
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() == static_cast<int>(CLI::ExitCodes::Success)) {
      parsed.exit_code = app.exit(e);
      return parsed;
    }
    throw UsageError(std::string(e.what()) + " (see --help)");
  }

  if (!args.list && !args.list_devices) {
    if (args.op_name.empty()) throw UsageError("missing the op (see --help)");
    parsed.op = parse_op(args.op_name);
    if (!parsed.op) {
      throw UsageError("unknown op '" + args.op_name + "' (ops: " + all_op_names() + ")");
    }
    parsed.params = make_params(*parsed.op, app, args);
    parsed.jobs = make_jobs(*parsed.op, args);
  }
  return parsed;
}

namespace {

int run_cli(int argc, const char* const* argv, const std::string& program, BackendFactory factory,
            const JobDriver& driver) {
  cli_detail::ParsedCommand parsed = cli_detail::parse_args(argc, argv, program);
  if (parsed.exit_code) return *parsed.exit_code;
  const CliArgs& args = parsed.args;
  const std::optional<Op> op = parsed.op;
  OpParams& params = parsed.params;
  const std::vector<Job>& jobs = parsed.jobs;

  const BackendOptions options{args.threads, args.platform, args.device};
  const std::unique_ptr<Backend> backend = factory(options);
  if (args.list_devices) {
    std::cout << backend->describe_devices();
    return kExitSuccess;
  }
  if (args.list) {
    print_list(*backend, program);
    return kExitSuccess;
  }
  const Availability availability = backend->availability();
  if (!availability.present) throw RuntimeError(availability.reason);
  params.variant = resolve_variant(*backend, *op, args.variant);  // a bad one fails up front

  const bool batch = !args.out_dir.empty();
  Reporter reporter(program, batch && isatty(STDERR_FILENO) != 0);
  const Session session{*op, params, args, *backend, reporter, batch};
  const auto runner = cli_detail::make_job_runner(session, jobs, options);
  return driver ? driver(*runner) : runner->run_in_turn();
}

}  // namespace

int cli_main(int argc, const char* const* argv, std::string_view backend_name,
             BackendFactory factory) {
  return cli_main(argc, argv, backend_name, factory, JobDriver{});
}

int cli_main(int argc, const char* const* argv, std::string_view backend_name,
             BackendFactory factory, const JobDriver& driver) {
  const std::string program = "parfilter-" + std::string(backend_name);
  Reporter reporter(program, false);
  // A write past the file-size limit (ulimit -f) raises SIGXFSZ, whose default action kills the
  // process without a word; ignored, the write fails with EFBIG and is reported like a full
  // disk, and the partial temporary file is removed.
  std::signal(SIGXFSZ, SIG_IGN);
  try {
    return run_cli(argc, argv, program, factory, driver);
  } catch (const UsageError& e) {
    reporter.error(e.what());
    return kExitBadInput;
  } catch (const InputError& e) {
    reporter.error(e.what());
    return kExitBadInput;
  } catch (const std::bad_alloc&) {
    reporter.error("out of memory");
    return kExitRuntimeFailure;
  } catch (const std::exception& e) {
    reporter.error(e.what());
    return kExitRuntimeFailure;
  } catch (...) {
    reporter.error("unknown failure");
    return kExitRuntimeFailure;
  }
}

}  // namespace parfilter
