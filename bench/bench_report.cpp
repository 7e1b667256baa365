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

/// A missing value in these tables.
const std::string kMissing = "-";

std::optional<double> ratio(std::optional<double> numerator, std::optional<double> denominator) {
  if (!numerator || !denominator || *denominator <= 0.0) return std::nullopt;
  return *numerator / *denominator;
}

}  // namespace

void Report::add(const std::string& op, const std::string& impl, int threads,
                 const TimingStats& stats) {
  entries_.push_back({op, impl, threads, stats});
}

void Report::note_background(const std::string& op, std::optional<double> cores) {
  background_[op] = cores;
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
  const auto median = [this](const std::string& op, const std::string& impl,
                             int threads) -> std::optional<double> {
    const Entry* e = find(op, impl, threads);
    if (e == nullptr) return std::nullopt;
    return e->stats.median_ms;
  };
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

void Report::write_csv(std::ostream& out) const {
  out << "op,impl,threads,median_ms,min_ms,max_ms,repeats,speedup_vs_serial,background_cores\n";
  for (const Entry& e : entries_) {
    const Entry* serial = find(e.op, "serial", 1);
    const auto speedup =
        serial != nullptr ? ratio(serial->stats.median_ms, e.stats.median_ms) : std::nullopt;
    out << e.op << "," << e.impl << "," << e.threads << "," << e.stats.median_ms << ","
        << e.stats.min_ms << "," << e.stats.max_ms << "," << e.stats.repeats << ","
        << fixed(speedup, kCsvDecimals, kMissing) << ","
        << fixed(background(e.op), kCsvDecimals, kMissing) << "\n";
  }
}

}  // namespace parfilter::bench
