// NVIDIA NPP on the benchmark's image, side by side with our kernels. Built from
// bench_npp.cu where the toolkit has NPP, else from bench_npp_absent.cpp (no rows).
#pragma once

#include <cuda_runtime_api.h>

#include <string>
#include <vector>

#include "bench_timer.hpp"
#include "launchers.hpp"

namespace parfilter::cuda::bench {

/// The device images NPP reads and writes: rgba (the input), gray (its gray plane), and
/// outputs of the same sizes.
struct NppImages {
  DeviceImage rgba;
  DeviceImage gray;
  DeviceImage rgba_out;
  DeviceImage gray_out;
};

/// Whether this build has NPP ("" if so, else why not).
[[nodiscard]] std::string npp_missing();

/// Times NPP's counterparts of our ops on `images` (replicate borders).
[[nodiscard]] std::vector<Row> run_npp(const NppImages& images, cudaStream_t stream);

}  // namespace parfilter::cuda::bench
