// The command line of every parfilter-<backend> executable: parse, validate everything that
// can be validated before touching a file, then load, run and save each input. The op
// options come from the op table (op_set.hpp); an option the chosen ops, or the backend, do
// not read is an error. Every error is one line "parfilter-<backend>: <message>" on stderr,
// and exit codes follow cli.hpp.
#include "parfilter/cli.hpp"

#include <unistd.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <iomanip>
#include <iostream>
#include <new>
#include <optional>
#include <regex>
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
constexpr std::size_t kColumnGap = 2;

/// "--2.sigma", "--gaussian.sigma", "--erode.variant": an option for one step of a chain.
const std::regex& step_option_pattern() {
  static const std::regex pattern("--([a-z]+|[0-9]+)\\.([a-z-]+)");
  return pattern;
}

/// Takes the step options out of argv (CLI11 cannot declare options whose names depend on the
/// chain); a flag's value is "true", any other takes the next argument.
std::vector<std::string> take_step_options(int argc, const char* const* argv, CliArgs& args) {
  std::vector<std::string> rest;
  for (int i = 0; i < argc; ++i) {
    std::cmatch match;
    if (i == 0 || !std::regex_match(argv[i], match, step_option_pattern())) {
      rest.emplace_back(argv[i]);
      continue;
    }
    cli_detail::StepOption option{match[1].str(), match[2].str(), "true"};
    const bool flag =
        std::any_of(param_table().begin(), param_table().end(), [&](const ParamInfo& p) {
          return p.kind == ParamKind::flag && p.option == "--" + option.option;
        });
    if (!flag) {
      if (i + 1 >= argc) throw UsageError(std::string(argv[i]) + " needs a value");
      option.value = argv[++i];
    }
    args.step_options.push_back(std::move(option));
  }
  return rest;
}

std::string help_footer(const std::string& program) {
  std::ostringstream ops;
  std::size_t width = 0;
  for (const OpInfo& info : op_table()) width = std::max(width, info.name.size());
  for (const OpInfo& info : op_table()) {
    ops << "  " << std::left << std::setw(static_cast<int>(width + kColumnGap)) << info.name
        << info.summary << '\n';
  }
  return "\nOps (" + program + " OP --help: an op's options):\n" + ops.str() +
         "\nChains: " + program +
         " gray,gaussian,sobel IN OUT runs the ops in order (on a GPU backend the\n"
         "  intermediates stay on the device). An op option applies to every step that reads "
         "it;\n  --N.OPTION V (step N) or --OP.OPTION V (every OP step) gives one step its own.\n"
         "Batch: " +
         program +
         " <op> [options] --out-dir DIR a.png b.png ...\n"
         "  writes DIR/<input stem>.<ext> (ext: --format, else the input's, else png; csv for\n"
         "  histogram) and goes on past failed inputs. Worker threads decode and encode while\n"
         "  the backend computes; at most --threads + 2 images are in memory at once (decoded,\n"
         "  computing or being encoded; 2 more on a GPU backend, which keeps 3 in flight),\n"
         "  however long the batch.\n"
         "Options an op does not read are rejected. docs/FILTERS.md specifies every op.\n"
         "Exit codes: 0 success, 1 runtime failure, 2 bad usage or bad input.";
}

void add_op_options(CLI::App& app, CliArgs& args) {
  const OpParams defaults;
  for (const ParamInfo& info : param_table()) {
    const std::string option(info.option);
    const std::string help = std::string(info.help) + " (" + ops_reading(info.param) + ")";
    auto& slot = args.params[static_cast<std::size_t>(info.param)];
    if (info.kind == ParamKind::flag) {
      app.add_flag_callback(
          option, [&slot] { slot = "true"; }, help);
      continue;
    }
    app.add_option_function<std::string>(
           option, [&slot](const std::string& value) { slot = value; }, help)
        ->type_name(std::string(info.value_name))
        ->default_str(param_text(info.param, defaults));
  }
}

