#include "cl_runtime.hpp"

#include <memory>

#include "filter_math.hpp"
#include "kernel_sources.hpp"

namespace parfilter::opencl {
namespace {

constexpr std::string_view kCommonSource = "common";
constexpr double kNsPerMs = 1e6;
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

std::size_t round_up(std::size_t n, std::size_t multiple) {
  return (n + multiple - 1) / multiple * multiple;
}

double event_ms(cl_event event) {
  cl_ulong start = 0;
  cl_ulong end = 0;
  check(clGetEventProfilingInfo(event, CL_PROFILING_COMMAND_START, sizeof(start), &start, nullptr),
        "clGetEventProfilingInfo");
  check(clGetEventProfilingInfo(event, CL_PROFILING_COMMAND_END, sizeof(end), &end, nullptr),
        "clGetEventProfilingInfo");
  return end > start ? static_cast<double>(end - start) / kNsPerMs : 0.0;
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
      queue_(create_checked<cl_command_queue>(
          "clCreateCommandQueue",
          [&](cl_int* error) {
            return clCreateCommandQueue(context_.get(), device, CL_QUEUE_PROFILING_ENABLE, error);
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
}

cl_kernel Runtime::kernel(std::string_view program, std::string_view kernel,
                          const Defines& defines) {
  const std::string options = common_options() + defines.text();
  std::string key(program);
  key.append("|").append(options).append("|").append(kernel);
  if (const auto it = kernels_.find(key); it != kernels_.end()) return it->second.get();
  std::string source(kernel_source(kCommonSource));
  source.append("\n").append(kernel_source(program));
  const Program& built = programs_.get(program, source, options, &build_ms_);
  const std::string name(kernel);
  Kernel created = create_checked<cl_kernel>(
      call_name("clCreateKernel", kernel),
      [&](cl_int* error) { return clCreateKernel(built.get(), name.c_str(), error); });
  return kernels_.emplace(key, std::move(created)).first->second.get();
}

void Runtime::enqueue(cl_kernel kernel, std::string_view name, Range items, Range local) {
  const std::size_t global[] = {round_up(items.x, local.x), round_up(items.y, local.y)};
  const std::size_t group[] = {local.x, local.y};
  constexpr cl_uint kDims = 2;
  check(clEnqueueNDRangeKernel(queue(), kernel, kDims, nullptr, global, group, 0, nullptr,
                               track(Stage::compute)),
        call_name("clEnqueueNDRangeKernel", name));
}

Buffer Runtime::buffer(std::size_t bytes, std::string_view what) {
  for (PooledBuffer& pooled : pool_) {
    if (!pooled.in_use && pooled.bytes == bytes) {
      pooled.in_use = true;
      return pooled.buffer;
    }
  }
  Buffer created = create_checked<cl_mem>(call_name("clCreateBuffer", what), [&](cl_int* error) {
    return clCreateBuffer(context(), CL_MEM_READ_WRITE, bytes, nullptr, error);
  });
  pool_.push_back({bytes, created, true});
  return created;
}

Buffer Runtime::upload(const void* data, std::size_t bytes, std::string_view what) {
  Buffer created = buffer(bytes, what);
  // Blocking: callers upload tables that live on their stack.
  check(clEnqueueWriteBuffer(queue(), created.get(), CL_TRUE, 0, bytes, data, 0, nullptr,
                             track(Stage::upload)),
        call_name("clEnqueueWriteBuffer", what));
  return created;
}

void Runtime::download(const Buffer& buffer, void* data, std::size_t bytes, std::string_view what) {
  check(clEnqueueReadBuffer(queue(), buffer.get(), CL_TRUE, 0, bytes, data, 0, nullptr,
                            track(Stage::download)),
        call_name("clEnqueueReadBuffer", what));
}

void Runtime::zero(const Buffer& buffer, std::size_t bytes, std::string_view what) {
  const cl_uchar pattern = 0;
  check(clEnqueueFillBuffer(queue(), buffer.get(), &pattern, sizeof(pattern), 0, bytes, 0, nullptr,
                            track(Stage::compute)),
        call_name("clEnqueueFillBuffer", what));
}

cl_event* Runtime::track(Stage stage) {
  events_.emplace_back(stage, Event());
  return events_.back().second.out();
}

void Runtime::begin_run() {
  events_.clear();
  build_ms_ = 0.0;
  // Keep what the last run used (the next run of the same op and size needs the same
  // buffers), release the rest; the last run ended with its queue finished.
  std::erase_if(pool_, [](const PooledBuffer& pooled) { return !pooled.in_use; });
  for (PooledBuffer& pooled : pool_) pooled.in_use = false;
}

void Runtime::end_run(StageTimes* times) {
  check(clFinish(queue()), "clFinish");
  if (times != nullptr) {
    double upload = 0.0;
    double compute = 0.0;
    double download = 0.0;
    for (const auto& [stage, event] : events_) {
      const double ms = event_ms(event.get());
      (stage == Stage::upload ? upload : stage == Stage::compute ? compute : download) += ms;
    }
    times->compute_ms = compute;
    times->upload_ms = upload;
    times->download_ms = download;
    times->build_ms = build_ms_;
  }
  events_.clear();
}

}  // namespace parfilter::opencl
