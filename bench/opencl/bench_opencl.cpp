// parfilter-bench-opencl: every op on one large image with each OpenCL variant, next to a peer
// backend from the registry (OpenMP on the CPU, CUDA on an NVIDIA GPU). OpenCL and CUDA
// report kernel time (profiling events) and end-to-end time (upload, kernels, download and
// host work); a CPU peer reports its wall time. Prints markdown tables and writes a CSV; it
// measures, it does not grade. With --transfers it measures the transfers and batches against
// the bus instead (bench_transfers.hpp). scripts/bench-opencl.sh drives it.
#include <CLI/CLI.hpp>

#include <algorithm>
#include <chrono>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <map>
#include <optional>
#include <sstream>

#include "bench_transfers.hpp"
#include "parfilter/backend.hpp"
#include "parfilter/error.hpp"
#include "parfilter/image_io.hpp"
#include "synthetic.hpp"
#include "timing.hpp"

namespace parfilter::bench {
namespace {

constexpr int kDefaultWidth = 7680;  // 8K UHD
constexpr int kDefaultHeight = 4320;
constexpr int kRgba = 4;
constexpr std::string_view kOpenCl = "opencl";

struct Args {
  int width = kDefaultWidth;
  int height = kDefaultHeight;
  int channels = kRgba;
  std::string input;
  std::string write_image;  ///< write the generated image there and exit
  std::string platform;
  std::string device;
  std::vector<std::string> peers = {"openmp"};
  int threads = 0;
  TimingPlan plan;
  std::string csv = "bench-opencl.csv";
  std::vector<std::string> only;
  double max_ms = 5000.0;
  std::optional<TransferScale> transfers;
  int transfer_runs = TransferArgs{}.runs;
};

struct BenchCase {
  std::string label;
  Op op = Op::gray;
  OpParams params;
};

/// Median kernel time (when the backend reports one) and median end-to-end time.
struct Measured {
  TimingStats kernel;
  TimingStats total;
  bool has_kernel = false;
  bool single = false;  ///< its first run exceeded --max-ms: timed once, not repeated
};

std::vector<BenchCase> bench_cases() {
  const auto with = [](std::string label, Op op, auto set) {
    BenchCase c{std::move(label), op, {}};
    set(c.params);
    return c;
  };
  const auto plain = [](OpParams&) {};
  return {with("gray", Op::gray, plain),
          with("gaussian", Op::gaussian, plain),
          with("sobel", Op::sobel, plain),
          with("sharpen", Op::sharpen, plain),
          with("histogram", Op::histogram, plain),
          with("equalize", Op::equalize, plain),
          with("otsu", Op::otsu, plain),
          with("segment", Op::segment, plain),
          with("segment-adaptive", Op::segment, [](OpParams& p) { p.adaptive = true; }),
          with("erode-rect3x3", Op::erode, plain),
          with("dilate-ellipse7x7", Op::dilate,
               [](OpParams& p) {
                 p.se = {SeShape::ellipse, 7, 7};
               }),
          with("erode-rect31x31", Op::erode,
               [](OpParams& p) {
                 p.se = {SeShape::rect, 31, 31};
               }),
          with("open-cross5x5", Op::open,
               [](OpParams& p) {
                 p.se = {SeShape::cross, 5, 5};
               }),
          with("pool", Op::pool, plain)};
}

Measured measure(Backend& backend, const BenchCase& c, const std::string& variant,
                 const Image& image, const TimingPlan& plan, double max_ms) {
  OpParams params = c.params;
  params.variant = variant;
  std::vector<double> kernel_ms;
  std::vector<double> total_ms;
  bool has_kernel = false;
  bool single = false;
  const int runs = plan.warmup + plan.repeats;
  for (int run = 0; run < runs; ++run) {
    StageTimes times;
    const auto start = std::chrono::steady_clock::now();
    (void)backend.run(c.op, image.view(), params, &times);
    const double wall = elapsed_ms(start);
    has_kernel = times.upload_ms.has_value();  // device backends time their kernels
    // Too slow to repeat (image2d on PoCL, say): the first run warms up, the second is timed.
    if (run == 0 && wall > max_ms) {
      single = true;
      run = runs - 2;
      continue;
    }
    if (run < plan.warmup && !single) continue;
    kernel_ms.push_back(times.compute_ms);
    total_ms.push_back(wall);
  }
  return {summarize(kernel_ms), summarize(total_ms), has_kernel, single};
}

/// The backend `name`, or nullptr (saying why) when it is not built or has no device. The
/// OpenCL device choice goes to OpenCL only.
std::unique_ptr<Backend> create(std::string_view name, const Args& args) {
  const BackendInfo* info = find_backend(name);
  if (info == nullptr) {
    std::cerr << "bench-opencl: " << name << " skipped: not built\n";
    return nullptr;
  }
  BackendOptions options{args.threads, "", ""};
  if (name == kOpenCl) {
    options.platform = args.platform;
    options.device = args.device;
  }
  auto backend = info->create(options);
  const Availability availability = backend->availability();
  if (!availability.present) {
    std::cerr << "bench-opencl: " << name << " skipped: " << availability.reason << '\n';
    return nullptr;
  }
  return backend;
}

std::string ms(double value) {
  std::ostringstream out;
  out << std::fixed << std::setprecision(value < 10.0 ? 3 : 1) << value;
  return out.str();
}

std::string ratio(double numerator, double denominator) {
  if (denominator <= 0.0) return "-";
  std::ostringstream out;
  out << std::fixed << std::setprecision(2) << numerator / denominator;
  return out.str();
}

int run(const Args& args) {
  if (args.transfers) {
    return run_transfers({*args.transfers, args.transfer_runs,
                          BackendOptions{args.threads, args.platform, args.device}});
  }
  const Image image = args.input.empty()
                          ? bench::synthetic_image(args.width, args.height, args.channels)
                          : load_image(args.input, {});
  if (!args.write_image.empty()) {
    save_image(image, args.write_image);
    return 0;
  }
  const auto opencl = create(kOpenCl, args);
  if (!opencl) return 1;
  std::cout << "## OpenCL device\n\n```\n"
            << opencl->describe_devices() << "```\n\n"
            << "Image: " << image.width() << "x" << image.height() << ", " << image.channels()
            << " channels; median of " << args.plan.repeats << " runs after " << args.plan.warmup
            << " warm-up runs; times in ms.\n\n";
  std::map<std::string, std::unique_ptr<Backend>> peers;
  for (const std::string& name : args.peers) {
    if (auto backend = create(name, args)) peers.emplace(name, std::move(backend));
  }
  std::ofstream csv(args.csv);
  csv << "case,backend,variant,kernel_median_ms,total_median_ms,total_min_ms,total_max_ms\n";
  std::ostringstream variants_table;
  std::cout << "| case | best OpenCL variant | OpenCL kernel | OpenCL end-to-end |";
  for (const auto& [name, backend] : peers) {
    std::cout << " " << name
              << (backend->threads() > 1 ? " (" + std::to_string(backend->threads()) + " threads)"
                                         : "")
              << " | OpenCL / " << name << " |";
  }
  std::cout << "\n|---|---|---|---|";
  for (std::size_t p = 0; p < peers.size(); ++p) std::cout << "---|---|";
  std::cout << "\n";
  variants_table << "| case | variant | kernel | end-to-end |\n|---|---|---|---|\n";
  for (const BenchCase& c : bench_cases()) {
    if (!args.only.empty() &&
        std::find(args.only.begin(), args.only.end(), c.label) == args.only.end()) {
      continue;
    }
    std::optional<std::pair<std::string, Measured>> best;
    for (const std::string& variant : opencl->variants(c.op)) {
      const Measured m = measure(*opencl, c, variant, image, args.plan, args.max_ms);
      csv << c.label << ",opencl," << variant << "," << m.kernel.median_ms << ","
          << m.total.median_ms << "," << m.total.min_ms << "," << m.total.max_ms << "\n";
      variants_table << "| " << c.label << " | " << variant << " | " << ms(m.kernel.median_ms)
                     << " | " << ms(m.total.median_ms) << (m.single ? " (1 run)" : "") << " |\n";
      if (!best || m.kernel.median_ms < best->second.kernel.median_ms) best.emplace(variant, m);
    }
    std::cout << "| " << c.label << " | " << best->first << " | "
              << ms(best->second.kernel.median_ms) << " | " << ms(best->second.total.median_ms)
              << " |";
    for (const auto& [name, backend] : peers) {
      // The peer's default variant: each backend's default is its fastest general choice.
      const Measured m = measure(*backend, c, "", image, args.plan, args.max_ms);
      const double peer = m.has_kernel ? m.kernel.median_ms : m.total.median_ms;
      csv << c.label << "," << name << ",default," << (m.has_kernel ? m.kernel.median_ms : 0.0)
          << "," << m.total.median_ms << "," << m.total.min_ms << "," << m.total.max_ms << "\n";
      std::cout << " " << ms(peer) << (m.has_kernel ? " (kernel)" : "") << " | "
                << ratio(
                       m.has_kernel ? best->second.kernel.median_ms : best->second.total.median_ms,
                       peer)
                << " |";
    }
    std::cout << "\n" << std::flush;
  }
  std::cout << "\nEvery OpenCL variant:\n\n" << variants_table.str();
  return 0;
}

}  // namespace
}  // namespace parfilter::bench