void add_options(CLI::App& app, CliArgs& args) {
  app.add_option("op", args.op_name, "the op to run, or a chain op1,op2,... (see below)");
  app.add_option("files", args.files, "<input> <output>, or the inputs with --out-dir");
  app.add_option("--variant", args.variant, "implementation variant (see --list)");
  add_op_options(app, args);
  app.add_flag("--print-threshold", args.print_threshold,
               "print the global threshold (otsu, segment)");
  app.add_option("--threads", args.threads,
                 "CPU threads, 0 = all (pthread, openmp, mpi: compute; every backend but serial: "
                 "codecs)")
      ->capture_default_str();
  app.add_option("--platform", args.platform,
                 "device backends: platform index or name substring (see --list-devices)");
  app.add_option("--device", args.device,
                 "device backends: device index or name substring (see --list-devices)");
  app.add_flag("--device-only", args.device_only,
               "device backends: every image of a batch on the device; by default (unless a "
               "device is named) the images decoded while the device starts (about 0.3 s for "
               "a GPU) run on the CPU cores meanwhile, and a light batch the CPU finishes "
               "sooner never starts the device");
  app.add_option("--node-backend", args.node_backend,
                 "mpi: the backend each rank computes with (serial, pthread, openmp, cuda, "
                 "opencl; default: the CPU kernels on --threads OpenMP threads)");
  app.add_option("--files-on", args.files_on,
                 "mpi: root (rank 0 alone reads and writes the files, sending their bytes or "
                 "strips: no shared file system needed), every-rank (each rank opens a batch's "
                 "files, and its own rows of one image in strips: a shared file system) or auto "
                 "(the default: every-rank when all ranks run on one node, else root)")
      ->check(CLI::IsMember({"auto", "root", "every-rank"}));
  app.add_flag("--list-devices", args.list_devices, "list the devices this backend can use");
  app.add_option("--repeat", args.repeat, "run N times, report the median compute time")
      ->capture_default_str();
  app.add_flag("--timing", args.timing,
               "print load, compute and save times (ms) on stderr (upload, download, build on "
               "device backends)");
  app.add_flag("--json", args.json,
               "print --timing, --print-threshold and histogram results as JSON lines on stdout");
  app.add_option("--max-image-bytes", args.max_image_bytes, "refuse larger decoded images")
      ->capture_default_str();
  app.add_option("--max-memory", args.max_memory,
                 "run an image in strips when its whole-image run would need more than this, "
                 "and hold at most this in them (bytes, k, m, g: 1024s; default 0: 256m, or a "
                 "quarter of ulimit -v, the cgroup's limit or the free memory if less)")
      ->transform(CLI::AsSizeValue(false));
  app.add_option("--strip-rows", args.strip_rows,
                 "run the image in strips of N output rows, whatever its size");
  app.add_flag("--quiet", args.quiet, "no progress bar for a long streamed image");
  app.add_option("--png-level", args.png_level,
                 "PNG compression 0-9: 0 stores, 1 is fast (run-length or Huffman-only), "
                 "2-9 are zlib's levels")
      ->capture_default_str();
  app.add_option("--jpeg-quality", args.jpeg_quality, "JPEG quality 1-100 (4:2:0 chroma)")
      ->capture_default_str();
  app.add_option("--compression", args.compression,
                 "TIFF compression: deflate, lzw (both with the horizontal predictor), packbits "
                 "or none")
      ->capture_default_str()
      ->check(CLI::IsMember({"none", "lzw", "deflate", "packbits"}));
  app.add_option("--tiff-level", args.tiff_level,
                 "TIFF Deflate level 1-9 (1: fastest; 6 is libtiff's and libvips's default)")
      ->capture_default_str();
  app.add_option("--depth", args.depth,
                 "convert the input to 8 or 16 bits per sample before the op (default: the "
                 "file's depth; 8 -> 16 is 257 v, 16 -> 8 rounds 255 v / 65535)")
      ->check(CLI::IsMember({8, 16}));
  app.add_flag("--fsync", args.sync,
               "make each output durable (fsync) before it is renamed into place");
  app.add_option("--out-dir", args.out_dir, "batch: write every input's result into DIR");
  app.add_option("--format", args.format,
                 "batch: output extension (png, tif, pgm, ppm, bmp, jpg, tga, csv)");
  app.add_flag("--list", args.list, "list the ops and variants of this backend");
}

