#include "bench_results.hpp"

#include <cmath>
#include <iomanip>

#include "bench_text.hpp"
#include "parfilter/image.hpp"

namespace parfilter::bench {
namespace {

constexpr double kMsPerS = 1e3;
constexpr double kBytesPerGB = 1e9;
constexpr int kMsDecimals = 3;
constexpr int kRatioDecimals = 3;
constexpr int kPercent = 100;

/// A CSV field, quoted where it holds a comma, a quote or a line break (RFC 4180).
std::string field(const std::string& text) {
  if (text.find_first_of(",\"\n") == std::string::npos) return text;
  std::string quoted = "\"";
  for (const char c : text) {
    quoted += c;
    if (c == '"') quoted += '"';
  }
  return quoted + "\"";
}

bool same_case(const ResultRow& a, const ResultRow& b) {
  return a.section == b.section && a.op == b.op && a.width == b.width && a.height == b.height &&
         a.channels == b.channels && a.depth == b.depth && a.se == b.se && a.batch == b.batch;
}

}  // namespace

double ResultRow::gbs() const {
  const double ms = op_ms();
  return ms > 0.0 ? bytes / (ms / kMsPerS) / kBytesPerGB : 0.0;
}

void Results::write_csv_header(std::ostream& out) {
  out << "machine,section,backend,op,variant,width,height,channels,se,threads,ranks,batch,"
         "median_ms,min_ms,max_ms,repeats,compute_ms,upload_ms,download_ms,bytes,gbs,limit,"
         "limit_gbs,limit_fraction,background_cores,note,depth\n";
}

void Results::write_csv(std::ostream& out) const {
  for (const ResultRow& r : rows_) {
    std::optional<double> fraction;
    if (r.limit_gbs && *r.limit_gbs > 0.0) fraction = r.gbs() / *r.limit_gbs;
    out << field(machine_) << ',' << field(r.section) << ',' << field(r.backend) << ','
        << field(r.op) << ',' << field(r.variant) << ',' << r.width << ',' << r.height << ','
        << r.channels << ',' << r.se << ',' << r.threads << ',' << r.ranks << ',' << r.batch << ','
        << fixed(r.wall.median_ms, kMsDecimals + 1) << ',' << fixed(r.wall.min_ms, kMsDecimals + 1)
        << ',' << fixed(r.wall.max_ms, kMsDecimals + 1) << ',' << r.wall.repeats << ','
        << fixed(r.compute_ms, kMsDecimals + 1) << ',' << fixed(r.upload_ms, kMsDecimals + 1) << ','
        << fixed(r.download_ms, kMsDecimals + 1) << ',' << std::llround(r.bytes) << ','
        << fixed(r.gbs(), kRatioDecimals) << ',' << field(r.limit) << ','
        << fixed(r.limit_gbs, kRatioDecimals) << ',' << fixed(fraction, kRatioDecimals + 1) << ','
        << fixed(r.background_cores, kRatioDecimals) << ',' << field(r.note) << ',' << r.depth
        << '\n';
  }
}

void Results::print_table(std::ostream& out) const {
  constexpr int kBackendWidth = 10;
  constexpr int kVariantWidth = 14;
  constexpr int kNumberWidth = 11;
  constexpr int kThreadsWidth = 4;
  constexpr int kSpeedupDecimals = 2;
  constexpr int kPercentDecimals = 1;
  const ResultRow* current = nullptr;
  const ResultRow* serial = nullptr;
  for (const ResultRow& r : rows_) {
    if (current == nullptr || !same_case(*current, r)) {
      current = &r;
      serial = nullptr;
      for (const ResultRow& s : rows_) {
        if (same_case(s, r) && s.backend == "serial") serial = &s;
      }
      out << "\n"
          << r.op << (r.se > 0 ? " " + std::to_string(r.se) + "x" + std::to_string(r.se) : "")
          << "  " << r.width << "x" << r.height << "x" << r.channels
          << (r.depth != bits_of(Depth::u8) ? "  " + std::to_string(r.depth) + "-bit" : "")
          << (r.batch > 0 ? "  batch of " + std::to_string(r.batch) : "") << "\n"
          << std::left << std::setw(kBackendWidth) << "  backend" << std::setw(kVariantWidth)
          << "variant" << std::right << std::setw(kThreadsWidth) << "thr" << std::setw(kNumberWidth)
          << "median ms" << std::setw(kNumberWidth) << "kernel ms" << std::setw(kNumberWidth)
          << "speedup" << std::setw(kNumberWidth) << "% limit"
          << "\n";
    }
    std::optional<double> speedup;
    if (serial != nullptr && r.wall.median_ms > 0.0) {
      speedup = serial->wall.median_ms / r.wall.median_ms;
    }
    std::optional<double> percent;
    if (r.limit_gbs && *r.limit_gbs > 0.0) percent = kPercent * r.gbs() / *r.limit_gbs;
    out << "  " << std::left << std::setw(kBackendWidth - 2) << r.backend
        << std::setw(kVariantWidth) << r.variant.substr(0, kVariantWidth - 1) << std::right
        << std::setw(kThreadsWidth) << (r.ranks > 1 ? r.ranks : r.threads)
        << std::setw(kNumberWidth) << fixed(r.wall.median_ms, kMsDecimals)
        << std::setw(kNumberWidth) << fixed(r.compute_ms, kMsDecimals) << std::setw(kNumberWidth)
        << fixed(speedup, kSpeedupDecimals) << std::setw(kNumberWidth)
        << fixed(percent, kPercentDecimals) << "\n";
  }
}

}  // namespace parfilter::bench
