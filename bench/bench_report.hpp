// The results of a CPU benchmark run: per op, implementation and thread count, the median
// (with min and max) of each round of runs, printed as a table (speedups over serial, pthread
// against OpenMP and each against OpenCV, and how busy other processes kept the machine
// meanwhile), as a short parfilter-versus-OpenCV table with the spread over rounds and the
// share of memcpy bandwidth, and written as CSV (one line per measurement and round).
#pragma once

#include <cstddef>
#include <map>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "timing.hpp"

namespace parfilter::bench {

class Report {
 public:
  /// impl: "serial" (threads 1), "pthread", "openmp", "opencv". Adding the same op, impl and
  /// threads again records another round: the tables show the round with the best median.
  void add(const std::string& op, const std::string& impl, int threads, const TimingStats& stats);
  /// Which OpenCV calls stand for `op` (printed under the table).
  void note_opencv(const std::string& op, const std::string& calls);
  /// How busy other processes kept the machine while `op` was measured (BackgroundLoad); the
  /// highest of the rounds is kept.
  void note_background(const std::string& op, std::optional<double> cores);
  /// The bytes `op` must read and write at least (its input once, its output once): the
  /// versus table rates its speed against a memcpy moving as many bytes.
  void note_bytes(const std::string& op, std::size_t bytes);

  void print_table(std::ostream& out) const;
  /// `impl` at each thread count (and serial at 1) against OpenCV at the same count: best
  /// round medians, the range of the round medians, their ratio, and the op's bytes per ms
  /// against the "memcpy" op's (2 x its bytes) on the same implementation and threads.
  void print_versus(std::ostream& out, const std::string& impl, std::size_t memcpy_bytes) const;
  /// op,impl,threads,median_ms,min_ms,max_ms,repeats,speedup_vs_serial,background_cores,round
  void write_csv(std::ostream& out) const;

 private:
  struct Entry {
    std::string op;
    std::string impl;
    int threads;
    std::vector<TimingStats> rounds;
    [[nodiscard]] const TimingStats& best() const;
    [[nodiscard]] double worst_median() const;
  };
  [[nodiscard]] const Entry* find(const std::string& op, const std::string& impl,
                                  int threads) const;
  [[nodiscard]] std::optional<double> median(const std::string& op, const std::string& impl,
                                             int threads) const;
  [[nodiscard]] std::vector<std::string> ops() const;
  [[nodiscard]] std::optional<double> background(const std::string& op) const;
  [[nodiscard]] std::vector<int> thread_counts(const std::string& op) const;

  std::vector<Entry> entries_;
  std::vector<std::pair<std::string, std::string>> opencv_calls_;
  std::map<std::string, std::optional<double>> background_;
  std::map<std::string, std::size_t> bytes_;
};

}  // namespace parfilter::bench
