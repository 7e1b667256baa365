// Runs parfilter-bench's matrix: for each case and thread count, every selected backend (each
// variant asked for) and the OpenCV peer are timed in turns on the same generated image, next
// to the bandwidth limit of the same bytes (a memcpy on the same number of threads, or the
// GPU's device-to-device copy) and NPP on the GPU.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "bench_hooks.hpp"
#include "bench_limits.hpp"
#include "bench_matrix.hpp"
#include "bench_results.hpp"
#include "parfilter/backend.hpp"
#include "timing.hpp"

namespace parfilter::bench {

struct RunnerOptions {
  Matrix matrix;
  TimingPlan plan;
  std::string section = "main";
  bool peers = true;  ///< OpenCV and NPP next to ours
  MpiWorld mpi;       ///< active: the MPI backend alone, every rank in step, rank 0 reports
};

class Runner {
 public:
  Runner(RunnerOptions options, Results& results);
  /// Times every case; prints one progress line per case and thread count on stderr.
  void run();
  /// What was not run and why (a backend not present, a peer missing), for the header.
  [[nodiscard]] const std::vector<std::string>& notes() const { return notes_; }

 private:
  struct BackendSet {
    std::string name;
    bool threaded = false;
    std::vector<std::unique_ptr<Backend>> by_threads;  ///< one per thread count, or one
  };
  struct Contender;

  void run_case(const Case& c, const Image& image, std::size_t thread_index);
  void add_device_peers(const Image& image, const std::vector<Case>& cases);
  [[nodiscard]] std::vector<Contender> contenders(const Case& c, const Image& image,
                                                  std::size_t thread_index);
  void progress(const std::string& what);
  [[nodiscard]] ResultRow row_for(const Case& c, const std::string& backend, int threads) const;
  [[nodiscard]] bool reports() const { return !options_.mpi.active || options_.mpi.rank == 0; }

  RunnerOptions options_;
  Results& results_;
  std::vector<BackendSet> backends_;
  std::vector<std::string> notes_;
  Limits limits_;
  int done_ = 0;
  int total_ = 0;
};

}  // namespace parfilter::bench
