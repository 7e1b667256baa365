// The physical limit each of parfilter-bench's rows is a fraction of: the copy of the same bytes,
// measured in the same run and timed the same way as the contenders (warm-up runs, then
// repeats, with the same idle time after each run).
//
//  - CPU contenders (serial, pthread, OpenMP, OpenCV, and OpenCL on PoCL) on N threads: the
//    fastest copy of the image with at most N threads: a memcpy on one thread, or one split
//    into row blocks over N workers (the pthread pool's, else OpenMP's). At small sizes waking
//    N workers costs more than the copy itself, and a contender allowed N threads could always
//    have copied on one, so the better of the two is the limit.
//  - GPU contenders (CUDA, OpenCL on a GPU, NPP): a device-to-device copy of the same bytes.
//
// Each limit measured is also a row of its own (backend "memcpy" or "gpu-copy", op "copy").
#pragma once

#include <map>
#include <optional>
#include <string>
#include <utility>

#include "bench_hooks.hpp"
#include "bench_results.hpp"
#include "parfilter/image.hpp"
#include "timing.hpp"

namespace parfilter::bench {

/// A limit: bytes read + written per second, and which copy it is ("memcpy 16 threads").
struct Limit {
  std::optional<double> gbs;
  std::string name;
};

class Limits {
 public:
  /// Copies are timed with `plan` (the contenders' plan) and their rows added to `results`.
  Limits(const TimingPlan& plan, std::string section, Results& results);

  /// The limit of `backend` on `image` with `threads` workers (none: gbs is nullopt).
  [[nodiscard]] Limit of(const std::string& backend, const Image& image, int threads);

 private:
  [[nodiscard]] Limit cpu(const Image& image, int threads);
  [[nodiscard]] double memcpy_gbs(const Image& image, int threads);
  [[nodiscard]] std::optional<double> gpu_copy_gbs(const Image& image);
  [[nodiscard]] ResultRow copy_row(const Image& image) const;

  TimingPlan plan_;
  std::string section_;
  Results& results_;
  std::map<std::pair<std::size_t, int>, double> memcpy_cache_;  ///< (bytes, threads) -> GB/s
  std::map<std::size_t, std::optional<DeviceCopy>> gpu_cache_;  ///< bytes -> copy
};

}  // namespace parfilter::bench
