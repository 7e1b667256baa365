#include "timing.hpp"

#include <algorithm>
#include <chrono>
#include <stdexcept>

namespace parfilter::bench {

TimingStats summarize(std::vector<double> samples_ms) {
  if (samples_ms.empty()) throw std::invalid_argument("summarize: no samples");
  std::sort(samples_ms.begin(), samples_ms.end());
  const std::size_t n = samples_ms.size();
  TimingStats stats;
  // The mean of the two middle samples for an even count.
  stats.median_ms = (samples_ms[(n - 1) / 2] + samples_ms[n / 2]) / 2.0;
  stats.min_ms = samples_ms.front();
  stats.max_ms = samples_ms.back();
  stats.repeats = static_cast<int>(n);
  return stats;
}

TimingStats time_ms(const std::function<void()>& work, const TimingPlan& plan) {
  if (plan.repeats < 1 || plan.warmup < 0) {
    throw std::invalid_argument("time_ms: repeats must be >= 1 and warmup >= 0");
  }
  for (int i = 0; i < plan.warmup; ++i) work();
  std::vector<double> samples;
  samples.reserve(static_cast<std::size_t>(plan.repeats));
  for (int i = 0; i < plan.repeats; ++i) {
    const auto start = std::chrono::steady_clock::now();
    work();
    const auto stop = std::chrono::steady_clock::now();
    samples.push_back(std::chrono::duration<double, std::milli>(stop - start).count());
  }
  return summarize(std::move(samples));
}

}  // namespace parfilter::bench
