#include "bench_runner.hpp"

#include <unistd.h>
#include <algorithm>
#include <iomanip>
#include <iostream>
#include <stdexcept>

#include "opencv_ops.hpp"
#include "synthetic.hpp"

namespace parfilter::bench {
namespace {

/// The median of `values` (not empty).
double median_of(std::vector<double> values) { return summarize(std::move(values)).median_ms; }

/// The StageTimes of every run of one contender (a batch's are summed over its images).
struct Samples {
  std::vector<StageTimes> runs;
  double output_bytes = 0.0;
};

}  // namespace

struct Runner::Contender {
  std::string backend;
  std::string variant;
  int threads = 1;
  std::function<void()> run;
  std::shared_ptr<Samples> samples = std::make_shared<Samples>();
  bool device_timed = false;  ///< StageTimes carry compute/upload/download apart
};

Runner::Runner(RunnerOptions options, Results& results)
    : options_(std::move(options)),
      results_(results),
      limits_(options_.plan, options_.section, results) {
  Matrix& m = options_.matrix;
  if (m.threads.empty()) {
    m.threads = {1};
    const int hardware = static_cast<int>(std::max(1L, sysconf(_SC_NPROCESSORS_ONLN)));
    if (hardware > 1) m.threads.push_back(hardware);
  }
  std::vector<std::string> names = m.backends;
  if (names.empty()) {
    for (const BackendInfo& info : registered_backends()) {
      // The MPI backend needs MPI_Init and mpirun: only when asked for by name.
      if (info.name != "mpi") names.emplace_back(info.name);
    }
  }
  for (const std::string& name : names) {
    const BackendInfo* info = find_backend(name);
    if (info == nullptr) {
      notes_.push_back(name + ": not built in this build");
      continue;
    }
    if (name == "mpi" && !options_.mpi.active) {
      notes_.push_back("mpi: needs MPI (run it under mpirun with --backends mpi alone)");
      continue;
    }
    BackendSet set{name, info->threaded, {}};
    const std::size_t count = info->threaded ? m.threads.size() : 1;
    for (std::size_t i = 0; i < count; ++i) {
      set.by_threads.push_back(info->create({info->threaded ? m.threads[i] : 1, "", ""}));
    }
    const Availability available = set.by_threads.front()->availability();
    if (!available.present) {
      notes_.push_back(name + ": not available here (" + available.reason + ")");
      continue;
    }
    backends_.push_back(std::move(set));
  }
  if (options_.mpi.active) {
    if (backends_.size() != 1 || backends_.front().name != "mpi") {
      throw std::invalid_argument("under MPI, run the mpi backend alone (--backends mpi)");
    }
    options_.peers = false;
    options_.plan.budget_ms = 0.0;  // every rank must make the same number of runs
  }
  if (options_.peers) {
    if (!opencv_description()) {
      notes_.emplace_back("OpenCV: not found (no C++ library in this build)");
    }
    const std::string npp = gpu_peer_missing();
    if (!npp.empty()) notes_.push_back(npp);
  }
}

void Runner::progress(const std::string& what) {
  if (!reports()) return;
  ++done_;
  // "[ 7/66]": the count as wide as the total, so that the lines align.
  const auto width = static_cast<int>(std::to_string(total_).size());
  std::cerr << "[" << std::setw(width) << done_ << "/" << total_ << "] " << what << std::endl;
}

ResultRow Runner::row_for(const Case& c, const std::string& backend, int threads) const {
  ResultRow row;
  row.section = options_.section;
  row.backend = backend;
  row.op = std::string(op_name(c.op));
  row.width = c.size.width;
  row.height = c.size.height;
  row.channels = c.channels;
  row.depth = bits_of(c.depth);
  row.se = c.se;
  row.threads = threads;
  row.ranks = options_.mpi.active ? options_.mpi.size : 1;
  row.batch = options_.matrix.batch;
  return row;
}

void Runner::run() {
  const std::vector<Case> cases = expand_cases(options_.matrix);
  total_ = static_cast<int>(cases.size() * options_.matrix.threads.size());
  std::size_t first = 0;
  while (first < cases.size()) {
    // The cases of one image: same size and channel count, consecutive.
    std::size_t last = first;
    while (last < cases.size() && cases[last].size.width == cases[first].size.width &&
           cases[last].size.height == cases[first].size.height &&
           cases[last].channels == cases[first].channels &&
           cases[last].depth == cases[first].depth) {
      ++last;
    }
    const Case& head = cases[first];
    const Image image = head.depth == Depth::u8
                            ? synthetic_image(head.size.width, head.size.height, head.channels)
                            : synthetic_image_16(head.size.width, head.size.height, head.channels);
    for (std::size_t i = first; i < last; ++i) {
      for (std::size_t t = 0; t < options_.matrix.threads.size(); ++t) {
        run_case(cases[i], image, t);
      }
    }
    if (options_.peers) {
      add_device_peers(image, {cases.begin() + static_cast<std::ptrdiff_t>(first),
                               cases.begin() + static_cast<std::ptrdiff_t>(last)});
    }
    first = last;
  }
}

namespace {

/// The variants of `op` that `backend` runs for the matrix's --variants.
std::vector<std::string> variants_for(const Backend& backend, Op op,
                                      const std::vector<std::string>& wanted) {
  const std::vector<std::string> all = backend.variants(op);
  if (std::find(wanted.begin(), wanted.end(), "all") != wanted.end()) return all;
  std::vector<std::string> chosen;
  for (const std::string& name : wanted) {
    const std::string resolved = name == "default" ? all.front() : name;
    if (std::find(all.begin(), all.end(), resolved) != all.end() &&
        std::find(chosen.begin(), chosen.end(), resolved) == chosen.end()) {
      chosen.push_back(resolved);
    }
  }
  return chosen;
}

}  // namespace

std::vector<Runner::Contender> Runner::contenders(const Case& c, const Image& image,
                                                  std::size_t thread_index) {
  const int threads = options_.matrix.threads[thread_index];
  const int batch = options_.matrix.batch;
  std::vector<Contender> list;
  for (BackendSet& set : backends_) {
    if (!set.threaded && thread_index != 0) continue;  // one thread count only
    Backend& backend = *set.by_threads[set.threaded ? thread_index : 0];
    for (const std::string& variant : variants_for(backend, c.op, options_.matrix.variants)) {
      Contender contender{set.name, variant, backend.threads(), {}};
      OpParams params = c.params;
      params.variant = variant;
      auto samples = contender.samples;
      contender.device_timed = set.name == "cuda" || set.name == "opencl" || set.name == "mpi";
      if (batch > 0) {
        contender.run = [&backend, &image, samples, params, batch, op = c.op] {
          StageTimes sum;
          BatchCallbacks callbacks;
          // Each input a fresh copy, as a batch that loads its images hands them over.
          callbacks.next =
              indexed_inputs(static_cast<std::size_t>(batch),
                             [&image](std::size_t) -> std::optional<Image> { return image; });
          callbacks.done = [&sum, samples](std::size_t, OpOutput&& out, const StageTimes& t) {
            sum.compute_ms += t.compute_ms;
            sum.upload_ms = sum.upload_ms.value_or(0.0) + t.upload_ms.value_or(0.0);
            sum.download_ms = sum.download_ms.value_or(0.0) + t.download_ms.value_or(0.0);
            samples->output_bytes = static_cast<double>(out.image.size_bytes());
          };
          callbacks.failed = [](std::size_t, const std::exception_ptr& e) {
            std::rethrow_exception(e);
          };
          backend.run_batch(OpChain{{op, params}}, callbacks);
          samples->runs.push_back(sum);
        };
      } else {
        contender.run = [&backend, &image, samples, params, op = c.op] {
          StageTimes times;
          const OpOutput out = run_chain_on(backend, OpChain{{op, params}}, image, &times);
          samples->runs.push_back(times);
          samples->output_bytes = static_cast<double>(out.image.size_bytes());
        };
      }
      list.push_back(std::move(contender));
    }
  }
  // OpenCV's counterparts here take 8-bit images (bench/peers_cv2.py times its 16-bit ops).
  if (options_.peers && batch == 0 && c.depth == Depth::u8) {
    OpenCvCounterpart opencv;
    try {
      opencv = opencv_counterpart(c.op, c.params, image);
    } catch (const std::exception& e) {
      notes_.push_back(std::string("OpenCV failed on ") + std::string(op_name(c.op)) + ": " +
                       e.what());
    }
    if (opencv.run) {
      Contender contender{"opencv", opencv.calls, threads, {}};
      contender.run = [threads, run = opencv.run] {
        opencv_set_threads(threads);  // global in OpenCV: set before each of its runs
        run();
      };
      list.push_back(std::move(contender));
    }
  }
  return list;
}

void Runner::run_case(const Case& c, const Image& image, std::size_t thread_index) {
  std::vector<Contender> list = contenders(c, image, thread_index);
  const int threads = options_.matrix.threads[thread_index];
  std::string names;
  for (const Contender& k : list) {
    if (names.find(k.backend) == std::string::npos) names += " " + k.backend;
  }
  progress(std::string(op_name(c.op)) +
           (c.se > 0 ? " " + std::to_string(c.se) + "x" + std::to_string(c.se) : "") + " " +
           std::to_string(c.size.width) + "x" + std::to_string(c.size.height) + "x" +
           std::to_string(c.channels) + " threads " + std::to_string(threads) + ":" + names);
  // A first, untimed run of each: a failing contender is reported and left out (on every MPI
  // rank alike: the MPI backend throws on all of them), and it is the first warm-up run
  // (OpenCL builds its programs here).
  std::vector<Contender> working;
  for (Contender& k : list) {
    try {
      k.run();
      k.samples->runs.clear();
      working.push_back(std::move(k));
    } catch (const std::exception& e) {
      notes_.push_back(k.backend + " " + k.variant + " failed on " + std::string(op_name(c.op)) +
                       ": " + e.what());
    }
  }
  if (working.empty()) return;
  TimingPlan plan = options_.plan;
  plan.warmup = std::max(0, plan.warmup - 1);
  std::vector<std::function<void()>> runs;
  for (const Contender& k : working) runs.push_back(k.run);
  const BackgroundLoad background;
  const std::vector<TimingStats> stats = time_contenders(runs, plan);
  const std::optional<double> others = background.cores();
  if (!reports()) return;
  // The limits first: a limit measured for the first time adds its own row, before this case's.
  std::vector<Limit> limits;
  for (const Contender& k : working) {
    limits.push_back(options_.mpi.active ? Limit{} : limits_.of(k.backend, image, k.threads));
  }
  const double scale = options_.matrix.batch > 0 ? options_.matrix.batch : 1;
  // OpenCV's output is not seen here: it is the same size as ours.
  double our_output = 0.0;
  for (const Contender& k : working) {
    if (k.backend != "opencv") {
      our_output = k.samples->output_bytes;
      break;
    }
  }
  for (std::size_t i = 0; i < working.size(); ++i) {
    const Contender& k = working[i];
    ResultRow row = row_for(c, k.backend, k.threads);
    row.variant = k.variant;
    row.wall = stats[i];
    row.background_cores = others;
    const double output = k.backend == "opencv" ? our_output : k.samples->output_bytes;
    row.bytes = scale * (static_cast<double>(image.size_bytes()) + output);
    const auto& runs_of = k.samples->runs;
    if (k.device_timed && runs_of.size() > static_cast<std::size_t>(plan.warmup)) {
      std::vector<double> compute, upload, download;
      for (std::size_t r = static_cast<std::size_t>(plan.warmup); r < runs_of.size(); ++r) {
        compute.push_back(runs_of[r].compute_ms);
        upload.push_back(runs_of[r].upload_ms.value_or(0.0));
        download.push_back(runs_of[r].download_ms.value_or(0.0));
      }
      row.compute_ms = median_of(compute);
      row.upload_ms = median_of(upload);
      row.download_ms = median_of(download);
    }
    row.limit_gbs = limits[i].gbs;
    row.limit = limits[i].name;
    results_.add(std::move(row));
  }
}

void Runner::add_device_peers(const Image& image, const std::vector<Case>& cases) {
  constexpr int kRgba = 4;  // NPP's counterparts take RGBA
  if (image.channels() != kRgba || image.depth() != Depth::u8 || !gpu_peer_missing().empty() ||
      options_.matrix.batch > 0) {
    return;
  }
  const auto wanted = [&](const PeerTiming& t) -> const Case* {
    for (const Case& c : cases) {
      if (op_name(c.op) == t.op && c.se == t.se) return &c;
    }
    return nullptr;
  };
  std::cerr << "       npp " << image.width() << "x" << image.height() << "x4" << std::endl;
  for (const PeerTiming& t : gpu_peer_timings(image)) {
    const Case* c = wanted(t);
    if (c == nullptr) continue;
    ResultRow row = row_for(*c, "npp", 1);
    row.variant = t.calls;
    row.wall = {t.median_ms, t.median_ms, t.median_ms, 1};
    row.compute_ms = t.median_ms;
    row.bytes = t.bytes;
    const Limit limit = limits_.of("npp", image, 1);
    row.limit_gbs = limit.gbs;
    row.limit = limit.name;
    row.note = "kernel only (image on the device); median of NPP's own timing";
    results_.add(std::move(row));
  }
}

}  // namespace parfilter::bench
