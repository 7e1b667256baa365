// parfilter-bench's results: one row per measurement (a backend, a peer or a bandwidth limit
// on one case at one thread count), written as CSV (the schema bench/peers_cv2.py and
// bench/results_md.py share) and printed as a short table.
#pragma once

#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "timing.hpp"

namespace parfilter::bench {

struct ResultRow {
  std::string section;  ///< which part of the matrix (the script's label: scaling, se, ...)
  std::string backend;  ///< a backend, a peer ("opencv", "npp") or a limit ("memcpy", "gpu-copy")
  std::string op;
  std::string variant;
  int width = 0;
  int height = 0;
  int channels = 0;
  int depth = 8;  ///< bits per sample
  int se = 0;
  int threads = 1;  ///< worker threads (per rank for MPI)
  int ranks = 1;
  int batch = 0;     ///< images per run_batch call, 0 for a single run
  TimingStats wall;  ///< whole run() (or run_batch) as the caller sees it
  std::optional<double> compute_ms, upload_ms, download_ms;  ///< medians of StageTimes
  double bytes = 0.0;  ///< bytes read + written (input and output once each)
  std::optional<double> limit_gbs;
  std::string limit;  ///< which limit: "memcpy 2 threads", "gpu-copy NVIDIA H200"
  std::optional<double> background_cores;
  std::string note;

  /// The op's own time: compute (kernel) time where the backend reports it, else wall.
  [[nodiscard]] double op_ms() const { return compute_ms.value_or(wall.median_ms); }
  /// bytes / op_ms in GB/s.
  [[nodiscard]] double gbs() const;
};

class Results {
 public:
  explicit Results(std::string machine) : machine_(std::move(machine)) {}
  void add(ResultRow row) { rows_.push_back(std::move(row)); }
  [[nodiscard]] const std::vector<ResultRow>& rows() const { return rows_; }

  static void write_csv_header(std::ostream& out);
  void write_csv(std::ostream& out) const;
  /// One line per measurement, grouped by case, with the speedup over serial (same case,
  /// end to end) and the fraction of the bandwidth limit.
  void print_table(std::ostream& out) const;

 private:
  std::string machine_;
  std::vector<ResultRow> rows_;
};

}  // namespace parfilter::bench
