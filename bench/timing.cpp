#include "timing.hpp"

#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <fstream>
#include <stdexcept>
#include <string>
#include <thread>

#include "parfilter/backend.hpp"

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

BackgroundLoad::BackgroundLoad() : start_(sample()) {}

std::optional<BackgroundLoad::Sample> BackgroundLoad::sample() {
  std::ifstream stat("/proc/stat");
  std::string cpu;
  // user nice system idle iowait irq softirq steal, in clock ticks, summed over all CPUs.
  long long user = 0, nice = 0, system = 0, idle = 0, iowait = 0, irq = 0, softirq = 0, steal = 0;
  if (!(stat >> cpu >> user >> nice >> system >> idle >> iowait >> irq >> softirq >> steal) ||
      cpu != "cpu") {
    return std::nullopt;
  }
  const long ticks_per_s = sysconf(_SC_CLK_TCK);
  rusage self{};
  if (ticks_per_s <= 0 || getrusage(RUSAGE_SELF, &self) != 0) return std::nullopt;
  const auto seconds = [](const timeval& t) {
    constexpr double kMicrosPerS = 1e6;
    return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_usec) / kMicrosPerS;
  };
  const auto busy_ticks = user + nice + system + irq + softirq + steal;
  return Sample{
      static_cast<double>(busy_ticks) / static_cast<double>(ticks_per_s),
      seconds(self.ru_utime) + seconds(self.ru_stime),
      std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count()};
}

std::optional<double> BackgroundLoad::cores() const {
  const auto now = sample();
  if (!start_ || !now || now->wall_s - start_->wall_s < kMinWindowS) return std::nullopt;
  const double others_s =
      (now->machine_busy_s - start_->machine_busy_s) - (now->self_s - start_->self_s);
  // Clock ticks are coarse: the difference can come out slightly negative.
  return std::max(0.0, others_s / (now->wall_s - start_->wall_s));
}

std::vector<TimingStats> time_contenders(const std::vector<std::function<void()>>& contenders,
                                         const TimingPlan& plan) {
  if (plan.repeats < 1 || plan.warmup < 0) {
    throw std::invalid_argument("time_contenders: repeats must be >= 1 and warmup >= 0");
  }
  const auto run_ms = [](const std::function<void()>& work) {
    const auto start = std::chrono::steady_clock::now();
    work();
    const auto stop = std::chrono::steady_clock::now();
    return elapsed_ms(start, stop);
  };
  std::vector<TimingStats> stats;
  stats.reserve(contenders.size());
  for (const auto& work : contenders) {
    // Back to back: idle time between runs lets a VM's vCPUs halt, and every run after it
    // pays their wake-up and cold caches (on the 2-vCPU VM a memcpy of 25 MB took 3.6 ms after
    // 20 ms idle, 1.8 ms back to back, and a second thread then gained nothing).
    double last_warmup_ms = 0.0;
    for (int i = 0; i < plan.warmup; ++i) last_warmup_ms = run_ms(work);
    int repeats = plan.repeats;
    if (plan.budget_ms > 0.0 && last_warmup_ms * repeats > plan.budget_ms) {
      const int affordable = static_cast<int>(plan.budget_ms / last_warmup_ms);
      repeats = std::max(std::min(plan.min_repeats, plan.repeats), affordable);
    }
    std::vector<double> samples;
    samples.reserve(static_cast<std::size_t>(repeats));
    for (int i = 0; i < repeats; ++i) samples.push_back(run_ms(work));
    stats.push_back(summarize(std::move(samples)));
    if (plan.settle_ms > 0.0) {
      std::this_thread::sleep_for(std::chrono::duration<double, std::milli>(plan.settle_ms));
    }
  }
  return stats;
}

TimingStats time_ms(const std::function<void()>& work, const TimingPlan& plan) {
  return time_contenders({work}, plan).front();
}

}  // namespace parfilter::bench
