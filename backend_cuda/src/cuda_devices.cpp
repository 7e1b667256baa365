#include "cuda_devices.hpp"

#include <algorithm>
#include <cctype>

namespace parfilter::cuda {
namespace {

constexpr double kBytesPerGiB = 1024.0 * 1024.0 * 1024.0;

}  // namespace

std::string lowercase(std::string text) {
  std::transform(text.begin(), text.end(), text.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return text;
}

DeviceList probe_devices() {
  DeviceList list;
  int count = 0;
  const cudaError_t status = cudaGetDeviceCount(&count);
  if (status != cudaSuccess) {
    (void)cudaGetLastError();
    list.error = std::string(cudaGetErrorName(status)) + ": " + cudaGetErrorString(status);
    return list;
  }
  for (int i = 0; i < count; ++i) {
    cudaDeviceProp prop{};
    if (cudaGetDeviceProperties(&prop, i) == cudaSuccess) list.devices.push_back(prop);
  }
  return list;
}

std::string describe(const cudaDeviceProp& prop) {
  return std::string(prop.name) + " (compute " + std::to_string(prop.major) + "." +
         std::to_string(prop.minor) + ", " + std::to_string(prop.multiProcessorCount) + " SMs, " +
         std::to_string(static_cast<int>(static_cast<double>(prop.totalGlobalMem) / kBytesPerGiB)) +
         " GiB)";
}

}  // namespace parfilter::cuda
