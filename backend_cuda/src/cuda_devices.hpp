// The CUDA devices of this machine, as the backend finds and describes them.
#pragma once

#include <cuda_runtime_api.h>

#include <string>
#include <vector>

namespace parfilter::cuda {

/// The CUDA devices of this machine, or why there are none.
struct DeviceList {
  std::vector<cudaDeviceProp> devices;
  std::string error;
};

/// Never throws: without a driver or a GPU, cudaGetDeviceCount fails quickly and that is the
/// reason reported.
[[nodiscard]] DeviceList probe_devices();

/// "NVIDIA H100 80GB HBM3 (compute 9.0, 132 SMs, 79 GiB)".
[[nodiscard]] std::string describe(const cudaDeviceProp& prop);

/// `text` in lower case (ASCII), for matching a --device name.
[[nodiscard]] std::string lowercase(std::string text);

}  // namespace parfilter::cuda
