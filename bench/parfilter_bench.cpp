// parfilter-bench: every built backend on a matrix of ops, variants, image sizes, channel
// counts, SE sizes and thread counts, timed in-process through the Backend interface next to
// its peers (OpenCV on the CPU, NPP on the GPU) and the bandwidth limit (a memcpy on the same
// threads, a device-to-device copy on the GPU). Writes one CSV row per measurement and prints a
// table; scripts/bench-report.sh drives it over the full matrix (MPI under mpirun) and turns the
// CSV into results.md and charts. It measures; it does not grade.
#include <CLI/CLI.hpp>

#include <filesystem>
#include <fstream>
#include <iostream>
#include <thread>

#include "bench_hooks.hpp"
#include "bench_runner.hpp"
#include "bench_text.hpp"
#include "opencv_ops.hpp"

namespace parfilter::bench {
namespace {

std::string default_machine() {
  return first_line_with("/proc/cpuinfo", "model name", "unknown CPU") + ", " +
         std::to_string(std::thread::hardware_concurrency()) + " hardware threads";
}

/// Idle time after each contender's runs: OpenMP's and OpenCV's idle workers spin for a while
/// after a parallel region, and on a machine with few cores that takes the cores the next
/// contender needs (4 ms instead of 0.2 ms at 256x256 on a 2-core VM); 20 ms lets them sleep.
constexpr double kSettleMs = 20.0;

struct Args {
  RunnerOptions runner;
  std::string machine;
  std::string csv = "parfilter-bench.csv";
  bool append = false;
  bool no_table = false;
  bool has_opencv = false;
};

void add_options(CLI::App& app, Args& args) {
  Matrix& m = args.runner.matrix;
  TimingPlan& plan = args.runner.plan;
  app.add_option("--backends", m.backends, "backends (default: every built one but mpi)")
      ->delimiter(',');
  app.add_option("--ops", m.ops, "ops, or all (default: every op but open and close)")
      ->delimiter(',');
  // A comma-separated list whose default --help shows.
  const auto list_option = [&app](const char* name, auto& values, const char* help) {
    app.add_option(name, values, help)->delimiter(',')->capture_default_str();
  };
  list_option("--variants", m.variants, "default, all, or variant names");
  list_option("--sizes", m.sizes, "image sizes: N (square) or WxH");
  app.add_option("--depths", m.depths, "bits per sample: 8, 16")->capture_default_str();
  list_option("--channels", m.channels, "1 (gray), 3 (RGB), 4 (RGBA)");
  list_option("--se", m.se, "square SE sides for erode/dilate/open/close");
  app.add_option("--threads", m.threads, "thread counts (default: 1 and every hardware thread)")
      ->delimiter(',');
  app.add_option("--batch", m.batch, "time run_batch over N copies of each image (0: single runs)")
      ->capture_default_str();
  // The timing options may be given twice (a script's defaults, then a section's own): the
  // last one counts.
  const auto timing_option = [&app](const char* name, auto& value, const char* help) {
    app.add_option(name, value, help)
        ->capture_default_str()
        ->multi_option_policy(CLI::MultiOptionPolicy::TakeLast);
  };
  timing_option("--warmup", plan.warmup, "untimed runs first");
  timing_option("--repeats", plan.repeats, "timed runs (median, min, max)");
  timing_option("--budget-ms", plan.budget_ms,
                "fewer repeats for a case slower than this in all (0: always --repeats)");
  timing_option("--min-repeats", plan.min_repeats, "repeats at least, under the budget");
  timing_option("--settle-ms", plan.settle_ms,
                "idle time after each contender (0 for a GPU-only run: nothing spins to wait for)");
  app.add_flag("!--no-peers", args.runner.peers, "no OpenCV, no NPP");
  app.add_option("--section", args.runner.section, "a label for these rows (CSV column section)")
      ->capture_default_str();
  app.add_option("--machine", args.machine, "the machine's name in the CSV (default: its CPU)");
  app.add_option("--csv", args.csv, "CSV output")->capture_default_str();
  app.add_flag("--append", args.append, "append to the CSV (header only if it is new)");
  app.add_flag("--no-table", args.no_table, "no table on stdout");
  app.add_flag("--has-opencv", args.has_opencv,
               "exit 0 if this build has the OpenCV C++ peer, 1 if not (for scripts)");
}

int bench_main(int argc, char** argv) {
  Args args;
  args.runner.plan = {
      .warmup = 2, .repeats = 5, .budget_ms = 2000.0, .min_repeats = 3, .settle_ms = kSettleMs};
  CLI::App app{"parfilter-bench: every built backend against its peers and the bandwidth limit"};
  add_options(app, args);
  CLI11_PARSE(app, argc, argv);
  if (args.has_opencv) return opencv_description() ? 0 : 1;
  const auto& backends = args.runner.matrix.backends;
  if (std::find(backends.begin(), backends.end(), "mpi") != backends.end()) {
    args.runner.mpi = mpi_start(argc, argv);
  }
  const bool root = args.runner.mpi.rank == 0;
  if (args.machine.empty()) args.machine = default_machine();
  Results results(args.machine);
  Runner runner(args.runner, results);
  if (root) {
    std::cout << "parfilter-bench on " << args.machine << "\n  "
              << opencv_description().value_or("OpenCV: not found") << "\n";
    if (const auto copy = gpu_copy(1)) std::cout << "  GPU: " << copy->device << "\n";
    for (const auto& note : runner.notes()) std::cout << "  " << note << "\n";
  }
  runner.run();
  if (!root) return 0;
  const bool is_new = !args.append || !std::filesystem::exists(args.csv) ||
                      std::filesystem::file_size(args.csv) == 0;
  std::ofstream csv(args.csv, args.append ? std::ios::app : std::ios::trunc);
  if (is_new) Results::write_csv_header(csv);
  results.write_csv(csv);
  if (!csv) throw std::runtime_error("cannot write " + args.csv);
  if (!args.no_table) results.print_table(std::cout);
  for (const auto& note : runner.notes()) std::cerr << "parfilter-bench: " << note << "\n";
  std::cout << "\nCSV: " << args.csv << "\n";
  return 0;
}

}  // namespace
}  // namespace parfilter::bench

int main(int argc, char** argv) {
  int code = 1;
  try {
    code = parfilter::bench::bench_main(argc, argv);
  } catch (const std::exception& error) {
    std::cerr << "parfilter-bench: " << error.what() << "\n";
    parfilter::bench::mpi_abort(code);  // under mpirun: stop the other ranks too
  }
  parfilter::bench::mpi_stop();
  return code;
}
