// One device's OpenCL state, shared by every backend instance of the process: the context, the
// program cache, the kernels and the pool of host-mapped buffers. Commands go through a Lane
// (cl_lane.hpp), each with its own queue, so that several images can be in flight at once.
#pragma once

#include <atomic>
#include <cstddef>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>

#include "cl_api.hpp"
#include "host_pool.hpp"
#include "program_cache.hpp"

namespace parfilter::opencl {

/// A work size in up to two dimensions (y = 1 for one).
struct Range {
  std::size_t x = 1;
  std::size_t y = 1;
};

/// Build options: "-D NAME=VALUE" pairs, OpenCV style.
class Defines {
 public:
  Defines& add(std::string_view name, long long value) {
    return add(name, std::string_view(std::to_string(value)));
  }
  /// A value spelled out: a brace list, say (no spaces).
  Defines& add(std::string_view name, std::string_view value) {
    text_.append(" -D ").append(name).append("=").append(value);
    return *this;
  }
  [[nodiscard]] const std::string& text() const { return text_; }

 private:
  std::string text_;
};

/// Local memory of `bytes` for a __local kernel argument.
struct LocalBytes {
  std::size_t bytes;
};

class Runtime {
 public:
  /// The process-wide runtime of `device`, created on first use and kept until exit.
  static Runtime& of(cl_device_id device);

  explicit Runtime(cl_device_id device);

  [[nodiscard]] cl_device_id device() const { return device_; }
  [[nodiscard]] cl_context context() const { return context_.get(); }
  [[nodiscard]] const Context& context_handle() const { return context_; }
  [[nodiscard]] ProgramCache& programs() { return programs_; }
  [[nodiscard]] std::size_t compute_units() const { return compute_units_; }
  /// CL_DEVICE_LOCAL_MEM_SIZE: the most local memory one work-group may use.
  [[nodiscard]] std::size_t local_memory_bytes() const { return local_memory_bytes_; }
  /// CL_DEVICE_MAX_WORK_GROUP_SIZE: the most work items in one work-group.
  [[nodiscard]] std::size_t max_work_group() const { return max_work_group_; }
  /// Page-locked, host-mapped buffers for images (inputs decoded into them, results read
  /// back into them).
  [[nodiscard]] const std::shared_ptr<HostPool>& host_pool() const { return host_pool_; }
  /// The same pool, every buffer mapped: where a result that has no input buffer to reuse goes.
  [[nodiscard]] const std::shared_ptr<SampleAllocator>& host_results() const {
    return host_results_;
  }
  /// Whether to run the schedules that suit a CPU (PoCL) rather than a GPU where an op has
  /// both: true on a CPU device. Tests flip it to run the other kind's schedules too.
  [[nodiscard]] bool cpu_schedules() const { return cpu_schedules_; }
  void set_cpu_schedules(bool cpu) { cpu_schedules_ = cpu; }
  /// Guards the programs and kernels: a kernel object's arguments are set and it is enqueued
  /// under it, so that lanes on several threads never interleave two launches' arguments.
  [[nodiscard]] std::mutex& mutex() { return mutex_; }

  /// Kernel `kernel` of kernels/<program>.cl (prefixed with kernels/common.cl), built with
  /// `defines` and the constants every program gets; adds any build time to *build_ms. The
  /// caller holds mutex().
  cl_kernel kernel(std::string_view program, std::string_view kernel, const Defines& defines,
                   double* build_ms);
  /// Whether the kernels use NVIDIA's packed 16-bit PTX (common.cl, PTX_PACKED): on an NVIDIA
  /// device whose compiler takes it, unless PARFILTER_OPENCL_PTX=0. Probed on first use; the
  /// caller holds mutex().
  [[nodiscard]] bool ptx_packed();

 private:
  cl_device_id device_;
  Context context_;
  ProgramCache programs_;
  std::map<std::string, Kernel> kernels_;  ///< by program, defines and kernel name
  std::size_t compute_units_ = 1;
  std::size_t local_memory_bytes_ = 0;
  std::size_t max_work_group_ = 1;
  std::atomic<bool> cpu_schedules_ = false;
  std::string vendor_;              ///< CL_DEVICE_VENDOR
  std::optional<bool> ptx_packed_;  ///< once probed
  std::mutex mutex_;
  std::shared_ptr<HostPool> host_pool_;
  std::shared_ptr<SampleAllocator> host_results_;
};

}  // namespace parfilter::opencl
