#include "cl_runtime.hpp"

#include <cstdlib>
#include <memory>
#include <string>

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
    d.add("YUV_SHIFT", ycrcb::kShift).add("R2Y", ycrcb::kR2Y).add("G2Y", ycrcb::kG2Y);
    d.add("B2Y", ycrcb::kB2Y).add("CR_FROM_R_MINUS_Y", ycrcb::kCrFromRMinusY);
    d.add("CB_FROM_B_MINUS_Y", ycrcb::kCbFromBMinusY).add("CHROMA_OFFSET", ycrcb::kChromaOffset);
    d.add("R_FROM_CR", ycrcb::kRFromCr).add("G_FROM_CR", ycrcb::kGFromCr);
    d.add("G_FROM_CB", ycrcb::kGFromCb).add("B_FROM_CB", ycrcb::kBFromCb);
    return "-cl-std=CL1.2" + d.text();
  }();
  return options;
}

/// Turns the packed PTX off where set to 0 (to compare it with the portable kernels).
constexpr const char* kPtxEnvVar = "PARFILTER_OPENCL_PTX";
/// A kernel using every packed helper of common.cl: it builds where the PTX is taken.
constexpr std::string_view kPtxProbe =
    "__kernel void ptx_probe(__global uint* w) {\n"
    "  w[0] = packed_word(packed_min(packed_of(w[1]), packed_max(packed_of(w[2]), "
    "packed_of(w[3]))));\n"
    "  w[4] = (uint)gray_of_word(w[5]);\n"
    "}\n";
constexpr std::string_view kPtxOption = " -D PTX_PACKED=1";
constexpr std::string_view kNoPtxOption = " -D PTX_PACKED=0";

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
  cl_ulong local_bytes = 0;
  check(
      clGetDeviceInfo(device, CL_DEVICE_LOCAL_MEM_SIZE, sizeof(local_bytes), &local_bytes, nullptr),
      "clGetDeviceInfo(CL_DEVICE_LOCAL_MEM_SIZE)");
  local_memory_bytes_ = static_cast<std::size_t>(local_bytes);
  check(clGetDeviceInfo(device, CL_DEVICE_MAX_WORK_GROUP_SIZE, sizeof(max_work_group_),
                        &max_work_group_, nullptr),
        "clGetDeviceInfo(CL_DEVICE_MAX_WORK_GROUP_SIZE)");
  cl_device_type type = 0;
  check(clGetDeviceInfo(device, CL_DEVICE_TYPE, sizeof(type), &type, nullptr),
        "clGetDeviceInfo(CL_DEVICE_TYPE)");
  cpu_schedules_ = (type & CL_DEVICE_TYPE_CPU) != 0;
  std::size_t size = 0;
  if (clGetDeviceInfo(device, CL_DEVICE_VENDOR, 0, nullptr, &size) == CL_SUCCESS && size > 0) {
    vendor_.resize(size);
    if (clGetDeviceInfo(device, CL_DEVICE_VENDOR, size, vendor_.data(), nullptr) != CL_SUCCESS) {
      vendor_.clear();
    }
  }
  host_pool_ = std::make_shared<HostPool>(context_, device, kCachedHostBytes);
  host_results_ = HostPool::results_of(host_pool_);
}

cl_kernel Runtime::kernel(std::string_view program, std::string_view kernel, const Defines& defines,
                          double* build_ms) {
  const std::string options =
      common_options() + std::string(ptx_packed() ? kPtxOption : kNoPtxOption) + defines.text();
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

bool Runtime::ptx_packed() {
  if (!ptx_packed_) {
    const char* env = std::getenv(kPtxEnvVar);
    const bool wanted = vendor_.find("NVIDIA") != std::string::npos &&
                        (env == nullptr || std::string_view(env) != "0");
    std::string source(kernel_source(kCommonSource));
    source.append("\n").append(kPtxProbe);
    ptx_packed_ =
        wanted && programs_.builds("ptx-probe", source, common_options() + std::string(kPtxOption));
  }
  return *ptx_packed_;
}

}  // namespace parfilter::opencl
