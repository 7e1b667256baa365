// parfilter-bench-cpu: every op on one large image, on the serial backend and on the pthread
// and OpenMP backends at each thread count, next to OpenCV at the same thread count and a
// memcpy of the same bytes. Prints a table and writes a CSV; it measures, it does not grade.
// With --rounds N every case runs N times, the rounds interleaved (round 1 of every op, then
// round 2...), so that a slow spell of a shared machine hits every contender alike; the tables
// show each contender's best round median and the worst one.
#include <CLI/CLI.hpp>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <fstream>
#include <iostream>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "bench_report.hpp"
#include "bench_text.hpp"
#include "cpu_backend.hpp"
#include "cpu_copy.hpp"
#include "opencv_ops.hpp"
#include "parfilter/backend.hpp"
#include "parfilter/image_io.hpp"
#include "synthetic.hpp"
#include "timing.hpp"

namespace parfilter::bench {
namespace {

constexpr int kDefaultWidth = 3840;  // 4K UHD
constexpr int kDefaultHeight = 2160;
constexpr int kRgb = 3;
constexpr std::string_view kMemcpy = "memcpy";
constexpr std::string_view kSerial = "serial";
constexpr std::string_view kOpenCv = "opencv";

struct Args {
  int width = kDefaultWidth;
  int height = kDefaultHeight;
  std::string size;  ///< WxH, instead of --width and --height
  int channels = kRgb;
  std::string input;                    ///< an image file instead of the generated one
  std::vector<std::string> gray_input;  ///< ops (label parts) that get the gray of the image
  std::vector<std::string> impls = {"serial", "pthread", "openmp", "opencv"};
  int rounds = 1;
  std::vector<int> threads;
  TimingPlan plan{
      .warmup = 2, .repeats = 7, .budget_ms = 3000.0, .min_repeats = 3, .settle_ms = 20.0};
  std::string csv = "bench-cpu.csv";
  std::vector<std::string> only;
  bool all_variants = false;
};

/// One row group of the table: an op with its parameters (and a variant where it has several).
struct BenchCase {
  std::string label;
  Op op = Op::gray;
  OpParams params;
};

/// Whether `label` contains one of `parts` (an empty list matches nothing).
bool matches(const std::vector<std::string>& parts, const std::string& label) {
  return std::any_of(parts.begin(), parts.end(), [&](const std::string& part) {
    return label.find(part) != std::string::npos;
  });
}

/// The bytes an op reads and writes at least: its input once and its output once.
std::size_t bytes_moved(Op op, const Image& input) {
  if (op_info(op).traits.histogram_result) return input.size_bytes();  // no image out
  const ImageShape out = result_shape(op, {input.width(), input.height(), input.channels()});
  return input.size_bytes() + static_cast<std::size_t>(out.width) * out.height * out.channels *
                                  bytes_per_sample(input.depth());
}

/// Each op with its default variant, or with every variant (labelled op:variant).
std::vector<BenchCase> bench_cases(const Backend& serial, bool all_variants) {
  std::vector<BenchCase> cases;
  const auto add = [&](Op op, const std::string& label, OpParams params) {
    const auto variants = serial.variants(op);
    if (!all_variants || variants.size() == 1) {
      cases.push_back({label, op, params});  // the default variant
      return;
    }
    for (const std::string& variant : variants) {
      params.variant = variant;
      cases.push_back({label + ":" + variant, op, params});
    }
  };
  constexpr int kSmallSe = 3;
  constexpr int kLargeSe = 15;
  for (const Op op : kAllOps) {
    const std::string name(op_name(op));
    OpParams params;
    if (op == Op::erode || op == Op::dilate) {
      for (const int size : {kSmallSe, kLargeSe}) {
        params.se = {SeShape::rect, size, size};
        add(op, name + " " + std::to_string(size) + "x" + std::to_string(size), params);
      }
    } else if (op == Op::segment) {
      add(op, "segment global", params);
      params.adaptive = true;
      add(op, "segment adaptive", params);
    } else {
      add(op, name, params);
    }
  }
  return cases;
}

bool selected(const Args& args, const std::string& label) {
  return args.only.empty() || matches(args.only, label);
}

bool wanted(const Args& args, std::string_view impl) {
  return std::find(args.impls.begin(), args.impls.end(), impl) != args.impls.end();
}

/// A backend per thread count, created once: its worker pool starts before any timing.
struct ThreadedBackends {
  std::string name;
  std::vector<std::unique_ptr<Backend>> by_threads;  // parallel to Args::threads
};

std::optional<ThreadedBackends> make_threaded(std::string_view name, const Args& args) {
  const BackendInfo* info = find_backend(name);
  if (info == nullptr) return std::nullopt;
  ThreadedBackends result{std::string(name), {}};
  for (const int t : args.threads) result.by_threads.push_back(info->create({t, "", ""}));
  return result;
}

/// One of the contenders timed at a thread count: an implementation.
struct Contender {
  std::string impl;
  int threads;
  std::function<void()> run;
};

class Bench {
 public:
  Bench(Args args, Image input) : args_(std::move(args)), input_(std::move(input)) {}

