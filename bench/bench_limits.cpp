#include "bench_limits.hpp"

#include <unistd.h>
#include <algorithm>
#include <cstring>
#include <functional>
#include <memory>

#include "cpu_copy.hpp"

namespace parfilter::bench {
namespace {

constexpr double kMsPerS = 1e3;
constexpr double kBytesPerGB = 1e9;
/// A copy reads and writes each byte once.
constexpr double kCopyPasses = 2.0;

double copy_gbs(double bytes, double ms) {
  return kCopyPasses * bytes / (ms / kMsPerS) / kBytesPerGB;
}

std::string threads_name(int threads) {
  return "memcpy " + std::to_string(threads) + (threads == 1 ? " thread" : " threads");
}

}  // namespace

Limits::Limits(const TimingPlan& plan, std::string section, Results& results)
    : plan_(plan), section_(std::move(section)), results_(results) {
  // The copy's destination is new: its first run pays the page faults, never a timed one
  // (the contenders' first run is an untimed probe for the same reason).
  plan_.warmup = std::max(1, plan_.warmup);
}

Limit Limits::of(const std::string& backend, const Image& image, int threads) {
  // The GPU backends' kernels are bounded by the device's copy; OpenCL counts as a GPU backend
  // where there is one (else PoCL runs it on every core of the CPU).
  if (backend == "cuda" || backend == "opencl" || backend == "npp") {
    if (const auto gbs = gpu_copy_gbs(image)) return {gbs, "gpu-copy"};
    if (backend == "opencl") {
      return cpu(image, static_cast<int>(std::max(1L, sysconf(_SC_NPROCESSORS_ONLN))));
    }
    return {};
  }
  return cpu(image, threads);
}

Limit Limits::cpu(const Image& image, int threads) {
  const double one = memcpy_gbs(image, 1);
  if (threads <= 1) return {one, threads_name(1)};
  const double split = memcpy_gbs(image, threads);
  if (split >= one) return {split, threads_name(threads)};
  return {one, threads_name(1) + " (faster than " + std::to_string(threads) + " here)"};
}

ResultRow Limits::copy_row(const Image& image) const {
  ResultRow row;
  row.section = section_;
  row.op = "copy";
  row.width = image.width();
  row.height = image.height();
  row.channels = image.channels();
  row.depth = bits_of(image.depth());
  row.bytes = kCopyPasses * static_cast<double>(image.size_bytes());
  return row;
}

double Limits::memcpy_gbs(const Image& image, int threads) {
  const auto key = std::make_pair(image.size_bytes(), threads);
  if (const auto it = memcpy_cache_.find(key); it != memcpy_cache_.end()) return it->second;
  const std::unique_ptr<RowScheduler> scheduler =
      threads > 1 ? make_any_scheduler(threads) : nullptr;
  if (threads > 1 && !scheduler) return memcpy_gbs(image, 1);  // no threaded backend built
  Image copy(image.width(), image.height(), image.channels(), image.depth());
  const std::function<void()> work =
      scheduler ? scheduled_copy(*scheduler, image, copy) : std::function<void()>([&] {
        std::memcpy(copy.bytes(), image.bytes(), image.size_bytes());
      });
  const TimingStats stats = time_ms(work, plan_);
  const double gbs = copy_gbs(static_cast<double>(image.size_bytes()), stats.median_ms);
  memcpy_cache_[key] = gbs;
  ResultRow row = copy_row(image);
  row.backend = "memcpy";
  row.variant = scheduler ? "row blocks" : "memcpy";
  row.threads = scheduler ? threads : 1;
  row.wall = stats;
  row.limit_gbs = gbs;
  row.limit = threads_name(row.threads);
  results_.add(std::move(row));
  return gbs;
}

std::optional<double> Limits::gpu_copy_gbs(const Image& image) {
  const std::size_t bytes = image.size_bytes();
  auto it = gpu_cache_.find(bytes);
  if (it == gpu_cache_.end()) {
    it = gpu_cache_.emplace(bytes, gpu_copy(bytes)).first;
    if (it->second) {
      ResultRow row = copy_row(image);
      row.backend = "gpu-copy";
      row.variant = "device to device";
      // gbs from ms and ms from gbs are the same formula: copy_gbs is its own inverse.
      const double ms = copy_gbs(static_cast<double>(bytes), it->second->gbs);
      row.wall = {ms, ms, ms, 1};
      row.compute_ms = ms;
      row.limit_gbs = it->second->gbs;
      row.limit = "gpu-copy " + it->second->device;
      results_.add(std::move(row));
    }
  }
  if (!it->second) return std::nullopt;
  return it->second->gbs;
}

}  // namespace parfilter::bench
