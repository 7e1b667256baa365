#include "bench_report.hpp"

#include <algorithm>
#include <iomanip>
#include <optional>

#include "bench_text.hpp"

namespace parfilter::bench {
namespace {

constexpr std::size_t kMinOpWidth = 12;
constexpr int kThreadsWidth = 4;
constexpr int kColumnWidth = 10;
constexpr int kMsDecimals = 2;
constexpr int kRatioDecimals = 2;
constexpr int kCsvDecimals = 3;
constexpr int kRangeWidth = 15;
constexpr double kPercent = 100.0;
/// memcpy reads and writes each byte: it moves twice the bytes it copies.
constexpr double kMemcpyMoves = 2.0;

/// A missing value in these tables.
const std::string kMissing = "-";

std::optional<double> ratio(std::optional<double> numerator, std::optional<double> denominator) {
  if (!numerator || !denominator || *denominator <= 0.0) return std::nullopt;
  return *numerator / *denominator;
}

}  // namespace

const TimingStats& Report::Entry::best() const {
  return *std::min_element(rounds.begin(), rounds.end(),
                           [](const auto& a, const auto& b) { return a.median_ms < b.median_ms; });
}

double Report::Entry::worst_median() const {
  return std::max_element(rounds.begin(), rounds.end(),
                          [](const auto& a, const auto& b) { return a.median_ms < b.median_ms; })
      ->median_ms;
}

void Report::add(const std::string& op, const std::string& impl, int threads,
                 const TimingStats& stats) {
  for (Entry& e : entries_) {
    if (e.op == op && e.impl == impl && e.threads == threads) {
      e.rounds.push_back(stats);
      return;
    }
  }
  entries_.push_back({op, impl, threads, {stats}});
}

void Report::note_background(const std::string& op, std::optional<double> cores) {
  const auto it = background_.find(op);
  if (it != background_.end() && it->second && (!cores || *cores < *it->second)) return;
  background_[op] = cores;
}

void Report::note_bytes(const std::string& op, std::size_t bytes) { bytes_[op] = bytes; }

std::optional<double> Report::median(const std::string& op, const std::string& impl,
                                     int threads) const {
  const Entry* e = find(op, impl, threads);
  if (e == nullptr) return std::nullopt;
  return e->best().median_ms;
}

std::optional<double> Report::background(const std::string& op) const {
  const auto it = background_.find(op);
  return it == background_.end() ? std::nullopt : it->second;
}

void Report::note_opencv(const std::string& op, const std::string& calls) {
  opencv_calls_.emplace_back(op, calls);
}

const Report::Entry* Report::find(const std::string& op, const std::string& impl,
                                  int threads) const {
  for (const Entry& e : entries_) {
    if (e.op == op && e.impl == impl && (impl == "serial" || e.threads == threads)) return &e;
  }
  return nullptr;
}

std::vector<std::string> Report::ops() const {
  std::vector<std::string> names;
  for (const Entry& e : entries_) {
    if (std::find(names.begin(), names.end(), e.op) == names.end()) names.push_back(e.op);
  }
  return names;
}

std::vector<int> Report::thread_counts(const std::string& op) const {
  std::vector<int> counts;
  for (const Entry& e : entries_) {
    if (e.op == op && e.impl != "serial" &&
        std::find(counts.begin(), counts.end(), e.threads) == counts.end()) {
      counts.push_back(e.threads);
    }
  }
  return counts;
}

void Report::print_table(std::ostream& out) const {
  std::size_t widest = kMinOpWidth;
  for (const Entry& e : entries_) widest = std::max(widest, e.op.size() + 1);
  const int op_width = static_cast<int>(widest);
  const std::vector<std::string> headings = {"serial ms", "pthread ms", "speedup",   "openmp ms",
                                             "speedup",   "pth/omp",    "opencv ms", "pth/cv",
                                             "omp/cv",    "others"};
  out << std::left << std::setw(op_width) << "op" << std::right << std::setw(kThreadsWidth)
      << "thr";
  for (const auto& h : headings) out << std::setw(kColumnWidth + 1) << h;
  out << "\n";
  for (const std::string& op : ops()) {
    const auto serial = median(op, "serial", 1);
    bool first = true;
    for (const int t : thread_counts(op)) {
      const auto pthread = median(op, "pthread", t);
      const auto openmp = median(op, "openmp", t);
      const auto opencv = median(op, "opencv", t);
      const std::vector<std::string> cells = {
          first ? fixed(serial, kMsDecimals, kMissing) : "",
          fixed(pthread, kMsDecimals, kMissing),
          fixed(ratio(serial, pthread), kRatioDecimals, kMissing),
          fixed(openmp, kMsDecimals, kMissing),
          fixed(ratio(serial, openmp), kRatioDecimals, kMissing),
          fixed(ratio(pthread, openmp), kRatioDecimals, kMissing),
          fixed(opencv, kMsDecimals, kMissing),
          fixed(ratio(pthread, opencv), kRatioDecimals, kMissing),
          fixed(ratio(openmp, opencv), kRatioDecimals, kMissing),
          first ? fixed(background(op), kRatioDecimals, kMissing) : ""};
      out << std::left << std::setw(op_width) << (first ? op : "") << std::right
          << std::setw(kThreadsWidth) << t;
      for (const auto& cell : cells) out << std::setw(kColumnWidth + 1) << cell;
      out << "\n";
      first = false;
    }
    if (first) {  // serial only (no threaded backend built)
      out << std::left << std::setw(op_width) << op << std::right << std::setw(kThreadsWidth) << 1
          << std::setw(kColumnWidth + 1) << fixed(serial, kMsDecimals, kMissing) << "\n";
    }
  }
  out << "\nspeedup = serial / that time; pth/omp, pth/cv, omp/cv = ratios of times (above 1:"
         " the first is slower);\nothers = cores that other processes kept busy while the op was"
         " measured (above ~0.1 its numbers were disturbed).\n"
         "OpenCV counterparts:\n";
  // One line per op, not per variant: the counterpart is the same.
  std::vector<std::string> noted;
  for (const auto& [op, calls] : opencv_calls_) {
    const std::string base = op.substr(0, op.find(':'));
    if (std::find(noted.begin(), noted.end(), base) != noted.end()) continue;
    noted.push_back(base);
    out << "  " << std::left << std::setw(op_width) << base << calls << "\n";
  }
}

void Report::print_versus(std::ostream& out, const std::string& impl,
                          std::size_t memcpy_bytes) const {
  std::size_t widest = kMinOpWidth;
  for (const Entry& e : entries_) widest = std::max(widest, e.op.size() + 1);
  const int op_width = static_cast<int>(widest);
  // "best [lowest median-highest median]" of the rounds.
  const auto cell = [this](const std::string& op, const std::string& who, int threads) {
    const Entry* e = find(op, who, threads);
    if (e == nullptr) return kMissing;
    const std::string best = fixed(e->best().median_ms, kMsDecimals);
    if (e->rounds.size() < 2) return best;
    return best + " [" + fixed(e->worst_median(), kMsDecimals) + "]";
  };
  // The op's bytes per ms as a share of memcpy's on the same implementation and threads.
  const auto bandwidth = [&](const std::string& op, const std::string& who,
                             int threads) -> std::optional<double> {
    const auto bytes = bytes_.find(op);
    const auto op_ms = median(op, who, threads);
    const auto copy_ms = median("memcpy", who, threads);
    if (bytes == bytes_.end() || !op_ms || !copy_ms || memcpy_bytes == 0) return std::nullopt;
    const double copy_rate = kMemcpyMoves * static_cast<double>(memcpy_bytes) / *copy_ms;
    return kPercent * (static_cast<double>(bytes->second) / *op_ms) / copy_rate;
  };
  out << std::left << std::setw(op_width) << "op" << std::right << std::setw(kThreadsWidth)
      << "thr";
  for (const std::string& h : {impl + " ms", std::string("opencv ms")}) {
    out << std::setw(kRangeWidth + 1) << h;
  }
  for (const std::string& h : {impl.substr(0, 3) + "/cv", std::string("bw %")}) {
    out << std::setw(kColumnWidth + 1) << h;
  }
  out << "\n";
  for (const std::string& op : ops()) {
    if (op == "memcpy") continue;
    std::vector<int> counts = thread_counts(op);
    if (find(op, "serial", 1) != nullptr) counts.insert(counts.begin(), 0);  // 0: serial
    for (const int t : counts) {
      const std::string who = t == 0 ? "serial" : impl;
      const int threads = t == 0 ? 1 : t;
      if (find(op, who, threads) == nullptr) continue;
      out << std::left << std::setw(op_width) << op << std::right << std::setw(kThreadsWidth)
          << (t == 0 ? "ser" : std::to_string(t)) << std::setw(kRangeWidth + 1)
          << cell(op, who, threads) << std::setw(kRangeWidth + 1) << cell(op, "opencv", threads)
          << std::setw(kColumnWidth + 1)
          << fixed(ratio(median(op, who, threads), median(op, "opencv", threads)), kRatioDecimals,
                   kMissing)
          << std::setw(kColumnWidth + 1) << fixed(bandwidth(op, who, threads), 0, kMissing) << "\n";
    }
  }
  out << "\nms: the best round's median [the worst round's]; " << impl.substr(0, 3)
      << "/cv: best against best (above 1: parfilter is slower); thr ser: the serial backend\n"
         "against OpenCV on 1 thread. bw %: the op's input and output bytes (each once) per ms,\n"
         "as a share of a memcpy's bytes read and written per ms on the same threads.\n";
}

void Report::write_csv(std::ostream& out) const {
  out << "op,impl,threads,median_ms,min_ms,max_ms,repeats,speedup_vs_serial,background_cores,"
         "round\n";
  for (const Entry& e : entries_) {
    const Entry* serial = find(e.op, "serial", 1);
    for (std::size_t r = 0; r < e.rounds.size(); ++r) {
      const TimingStats& stats = e.rounds[r];
      const auto speedup =
          serial != nullptr ? ratio(serial->best().median_ms, stats.median_ms) : std::nullopt;
      out << e.op << "," << e.impl << "," << e.threads << "," << stats.median_ms << ","
          << stats.min_ms << "," << stats.max_ms << "," << stats.repeats << ","
          << fixed(speedup, kCsvDecimals, kMissing) << ","
          << fixed(background(e.op), kCsvDecimals, kMissing) << "," << r << "\n";
    }
  }
}

}  // namespace parfilter::bench