  void run(Report& report) {
    const BackendInfo* serial_info = find_backend("serial");
    if (serial_info == nullptr) throw std::runtime_error("the serial backend is not built");
    const auto serial = serial_info->create({});
    std::vector<ThreadedBackends> threaded;
    for (const auto* name : {"pthread", "openmp"}) {
      if (!wanted(args_, name)) continue;
      if (auto backends = make_threaded(name, args_)) threaded.push_back(std::move(*backends));
    }
    if (!args_.gray_input.empty() && input_.channels() != 1) {
      gray_ = serial->run(Op::gray, input_.view(), {}).image;
    }
    for (int round = 0; round < args_.rounds; ++round) {
      bench_memcpy(report, threaded);
      for (const BenchCase& bench_case : bench_cases(*serial, args_.all_variants)) {
        if (selected(args_, bench_case.label)) bench_op(report, bench_case, *serial, threaded);
      }
    }
  }

 private:
  void bench_op(Report& report, const BenchCase& bench_case, Backend& serial,
                std::vector<ThreadedBackends>& threaded) {
    const BackgroundLoad background;
    const Image& input =
        !gray_.empty() && matches(args_.gray_input, bench_case.label) ? gray_ : input_;
    const auto run_on = [&](Backend& backend) {
      return [&] { (void)backend.run(bench_case.op, input.view(), bench_case.params); };
    };
    const OpenCvCounterpart opencv = opencv_counterpart(bench_case.op, bench_case.params, input);
    report.note_opencv(bench_case.label, opencv.calls);
    report.note_bytes(bench_case.label, bytes_moved(bench_case.op, input));
    // One group per thread count (OpenCV's thread count is global), serial in the first.
    for (std::size_t i = 0; i < args_.threads.size(); ++i) {
      const int t = args_.threads[i];
      std::vector<Contender> group;
      if (i == 0 && wanted(args_, kSerial)) group.push_back({"serial", 1, run_on(serial)});
      for (auto& backends : threaded) {
        group.push_back({backends.name, t, run_on(*backends.by_threads[i])});
      }
      if (opencv.run && wanted(args_, kOpenCv)) {
        opencv_set_threads(t);
        group.push_back({"opencv", t, opencv.run});
      }
      measure(report, bench_case.label, group);
    }
    report.note_background(bench_case.label, background.cores());
  }

  void measure(Report& report, const std::string& label, const std::vector<Contender>& group) {
    std::vector<std::function<void()>> runs;
    for (const auto& contender : group) runs.push_back(contender.run);
    const std::vector<TimingStats> stats = time_contenders(runs, args_.plan);
    for (std::size_t c = 0; c < group.size(); ++c) {
      report.add(label, group[c].impl, group[c].threads, stats[c]);
    }
  }

  void bench_memcpy(Report& report, const std::vector<ThreadedBackends>& threaded) {
    if (!selected(args_, std::string(kMemcpy))) return;
    Image copy(input_.width(), input_.height(), input_.channels());
    const BackgroundLoad background;
    for (std::size_t i = 0; i < args_.threads.size(); ++i) {
      std::vector<Contender> group;
      std::vector<std::unique_ptr<RowScheduler>> schedulers;
      if (i == 0 && wanted(args_, kSerial)) {
        group.push_back(
            {"serial", 1, [&] { std::memcpy(copy.data(), input_.data(), input_.size_bytes()); }});
      }
      for (const auto& backends : threaded) {
        if (auto scheduler = make_scheduler(backends.name, args_.threads[i])) {
          schedulers.push_back(std::move(scheduler));
          group.push_back(
              {backends.name, args_.threads[i], scheduled_copy(*schedulers.back(), input_, copy)});
        }
      }
      measure(report, std::string(kMemcpy), group);
    }
    report.note_background(std::string(kMemcpy), background.cores());
  }

