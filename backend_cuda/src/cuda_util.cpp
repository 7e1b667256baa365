#include "cuda_util.hpp"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <string_view>
#include <system_error>

#include "parfilter/error.hpp"

namespace parfilter::cuda {
namespace {

constexpr const char* kDeviceDirectory = "/dev";
constexpr const char* kControlNode = "nvidiactl";
constexpr std::string_view kDeviceNodePrefix = "nvidia";  ///< then the device's number
constexpr std::string_view kUuidPrefixes[] = {"GPU-", "MIG-"};

bool all_digits(std::string_view text) {
  return !text.empty() && std::all_of(text.begin(), text.end(),
                                      [](unsigned char c) { return std::isdigit(c) != 0; });
}

/// The NVIDIA device nodes (/dev/nvidia0, /dev/nvidia1, ...), or 0 without the control node.
int device_nodes() {
  namespace fs = std::filesystem;
  std::error_code unreadable;  // an unreadable /dev counts as no device
  if (!fs::exists(fs::path(kDeviceDirectory) / kControlNode, unreadable)) return 0;
  int nodes = 0;
  for (fs::directory_iterator entry(kDeviceDirectory, unreadable), end; !unreadable && entry != end;
       entry.increment(unreadable)) {
    const std::string name = entry->path().filename().string();
    if (name.starts_with(kDeviceNodePrefix) &&
        all_digits(std::string_view(name).substr(kDeviceNodePrefix.size()))) {
      ++nodes;
    }
  }
  return nodes;
}

bool first_visible_entry_valid(std::string_view list, int nodes) {
  std::string_view first = list.substr(0, list.find(','));
  while (!first.empty() && std::isspace(static_cast<unsigned char>(first.front())) != 0) {
    first.remove_prefix(1);
  }
  for (const std::string_view prefix : kUuidPrefixes) {
    if (first.starts_with(prefix)) return true;
  }
  constexpr std::size_t kMostDigits = 9;  // beyond any device count, and within stoul's range
  return all_digits(first) && first.size() <= kMostDigits &&
         std::stoul(std::string(first)) < static_cast<unsigned long>(nodes);
}

}  // namespace

bool device_looks_visible() {
  static const bool visible = [] {
    const int nodes = device_nodes();
    if (nodes == 0) return false;
    const char* list = std::getenv("CUDA_VISIBLE_DEVICES");
    return list == nullptr || first_visible_entry_valid(list, nodes);
  }();
  return visible;
}

void check(cudaError_t status, const char* call) {
  if (status == cudaSuccess) return;
  std::string message;
  if (status == cudaErrorMemoryAllocation) message = "out of device memory: ";
  message +=
      std::string(call) + ": " + cudaGetErrorName(status) + " (" + cudaGetErrorString(status) + ")";
  throw RuntimeError(message);
}

void check_launch(const char* kernel) {
  const cudaError_t status = cudaGetLastError();
  if (status != cudaSuccess) check(status, (std::string("launch of ") + kernel).c_str());
}

void* DeviceAlloc::operator()(std::size_t bytes) const {
  void* p = nullptr;
  const cudaError_t status = cudaMalloc(&p, bytes);
  if (status != cudaSuccess) {
    (void)cudaGetLastError();  // an allocation failure is not sticky: clear it
    check(status, ("cudaMalloc(" + std::to_string(bytes) + " bytes)").c_str());
  }
  return p;
}

void DeviceFree::operator()(void* p) const noexcept { (void)cudaFree(p); }

void* PinnedAlloc::operator()(std::size_t bytes) const {
  void* p = nullptr;
  const cudaError_t status = cudaMallocHost(&p, bytes);
  if (status != cudaSuccess) {
    (void)cudaGetLastError();
    check(status, ("cudaMallocHost(" + std::to_string(bytes) + " bytes)").c_str());
  }
  return p;
}

void PinnedFree::operator()(void* p) const noexcept { (void)cudaFreeHost(p); }

Stream::Stream() { CUDA_CHECK(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking)); }
Stream::~Stream() { (void)cudaStreamDestroy(stream_); }
void Stream::synchronize() const { CUDA_CHECK(cudaStreamSynchronize(stream_)); }

Event::Event() { CUDA_CHECK(cudaEventCreate(&event_)); }
Event::~Event() { (void)cudaEventDestroy(event_); }
void Event::record(cudaStream_t stream) const { CUDA_CHECK(cudaEventRecord(event_, stream)); }
float Event::ms_since(const Event& start) const {
  float ms = 0.0F;
  CUDA_CHECK(cudaEventElapsedTime(&ms, start.event_, event_));
  return ms;
}

TextureObject::TextureObject(const cudaResourceDesc& resource, const cudaTextureDesc& texture) {
  CUDA_CHECK(cudaCreateTextureObject(&texture_, &resource, &texture, nullptr));
}
TextureObject::~TextureObject() { (void)cudaDestroyTextureObject(texture_); }

}  // namespace parfilter::cuda
