// Timing for benchmarks: a few warm-up runs, then repeats back to back, summarized by median,
// min and max; several contenders one after another, each with its own warm-up. Shared by the
// benchmark programs in bench/; nothing here knows about ops or backends.
#pragma once

#include <functional>
#include <optional>
#include <vector>

namespace parfilter::bench {

struct TimingPlan {
  int warmup = 2;   ///< untimed runs first: page faults, caches, thread pools spinning up
  int repeats = 7;  ///< timed runs
  /// When > 0, a slow op gets fewer timed runs (never under min_repeats), so that they take
  /// about this long in all (estimated from the last warm-up run).
  double budget_ms = 0.0;
  int min_repeats = 3;
  /// Idle time after each contender's runs, untimed: a framework whose idle workers spin for
  /// a while (OpenMP's, OpenCV's) then does not take cores from the next contender's warm-up.
  /// Never between the runs of one contender (see time_contenders).
  double settle_ms = 0.0;
};

struct TimingStats {
  double median_ms = 0.0;
  double min_ms = 0.0;
  double max_ms = 0.0;
  int repeats = 0;
};

/// How busy the machine was with other processes since construction, in cores (0.5 = half a
/// core on average): a measurement taken while it is high was disturbed. Read from /proc/stat
/// (all CPU time but idle, including time stolen by a hypervisor) minus this process's own
/// CPU time; nullopt where /proc/stat is not available or before kMinWindow has passed (the
/// counters tick every 10 ms).
class BackgroundLoad {
 public:
  BackgroundLoad();
  [[nodiscard]] std::optional<double> cores() const;
  static constexpr double kMinWindowS = 0.2;

 private:
  struct Sample {
    double machine_busy_s;
    double self_s;
    double wall_s;
  };
  [[nodiscard]] static std::optional<Sample> sample();
  std::optional<Sample> start_;
};

/// The median, min and max of a non-empty list of durations in milliseconds.
[[nodiscard]] TimingStats summarize(std::vector<double> samples_ms);

/// Runs `work` plan.warmup times untimed, then plan.repeats times timed (steady clock).
[[nodiscard]] TimingStats time_ms(const std::function<void()>& work, const TimingPlan& plan);

/// The same for several contenders, one after another: each runs its warm-ups and then its
/// repeats back to back (the budget applies to each from its own last warm-up run), followed
/// by plan.settle_ms of idle time. Returns one TimingStats per contender.
[[nodiscard]] std::vector<TimingStats> time_contenders(
    const std::vector<std::function<void()>>& contenders, const TimingPlan& plan);

}  // namespace parfilter::bench
