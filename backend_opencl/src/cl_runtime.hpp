// One device's OpenCL state, shared by every backend instance of the process: the context, a
// profiling in-order queue, the program cache and the kernels. Ops enqueue through it, so that
// every upload, kernel and download is timed by its profiling event and every error names the
// call and the kernel.
#pragma once

#include <cstddef>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "cl_api.hpp"
#include "host_pool.hpp"
#include "parfilter/backend.hpp"
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
    text_.append(" -D ").append(name).append("=").append(std::to_string(value));
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
  enum class Stage { upload, compute, download };

  /// The process-wide runtime of `device`, created on first use and kept until exit.
  static Runtime& of(cl_device_id device);

  explicit Runtime(cl_device_id device);

  [[nodiscard]] cl_device_id device() const { return device_; }
  [[nodiscard]] cl_context context() const { return context_.get(); }
  [[nodiscard]] const Context& context_handle() const { return context_; }
  [[nodiscard]] cl_command_queue queue() const { return queue_.get(); }
  [[nodiscard]] ProgramCache& programs() { return programs_; }
  [[nodiscard]] std::size_t compute_units() const { return compute_units_; }
  /// Page-locked, host-mapped buffers for images (inputs decoded into them, results read
  /// back into them).
  [[nodiscard]] const std::shared_ptr<HostPool>& host_pool() const { return host_pool_; }
  /// Whether to run the schedules that suit a CPU (PoCL) rather than a GPU where an op has
  /// both: true on a CPU device. Tests flip it to run the other kind's schedules too.
  [[nodiscard]] bool cpu_schedules() const { return cpu_schedules_; }
  void set_cpu_schedules(bool cpu) { cpu_schedules_ = cpu; }
  /// Serializes runs: the kernels' arguments and the timing are per runtime.
  [[nodiscard]] std::mutex& mutex() { return mutex_; }

  /// Kernel `kernel` of kernels/<program>.cl (prefixed with kernels/common.cl), built with
  /// `defines` and the constants every program gets.
  cl_kernel kernel(std::string_view program, std::string_view kernel, const Defines& defines);

  /// Sets the arguments and enqueues `kernel` over `items` work items (rounded up to whole
  /// work-groups of `local`; kernels check their bounds).
  template <typename... Args>
  void run(std::string_view program, std::string_view name, const Defines& defines, Range items,
           Range local, const Args&... args) {
    cl_kernel k = kernel(program, name, defines);
    cl_uint index = 0;
    (set_arg(k, name, index++, args), ...);
    enqueue(k, name, items, local);
  }

  /// A device buffer of `bytes` for this run: one the previous run used, when its size
  /// matches, else a new one (allocation and first touch cost more than the kernels of a
  /// small op).
  [[nodiscard]] Buffer buffer(std::size_t bytes, std::string_view what);
  /// A new buffer holding `bytes` of host data, written before it returns (timed as upload).
  [[nodiscard]] Buffer upload(const void* data, std::size_t bytes, std::string_view what);
  /// Blocking read (timed as download).
  void download(const Buffer& buffer, void* data, std::size_t bytes, std::string_view what);
  /// Sets a buffer to zero (timed as compute).
  void zero(const Buffer& buffer, std::size_t bytes, std::string_view what);

  /// An event slot for a command enqueued by hand, timed as `stage`. Use it at once.
  cl_event* track(Stage stage);

  /// Starts timing a run: forgets earlier events and build time.
  void begin_run();
  /// Waits for the queue and fills `times` (when given) from the events of this run.
  void end_run(StageTimes* times);
  /// Time spent building or loading programs during this run.
  double* build_ms() { return &build_ms_; }

 private:
  static void set_arg(cl_kernel kernel, std::string_view name, cl_uint index,
                      const Buffer& buffer) {
    const cl_mem mem = buffer.get();
    check(clSetKernelArg(kernel, index, sizeof(mem), &mem), call_name("clSetKernelArg", name));
  }
  static void set_arg(cl_kernel kernel, std::string_view name, cl_uint index, LocalBytes local) {
    check(clSetKernelArg(kernel, index, local.bytes, nullptr), call_name("clSetKernelArg", name));
  }
  template <typename T>
  requires std::is_trivially_copyable_v<T>
  static void set_arg(cl_kernel kernel, std::string_view name, cl_uint index, const T& value) {
    check(clSetKernelArg(kernel, index, sizeof(T), &value), call_name("clSetKernelArg", name));
  }
  void enqueue(cl_kernel kernel, std::string_view name, Range items, Range local);

  cl_device_id device_;
  Context context_;
  Queue queue_;
  ProgramCache programs_;
  std::map<std::string, Kernel> kernels_;  ///< by program, defines and kernel name
  std::vector<std::pair<Stage, Event>> events_;
  struct PooledBuffer {
    std::size_t bytes;
    Buffer buffer;
    bool in_use;
  };
  std::vector<PooledBuffer> pool_;
  double build_ms_ = 0.0;
  std::size_t compute_units_ = 1;
  bool cpu_schedules_ = false;
  std::mutex mutex_;
  std::shared_ptr<HostPool> host_pool_;
};

}  // namespace parfilter::opencl
