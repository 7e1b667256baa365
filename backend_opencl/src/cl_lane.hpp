// One image in flight on a device: an in-order profiling queue, the device buffers its commands
// use and the events that time them. The ops enqueue through a lane (ops.hpp), so that every
// transfer and kernel is timed by its profiling event and every error names the call and the
// kernel. A backend runs one lane per image it keeps in flight (opencl_backend.cpp); a lane is
// used by one thread at a time, and the runtime's mutex only guards the shared kernels.
#pragma once

#include <cstddef>
#include <deque>
#include <memory>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "cl_api.hpp"
#include "cl_runtime.hpp"
#include "parfilter/backend.hpp"

namespace parfilter::opencl {

class Lane {
 public:
  enum class Stage { upload, compute, download };

  explicit Lane(Runtime& runtime);
  Lane(const Lane&) = delete;
  Lane& operator=(const Lane&) = delete;
  /// Waits for the queue: its commands may still read host memory or buffers this lane owns.
  ~Lane();

  [[nodiscard]] Runtime& runtime() const { return runtime_; }
  [[nodiscard]] cl_command_queue queue() const { return queue_.get(); }
  [[nodiscard]] cl_device_id device() const { return runtime_.device(); }
  [[nodiscard]] cl_context context() const { return runtime_.context(); }
  [[nodiscard]] std::size_t compute_units() const { return runtime_.compute_units(); }
  [[nodiscard]] std::size_t local_memory_bytes() const { return runtime_.local_memory_bytes(); }
  [[nodiscard]] std::size_t max_work_group() const { return runtime_.max_work_group(); }
  [[nodiscard]] bool cpu_schedules() const { return runtime_.cpu_schedules(); }
  [[nodiscard]] const std::shared_ptr<HostPool>& host_pool() const { return runtime_.host_pool(); }
  [[nodiscard]] const std::shared_ptr<SampleAllocator>& host_results() const {
    return runtime_.host_results();
  }

  /// Sets the arguments and enqueues `kernel` over `items` work items (rounded up to whole
  /// work-groups of `local`; kernels check their bounds).
  template <typename... Args>
  void run(std::string_view program, std::string_view name, const Defines& defines, Range items,
           Range local, const Args&... args) {
    // The kernel object is shared by every lane: its arguments hold until it is enqueued.
    const std::scoped_lock lock(runtime_.mutex());
    cl_kernel k = runtime_.kernel(program, name, defines, &build_ms_);
    cl_uint index = 0;
    (set_arg(k, name, index++, args), ...);
    enqueue(k, name, items, local);
  }

  /// A device buffer of `bytes`: one this lane used before with that size and no live step
  /// holds, else a new one (allocation and first touch cost more than the kernels of a small
  /// op).
  [[nodiscard]] Buffer buffer(std::size_t bytes, std::string_view what);
  /// A buffer holding a copy of `bytes` of host data (a table), written without waiting: the
  /// lane keeps the copy until the image ends (timed as upload).
  [[nodiscard]] Buffer upload(const void* data, std::size_t bytes, std::string_view what);
  /// Blocking read, for host math that needs the values now (timed as download).
  void download(const Buffer& buffer, void* data, std::size_t bytes, std::string_view what);
  /// Sets a buffer to zero (timed as compute).
  void zero(const Buffer& buffer, std::size_t bytes, std::string_view what);

  /// An event slot for a command enqueued by hand, timed as `stage`. Use it at once.
  cl_event* track(Stage stage);

  /// Starts an image: forgets the previous image's events, tables and build time, and
  /// releases the buffers it did not use. The previous image has finished.
  void begin_image();
  /// Ends a step of a chain: every buffer but `keep` (the step's result) may serve the next
  /// step, as the in-order queue runs the next step's commands after this one's.
  void release_except(const Buffer& keep);
  /// Hands what is queued to the device (a driver may hold commands until a flush).
  void flush();
  /// Waits for the queue and fills `times` (when given) from this image's events.
  void finish(StageTimes* times);
  /// Waits for the queue, ignoring errors: a failed image's commands may still use its
  /// buffers and host memory.
  void drain() noexcept;

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

  struct PooledBuffer {
    std::size_t bytes;
    Buffer buffer;
    bool held;  ///< by a live step's commands or result
    bool used;  ///< during this image
  };

  Runtime& runtime_;
  Queue queue_;
  std::vector<std::pair<Stage, Event>> events_;
  std::vector<PooledBuffer> pool_;
  std::deque<std::vector<unsigned char>> tables_;  ///< host copies of this image's tables
  double build_ms_ = 0.0;
};

}  // namespace parfilter::opencl
