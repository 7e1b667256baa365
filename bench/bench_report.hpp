// The results of a CPU benchmark run: one median (with min and max) per op, implementation
// and thread count, printed as a table (speedups over serial, pthread against OpenMP and
// each against OpenCV, and how busy other processes kept the machine meanwhile) and written
// as CSV (one line per measurement).
#pragma once

#include <map>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "timing.hpp"

namespace parfilter::bench {

class Report {
 public:
  /// impl: "serial" (threads 1), "pthread", "openmp", "opencv".
  void add(const std::string& op, const std::string& impl, int threads, const TimingStats& stats);
  /// Which OpenCV calls stand for `op` (printed under the table).
  void note_opencv(const std::string& op, const std::string& calls);
  /// How busy other processes kept the machine while `op` was measured (BackgroundLoad).
  void note_background(const std::string& op, std::optional<double> cores);

  void print_table(std::ostream& out) const;
  /// op,impl,threads,median_ms,min_ms,max_ms,repeats,speedup_vs_serial,background_cores
  void write_csv(std::ostream& out) const;

 private:
  struct Entry {
    std::string op;
    std::string impl;
    int threads;
    TimingStats stats;
  };
  [[nodiscard]] const Entry* find(const std::string& op, const std::string& impl,
                                  int threads) const;
  [[nodiscard]] std::vector<std::string> ops() const;
  [[nodiscard]] std::optional<double> background(const std::string& op) const;
  [[nodiscard]] std::vector<int> thread_counts(const std::string& op) const;

  std::vector<Entry> entries_;
  std::vector<std::pair<std::string, std::string>> opencv_calls_;
  std::map<std::string, std::optional<double>> background_;
};

}  // namespace parfilter::bench