  Args args_;
  Image input_;
  Image gray_;  ///< the gray of input_, for the ops of --gray-input
};

std::string load_average() {
  std::ifstream in("/proc/loadavg");
  std::string one, five, fifteen;
  in >> one >> five >> fifteen;
  return one + " " + five + " " + fifteen;
}

int run_bench(int argc, char** argv) {
  Args args;
  CLI::App app{"parfilter-bench-cpu: every op on the CPU backends and OpenCV, per thread count"};
  app.add_option("--width", args.width, "generated image width")->capture_default_str();
  app.add_option("--height", args.height, "generated image height")->capture_default_str();
  app.add_option("--size", args.size, "generated image size WxH (instead of --width, --height)");
  app.add_option("--channels", args.channels, "generated image channels: 1, 3 or 4")
      ->check(CLI::IsMember({1, kRgb, kRgb + 1}))
      ->capture_default_str();
  app.add_option("--gray-input", args.gray_input,
                 "ops (label parts) run on the gray of the image, e.g. histogram,equalize,otsu")
      ->delimiter(',');
  app.add_option("--impls", args.impls, "contenders: serial, pthread, openmp, opencv")
      ->delimiter(',')
      ->capture_default_str();
  app.add_option("--rounds", args.rounds, "interleaved rounds (tables: best and worst median)")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  app.add_option("--input", args.input, "an image file instead of the generated RGB image");
  app.add_option("--threads", args.threads, "thread counts (default 1..hardware threads)")
      ->delimiter(',');
  app.add_option("--warmup", args.plan.warmup, "untimed runs first")->capture_default_str();
  app.add_option("--repeats", args.plan.repeats, "timed runs (median reported)")
      ->capture_default_str();
  app.add_option("--budget-ms", args.plan.budget_ms,
                 "fewer repeats (at least 3) for an op slower than this over all repeats")
      ->capture_default_str();
  app.add_option("--settle-ms", args.plan.settle_ms, "idle time after each contender")
      ->capture_default_str();
  app.add_option("--csv", args.csv, "CSV output file")->capture_default_str();
  app.add_option("--only", args.only, "only ops whose label contains one of these")->delimiter(',');
  app.add_flag("--all-variants", args.all_variants, "every variant of each op, not the default");
  CLI11_PARSE(app, argc, argv);
  if (!args.size.empty()) {
    const auto x = args.size.find('x');
    if (x == std::string::npos) throw std::invalid_argument("--size wants WxH");
    args.width = std::stoi(args.size.substr(0, x));
    args.height = std::stoi(args.size.substr(x + 1));
  }
  if (args.threads.empty()) {
    const int hardware = static_cast<int>(std::max(1U, std::thread::hardware_concurrency()));
    for (int t = 1; t <= hardware; ++t) args.threads.push_back(t);
  }

  Image input = args.input.empty() ? synthetic_image(args.width, args.height, args.channels)
                                   : load_image(args.input);
  const std::size_t input_bytes = input.size_bytes();
  std::cout << "parfilter-bench-cpu: " << input.width() << "x" << input.height() << "x"
            << input.channels() << " (" << input.size_bytes() << " bytes), median of "
            << args.plan.repeats << " after " << args.plan.warmup << " warm-up run(s) (at least "
            << args.plan.min_repeats << " where " << args.plan.repeats << " would take over "
            << args.plan.budget_ms << " ms), " << args.rounds << " interleaved round(s)\n"
            << "  cpu: " << first_line_with("/proc/cpuinfo", "model name") << ", "
            << std::thread::hardware_concurrency() << " hardware threads\n"
            << "  compiler: " << __VERSION__ << "\n"
            << "  " << opencv_description().value_or("OpenCV: not found") << "\n"
            << "  load average at start: " << load_average() << "\n";
  Report report;
  Bench bench(args, std::move(input));
  bench.run(report);
  std::cout << "  load average at end: " << load_average() << "\n\n";
  report.print_table(std::cout);
  const std::string versus = wanted(args, "openmp") ? "openmp" : "pthread";
  std::cout << "\nparfilter (" << versus << ") against OpenCV"
            << (args.gray_input.empty() ? "" : " (gray input for the ops matching --gray-input)")
            << ":\n\n";
  report.print_versus(std::cout, versus, input_bytes);
  std::ofstream csv(args.csv);
  report.write_csv(csv);
  if (!csv) throw std::runtime_error("cannot write " + args.csv);
  std::cout << "\nCSV: " << args.csv << "\n";
  return 0;
}

}  // namespace
}  // namespace parfilter::bench

int main(int argc, char** argv) {
  try {
    return parfilter::bench::run_bench(argc, argv);
  } catch (const std::exception& error) {
    std::cerr << "parfilter-bench-cpu: " << error.what() << "\n";
    return 1;
  }
}