void check_common_options(const CliArgs& args) {
  if (args.threads < 0 || args.threads > kMaxThreads) {
    throw UsageError("--threads must be from 0 (every hardware thread) to " +
                     std::to_string(kMaxThreads) + ", got " + std::to_string(args.threads));
  }
  if (args.repeat < 1 || args.repeat > kMaxRepeat) {
    throw UsageError("--repeat must be from 1 to " + std::to_string(kMaxRepeat) + ", got " +
                     std::to_string(args.repeat));
  }
  if (args.max_image_bytes == 0) throw UsageError("--max-image-bytes must be at least 1");
  if (args.strip_rows < 0) {
    throw UsageError("--strip-rows must be at least 1, got " + std::to_string(args.strip_rows));
  }
  if (args.png_level < kMinPngLevel || args.png_level > kMaxPngLevel) {
    throw UsageError("--png-level must be from 0 to 9, got " + std::to_string(args.png_level));
  }
  if (args.tiff_level < kMinTiffLevel || args.tiff_level > kMaxTiffLevel) {
    throw UsageError("--tiff-level must be from 1 to 9, got " + std::to_string(args.tiff_level));
  }
  if (args.jpeg_quality < kMinJpegQuality || args.jpeg_quality > kMaxJpegQuality) {
    throw UsageError("--jpeg-quality must be from 1 to 100, got " +
                     std::to_string(args.jpeg_quality));
  }
}

/// An option the backend would ignore is a mistake, as an op option the op does not read.
void check_backend_option(const Backend& backend, const std::string& option) {
  const std::string name(backend.name());
  if (option == "--threads" && !backend.takes_threads()) {
    throw UsageError("--threads does not apply to parfilter-" + name +
                     ", which runs on one thread (pthread, openmp, mpi, cuda and opencl take it)");
  }
  if ((option == "--node-backend" || option == "--files-on") &&
      !backend.takes_distribution_options()) {
    throw UsageError(option + " does not apply to parfilter-" + name +
                     ", which runs in one process (mpi takes it)");
  }
  if ((option == "--device" || option == "--platform" || option == "--device-only") &&
      !backend.takes_device()) {
    throw UsageError(option + " does not apply to parfilter-" + name +
                     ", which has no devices (cuda and opencl take it)");
  }
}

/// --list: the ops, their variants on this backend and what they compute, in columns as wide
/// as their widest entry.
void print_list(Backend& backend, const std::string& program) {
  const Availability availability = backend.availability();
  std::cout << program << " " << PARFILTER_VERSION << ": device "
            << (availability.present ? "present" : "absent (" + availability.reason + ")") << ", "
            << backend.threads() << " thread(s)\n";
  std::vector<std::string> variants;
  std::size_t op_width = std::string("op").size();
  std::size_t variant_width = std::string("variants (default first)").size();
  for (const OpInfo& info : op_table()) {
    std::string joined;
    for (const auto& v : backend.variants(info.op)) joined += (joined.empty() ? "" : ",") + v;
    op_width = std::max(op_width, info.name.size());
    variant_width = std::max(variant_width, joined.size());
    variants.push_back(std::move(joined));
  }
  const auto op_column = static_cast<int>(op_width + kColumnGap);
  const auto variant_column = static_cast<int>(variant_width + kColumnGap);
  std::cout << std::left << std::setw(op_column) << "op" << std::setw(variant_column)
            << "variants (default first)"
            << "what it computes\n";
  for (std::size_t i = 0; i < op_table().size(); ++i) {
    std::cout << std::setw(op_column) << op_table()[i].name << std::setw(variant_column)
              << variants[i] << op_table()[i].summary << '\n';
  }
}

/// "parfilter-X OP --help": CLI11 would answer --help before the op is known.
bool asks_op_help(const std::vector<std::string>& args, CliArgs& parsed) {
  const bool help = std::any_of(args.begin(), args.end(),
                                [](const std::string& a) { return a == "--help" || a == "-h"; });
  if (!help || args.size() < 2 || args[1].starts_with("-")) return false;
  const std::string& first = args[1];
  if (!parse_op(first.substr(0, first.find(',')))) return false;
  parsed.op_name = first.substr(0, first.find(','));
  parsed.help = true;
  return true;
}

}  // namespace

cli_detail::ParsedCommand cli_detail::parse_args(int argc, const char* const* argv,
                                                 const std::string& program) {
  ParsedCommand parsed;
  CliArgs& args = parsed.args;
  std::vector<std::string> rest = take_step_options(argc, argv, args);
  if (asks_op_help(rest, args)) return parsed;
  CLI::App app{"parfilter: one image-filter set on many parallel frameworks.", program};
  add_options(app, args);
  app.set_version_flag("--version", program + " " + PARFILTER_VERSION);
  app.footer(help_footer(program));
  try {
    std::reverse(rest.begin() + 1, rest.end());  // CLI11 takes them back to front
    rest.erase(rest.begin());
    app.parse(rest);
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() == static_cast<int>(CLI::ExitCodes::Success)) {
      parsed.exit_code = app.exit(e);
      return parsed;
    }
    throw UsageError(std::string(e.what()) + " (see --help)");
  }
  check_common_options(args);
  for (const char* option :
       {"--threads", "--device", "--platform", "--device-only", "--node-backend", "--files-on"}) {
    if (app.count(option) > 0) parsed.given_options.emplace_back(option);
  }
  if (!args.list && !args.list_devices) {
    if (args.op_name.empty()) throw UsageError("missing the op (see --help)");
    parsed.chain = make_chain(args);
    parsed.jobs = make_jobs(parsed.chain.back().op, args);
  }
  return parsed;
}

