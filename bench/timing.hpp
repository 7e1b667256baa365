// Timing for benchmarks: a few warm-up runs, then repeats, summarized by median, min and max.
// Shared by the benchmark programs in bench/; nothing here knows about ops or backends.
#pragma once

#include <functional>
#include <vector>

namespace parfilter::bench {

struct TimingPlan {
  int warmup = 2;   ///< untimed runs first: page faults, caches, thread pools spinning up
  int repeats = 7;  ///< timed runs
};

struct TimingStats {
  double median_ms = 0.0;
  double min_ms = 0.0;
  double max_ms = 0.0;
  int repeats = 0;
};

/// The median, min and max of a non-empty list of durations in milliseconds.
[[nodiscard]] TimingStats summarize(std::vector<double> samples_ms);

/// Runs `work` plan.warmup times untimed, then plan.repeats times timed (steady clock).
[[nodiscard]] TimingStats time_ms(const std::function<void()>& work, const TimingPlan& plan);

}  // namespace parfilter::bench
