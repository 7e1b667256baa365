// parfilter-bench-mpi, run under mpirun (scripts/bench-mpi.sh drives it):
//
//   parfilter-bench-mpi scaling [--width W --height H --threads T --repeats N --ops a,b]
//     the root generates a W x H RGB image in memory and times each op on the MPI backend:
//     end to end (barrier, run: scatter, compute, gather) and the backend's stage times
//     (median of N). One CSV line per op on stdout (rank 0):
//     op,ranks,threads,end_to_end_ms,scatter_ms,compute_ms,gather_ms
//
//   parfilter-bench-mpi images --count N --out DIR
//     writes N PNG images of uneven sizes for the batch benchmark (the ranks share the work).
//
// It measures; it does not grade. Nothing here is part of the library.
#include <mpi.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <iostream>
#include <map>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "parfilter/backends/mpi.hpp"
#include "parfilter/image_io.hpp"
#include "synthetic.hpp"

namespace parfilter {
namespace {

constexpr int kRgb = 3;
constexpr double kMsPerSecond = 1000.0;

/// The ops the scaling table can hold, by the name the script passes.
const std::map<std::string, std::pair<Op, OpParams>>& bench_ops() {
  static const std::map<std::string, std::pair<Op, OpParams>> ops = [] {
    constexpr int kLargeSe = 15;
    std::map<std::string, std::pair<Op, OpParams>> table;
    for (const Op op : kAllOps) table[std::string(op_name(op))] = {op, OpParams{}};
    OpParams large_se;
    large_se.se = {SeShape::rect, kLargeSe, kLargeSe};
    table["erode-15x15"] = {Op::erode, large_se};
    table["open-15x15"] = {Op::open, large_se};
    OpParams adaptive;
    adaptive.adaptive = true;
    table["segment-adaptive"] = {Op::segment, adaptive};
    return table;
  }();
  return ops;
}

double median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  const std::size_t mid = values.size() / 2;
  return values.size() % 2 == 1 ? values[mid] : (values[mid - 1] + values[mid]) / 2.0;
}

struct ScalingArgs {
  int width = 7680;
  int height = 4320;
  int threads = 1;
  int warmup = 1;
  int repeats = 5;
  std::vector<std::string> ops = {"gaussian", "erode-15x15", "segment-adaptive"};
};

void run_scaling(const ScalingArgs& args, int rank, int ranks) {
  const auto backend = make_mpi_backend(BackendOptions{args.threads, {}, {}});
  Image image;
  if (rank == 0) image = bench::synthetic_image(args.width, args.height, kRgb, 1);
  const ConstImageView input = rank == 0 ? std::as_const(image).view() : ConstImageView{};
  for (const std::string& name : args.ops) {
    const auto found = bench_ops().find(name);
    if (found == bench_ops().end()) throw std::invalid_argument("unknown bench op '" + name + "'");
    const auto& [op, params] = found->second;
    std::vector<double> total;
    std::vector<double> scatter;
    std::vector<double> compute;
    std::vector<double> gather;
    for (int run = 0; run < args.warmup + args.repeats; ++run) {
      StageTimes times;
      MPI_Barrier(MPI_COMM_WORLD);
      const double start = MPI_Wtime();
      (void)backend->run(op, input, params, &times);
      const double elapsed = (MPI_Wtime() - start) * kMsPerSecond;
      if (run < args.warmup) continue;
      total.push_back(elapsed);
      scatter.push_back(times.upload_ms.value_or(0.0));
      compute.push_back(times.compute_ms);
      gather.push_back(times.download_ms.value_or(0.0));
    }
    if (rank == 0) {
      std::cout << name << ',' << ranks << ',' << args.threads << ',' << median(total) << ','
                << median(scatter) << ',' << median(compute) << ',' << median(gather) << '\n'
                << std::flush;
    }
  }
}

/// Sizes from 1280x720 to 3840x2160, unevenly mixed, so that a static split would not
/// balance.
void write_images(int count, const std::filesystem::path& dir, int rank, int ranks) {
  constexpr int kSizes[][2] = {{1280, 720}, {3840, 2160}, {1920, 1080}, {2560, 1440}, {1600, 900}};
  constexpr int kSizeCount = sizeof kSizes / sizeof kSizes[0];
  std::filesystem::create_directories(dir);
  for (int i = rank; i < count; i += ranks) {
    const int* size = kSizes[(i * i + i / kSizeCount) % kSizeCount];
    save_image(bench::synthetic_image(size[0], size[1], kRgb, static_cast<std::uint32_t>(i + 1)),
               dir / ("image" + std::to_string(i) + ".png"));
  }
}

int bench_main(int argc, char** argv, int rank, int ranks) {
  CLI::App app{"parfilter-bench-mpi: the MPI backend's strong scaling and batch inputs"};
  app.require_subcommand(1);
  ScalingArgs scaling;
  CLI::App* scaling_cmd = app.add_subcommand("scaling", "time ops on a generated image");
  scaling_cmd->add_option("--width", scaling.width)->capture_default_str();
  scaling_cmd->add_option("--height", scaling.height)->capture_default_str();
  scaling_cmd->add_option("--threads", scaling.threads, "threads per rank")->capture_default_str();
  scaling_cmd->add_option("--warmup", scaling.warmup)->capture_default_str();
  scaling_cmd->add_option("--repeats", scaling.repeats)->capture_default_str();
  scaling_cmd->add_option("--ops", scaling.ops, "ops to time")->delimiter(',');
  int count = 64;
  std::string out_dir;
  CLI::App* images_cmd = app.add_subcommand("images", "write the batch benchmark's inputs");
  images_cmd->add_option("--count", count)->capture_default_str();
  images_cmd->add_option("--out", out_dir)->required();
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return rank == 0 ? app.exit(e) : 1;
  }
  if (*scaling_cmd) run_scaling(scaling, rank, ranks);
  if (*images_cmd) write_images(count, out_dir, rank, ranks);
  return 0;
}

}  // namespace
}  // namespace parfilter

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0;
  int ranks = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &ranks);
  int code = 0;
  try {
    code = parfilter::bench_main(argc, argv, rank, ranks);
  } catch (const std::exception& e) {
    std::cerr << "parfilter-bench-mpi: " << e.what() << '\n';
    MPI_Abort(MPI_COMM_WORLD, 1);  // a benchmark: no agreement protocol, just stop everyone
  }
  MPI_Finalize();
  return code;
}
