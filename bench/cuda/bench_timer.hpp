// Timing for the CUDA benchmarks: the median of CUDA-event timings after warm-up runs, the
// device-to-device copy every kernel is compared with, effective bandwidth, and the table rows
// parfilter-bench-cuda reports (time, bytes moved, effective bandwidth and its fraction of the
// copy's measured in the same run).
#pragma once

#include <cuda_runtime_api.h>

#include <algorithm>
#include <functional>
#include <string>
#include <vector>

#include "cuda_util.hpp"

namespace parfilter::cuda::bench {

constexpr double kMsPerS = 1e3;
constexpr double kBytesPerGB = 1e9;

/// `bytes` moved in `ms` milliseconds, in GB/s.
inline double gb_per_s(double bytes, double ms) { return bytes / (ms / kMsPerS) / kBytesPerGB; }

/// Runs `work` (which enqueues on `stream`) `warmup` times, then times it with events until
/// `max_runs` runs or about `budget_ms` of timed work, at least `min_runs`; returns the median.
/// Each timed run is enqueued behind a closed stream gate (cuda_util.hpp), opened once the stop
/// event is queued: the GPU then runs the events and the work back to back, so the time is the
/// GPU's alone, not the host's launch latency (about 4 us per launch on the H200 machine; the
/// same method as nvbench's blocking kernel). Work that waits for the stream itself (the texture
/// variant) lets the gate expire first, which costs wall time, not accuracy.
inline double median_ms(cudaStream_t stream, const std::function<void()>& work, int warmup = 3,
                        int min_runs = 3, int max_runs = 21, double budget_ms = 1500.0) {
  const Event start;
  const Event stop;
  StreamGate gate;
  for (int i = 0; i < warmup; ++i) work();
  CUDA_CHECK(cudaStreamSynchronize(stream));
  std::vector<double> times;
  double spent = 0.0;
  while (static_cast<int>(times.size()) < max_runs &&
         (static_cast<int>(times.size()) < min_runs || spent < budget_ms)) {
    gate.close(stream);
    start.record(stream);
    work();
    stop.record(stream);
    gate.open();
    CUDA_CHECK(cudaEventSynchronize(stop.get()));
    times.push_back(stop.ms_since(start));
    spent += times.back();
  }
  std::sort(times.begin(), times.end());
  return times[times.size() / 2];
}

/// The median time of a device-to-device cudaMemcpy of `bytes` (which reads and writes them:
/// gb_per_s of twice the bytes is the copy bandwidth), timed like the kernels.
inline double device_copy_ms(cudaStream_t stream, void* dst, const void* src, std::size_t bytes) {
  return median_ms(stream, [&] {
    CUDA_CHECK(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToDevice, stream));
  });
}

/// One measured kernel (or library call): what it is and the bytes it must move at least.
struct Row {
  std::string op;
  std::string variant;  ///< ours: the --variant name; NPP: the function
  double ms = 0.0;
  double bytes = 0.0;  ///< bytes read + written, each input and output once
  bool npp = false;
};

}  // namespace parfilter::cuda::bench
