// Internal: an optional record of a batch's stages (PARFILTER_TRACE=FILE). Each decode,
// compute and encode is one CSV row: job, stage, thread, start and end in ms since the
// batch started. It shows where a batch's wall time goes (which stage waits for which, and
// how many of each run at once); bench/e2e/trace_summary.py reads it.
#pragma once

#include <chrono>
#include <cstddef>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace parfilter::pipeline {

class Trace {
 public:
  using Clock = std::chrono::steady_clock;

  /// A trace when PARFILTER_TRACE names a file, else null (nothing recorded).
  [[nodiscard]] static std::unique_ptr<Trace> from_environment();

  explicit Trace(std::string path);
  Trace(const Trace&) = delete;
  Trace& operator=(const Trace&) = delete;
  /// Writes the file; a failure is one warning line on stderr (the batch's outputs stand).
  ~Trace();

  void record(std::size_t job, const char* stage, Clock::time_point start, Clock::time_point end);

 private:
  struct Event {
    std::size_t job;
    const char* stage;
    int thread;
    double start_ms;
    double end_ms;
  };

  std::string path_;
  Clock::time_point origin_ = Clock::now();
  std::mutex mutex_;
  std::vector<Event> events_;
};

}  // namespace parfilter::pipeline
