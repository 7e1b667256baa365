#include "cl_runtime.hpp"

#include <memory>

#include "filter_math.hpp"
#include "kernel_sources.hpp"

namespace parfilter::opencl {
namespace {

constexpr std::string_view kCommonSource = "common";
/// Freed host-mapped image buffers kept for reuse: a batch's window of images, with room.
constexpr std::size_t kCachedHostBytes = std::size_t{2} << 30;

/// The constants of the spec that every kernel may use, from the host's own definitions, so
/// that no kernel restates them. The kernels are OpenCL C 1.2, which every driver compiles.
const std::string& common_options() {
  static const std::string options = [] {
    Defines d;
    d.add("GRAY_R", kGrayR).add("GRAY_G", kGrayG).add("GRAY_B", kGrayB);
    d.add("GRAY_SHIFT", kGrayShift).add("BINS", kHistogramBins);
    d.add("GAUSSIAN_RADIUS", kGaussianRadius).add("GAUSSIAN_SHIFT", kGaussianShift);
    d.add("BORDER_REPLICATE", static_cast<int>(BorderKind::replicate));
    d.add("BORDER_REFLECT101", static_cast<int>(BorderKind::reflect101));
    d.add("BORDER_CONSTANT", static_cast<int>(BorderKind::constant));
    d.add("SOBEL_MAGNITUDE", static_cast<int>(SobelOutput::magnitude));
    d.add("SOBEL_L1", static_cast<int>(SobelOutput::l1));
    d.add("SOBEL_DX", static_cast<int>(SobelOutput::dx));
    d.add("SOBEL_DY", static_cast<int>(SobelOutput::dy));
    return "-cl-std=CL1.2" + d.text();
  }();
  return options;
}

}  // namespace

std::string_view kernel_source(std::string_view name) {
  for (const KernelSource& source : kernel_sources()) {
    if (source.name == name) return source.text;
  }
  throw std::logic_error("no OpenCL kernel source " + std::string(name));
}

Runtime& Runtime::of(cl_device_id device) {
  // Never destroyed: releasing OpenCL objects while the process exits can race the driver's
  // own teardown.
  static auto* runtimes = new std::map<cl_device_id, std::unique_ptr<Runtime>>();
  static std::mutex mutex;
  const std::scoped_lock lock(mutex);
  auto it = runtimes->find(device);
  if (it == runtimes->end())
    it = runtimes->emplace(device, std::make_unique<Runtime>(device)).first;
  return *it->second;
}

Runtime::Runtime(cl_device_id device)
    : device_(device),
      context_(create_checked<cl_context>("clCreateContext",
                                          [&](cl_int* error) {
                                            return clCreateContext(nullptr, 1, &device, nullptr,
                                                                   nullptr, error);
                                          })),
      programs_(context_, device, default_cache_dir()) {
  cl_uint units = 1;
  check(clGetDeviceInfo(device, CL_DEVICE_MAX_COMPUTE_UNITS, sizeof(units), &units, nullptr),
        "clGetDeviceInfo(CL_DEVICE_MAX_COMPUTE_UNITS)");
  compute_units_ = units;
  cl_device_type type = 0;
  check(clGetDeviceInfo(device, CL_DEVICE_TYPE, sizeof(type), &type, nullptr),
        "clGetDeviceInfo(CL_DEVICE_TYPE)");
  cpu_schedules_ = (type & CL_DEVICE_TYPE_CPU) != 0;
  host_pool_ = std::make_shared<HostPool>(context_, device, kCachedHostBytes);
  host_results_ = HostPool::results_of(host_pool_);
}

cl_kernel Runtime::kernel(std::string_view program, std::string_view kernel, const Defines& defines,
                          double* build_ms) {
  const std::string options = common_options() + defines.text();
  std::string key(program);
  key.append("|").append(options).append("|").append(kernel);
  if (const auto it = kernels_.find(key); it != kernels_.end()) return it->second.get();
  std::string source(kernel_source(kCommonSource));
  source.append("\n").append(kernel_source(program));
  const Program& built = programs_.get(program, source, options, build_ms);
  const std::string name(kernel);
  Kernel created = create_checked<cl_kernel>(
      call_name("clCreateKernel", kernel),
      [&](cl_int* error) { return clCreateKernel(built.get(), name.c_str(), error); });
  return kernels_.emplace(key, std::move(created)).first->second.get();
}

}  // namespace parfilter::opencl