int main(int argc, char** argv) {
  parfilter::bench::Args args;
  CLI::App app{"parfilter-bench-opencl: the OpenCL backend's variants against a peer backend"};
  app.add_option("--width", args.width, "generated image width")->capture_default_str();
  app.add_option("--height", args.height, "generated image height")->capture_default_str();
  app.add_option("--channels", args.channels, "generated image channels (1, 3, 4)")
      ->capture_default_str();
  app.add_option("--input", args.input, "an image file instead of the generated one");
  app.add_option("--write-image", args.write_image, "write the image there and exit");
  app.add_option("--platform", args.platform, "OpenCL platform (index or name)");
  app.add_option("--device", args.device, "OpenCL device (index or name)");
  app.add_option("--peer", args.peers, "peer backends (openmp, cuda, ...)")->capture_default_str();
  app.add_option("--threads", args.threads, "CPU peer threads, 0 = all")->capture_default_str();
  app.add_option("--warmup", args.plan.warmup, "untimed runs")->capture_default_str();
  app.add_option("--repeats", args.plan.repeats, "timed runs")->capture_default_str();
  app.add_option("--csv", args.csv, "CSV output")->capture_default_str();
  app.add_option("--only", args.only, "cases to run (labels)");
  app.add_option("--max-ms", args.max_ms, "time a variant once when its first run is slower")
      ->capture_default_str();
  const std::map<std::string, parfilter::bench::TransferScale> scales = {
      {"quick", parfilter::bench::TransferScale::quick},
      {"full", parfilter::bench::TransferScale::full},
      {"auto", parfilter::bench::TransferScale::automatic}};
  app.add_option("--transfers", args.transfers,
                 "instead of the variants: transfers and batches against the bus; quick (to "
                 "1920x1080, 4 images), full (to 7680x4320, 16 images) or auto (full on a GPU)")
      ->transform(CLI::CheckedTransformer(scales, CLI::ignore_case));
  app.add_option("--transfer-runs", args.transfer_runs, "timed runs per transfer measurement")
      ->capture_default_str();
  CLI11_PARSE(app, argc, argv);
  try {
    return parfilter::bench::run(args);
  } catch (const std::exception& e) {
    std::cerr << "bench-opencl: " << e.what() << '\n';
    return 1;
  }
}