namespace {

/// How run_cli's caller ends: returning its exit code, or, for an executable's main, ending the
/// process itself when that saves waiting for a device's start (executable_main).
enum class Ending { return_code, end_process_early };

int run_cli(int argc, const char* const* argv, const std::string& program, BackendFactory factory,
            const JobDriver& driver, Ending ending) {
  cli_detail::ParsedCommand parsed = cli_detail::parse_args(argc, argv, program);
  if (parsed.exit_code) return *parsed.exit_code;
  const CliArgs& args = parsed.args;
  const BackendOptions options{args.threads,      args.platform, args.device,
                               args.node_backend, args.files_on, args.device_only};
  const std::unique_ptr<Backend> backend = factory(options);
  if (args.help) {
    const Op op = *parse_op(args.op_name);
    std::cout << cli_detail::op_help(program, op, backend->variants(op));
    return kExitSuccess;
  }
  for (const std::string& option : parsed.given_options) {
    check_backend_option(*backend, option);
  }
  if (args.list_devices) {
    std::cout << backend->describe_devices();
    return kExitSuccess;
  }
  if (args.list) {
    print_list(*backend, program);
    return kExitSuccess;
  }
  // A device backend's start-up (about half a second for a GPU's driver and context) runs
  // while the inputs are read, or a batch's first images run; the backend reports a missing
  // device before its first image.
  const bool batch = !args.out_dir.empty();
  if (!backend->start_in_background(batch ? StartWhen::as_the_batch_needs : StartWhen::now)) {
    const Availability availability = backend->availability();
    if (!availability.present) throw RuntimeError(availability.reason);
  }
  // A bad variant fails up front, before any file is read.
  OpChain chain = resolve_chain(*backend, std::move(parsed.chain));

  Reporter reporter(program, batch && isatty(STDERR_FILENO) != 0);
  const Session session{std::move(chain), args, *backend, reporter, batch};
  const auto runner = cli_detail::make_job_runner(session, parsed.jobs, options);
  const int exit_code = driver ? driver(*runner) : runner->run_in_turn();
  if (ending == Ending::end_process_early && backend->start_still_running()) {
    // Every output is written and closed; the device's start (a GPU driver's, begun in the
    // background) is all that is left, and waiting for it only to tear it down would cost
    // more than the batch that ran on the host meanwhile.
    std::cout.flush();
    std::cerr.flush();
    std::fflush(nullptr);
    std::_Exit(exit_code);
  }
  return exit_code;
}

/// Runs the command line and turns every failure into its one line and exit code.
int guarded_cli_main(int argc, const char* const* argv, std::string_view backend_name,
                     BackendFactory factory, const JobDriver& driver, Ending ending) {
  const std::string program = "parfilter-" + std::string(backend_name);
  Reporter reporter(program, false);
  // A write past the file-size limit (ulimit -f) raises SIGXFSZ, whose default action kills the
  // process without a word; ignored, the write fails with EFBIG and is reported like a full
  // disk, and the partial temporary file is removed.
  std::signal(SIGXFSZ, SIG_IGN);
  try {
    return run_cli(argc, argv, program, factory, driver, ending);
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

}  // namespace

int cli_main(int argc, const char* const* argv, std::string_view backend_name,
             BackendFactory factory) {
  return guarded_cli_main(argc, argv, backend_name, factory, JobDriver{}, Ending::return_code);
}

int cli_main(int argc, const char* const* argv, std::string_view backend_name,
             BackendFactory factory, const JobDriver& driver) {
  return guarded_cli_main(argc, argv, backend_name, factory, driver, Ending::return_code);
}

int executable_main(int argc, const char* const* argv, std::string_view backend_name,
                    BackendFactory factory) {
  return guarded_cli_main(argc, argv, backend_name, factory, JobDriver{},
                          Ending::end_process_early);
}

}  // namespace parfilter
