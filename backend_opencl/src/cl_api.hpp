// The one thin layer over the OpenCL C API: owning handles and error checking. Every failed
// call becomes a parfilter::RuntimeError naming the call and the error code, e.g.
// "clEnqueueNDRangeKernel(sharpen_local): CL_INVALID_WORK_GROUP_SIZE".
#pragma once

#ifndef CL_TARGET_OPENCL_VERSION
#define CL_TARGET_OPENCL_VERSION 120  // the 1.2 API: what every current driver implements
#endif
#include <CL/cl.h>

#include <string>
#include <string_view>
#include <utility>

namespace parfilter::opencl {

/// "CL_INVALID_VALUE" for CL_INVALID_VALUE, "CL error -9999" for an unknown code.
[[nodiscard]] std::string error_name(cl_int code);

/// Throws RuntimeError "<call>: <error name>".
[[noreturn]] void fail(std::string_view call, cl_int code);

/// Throws unless code is CL_SUCCESS.
inline void check(cl_int code, std::string_view call) {
  if (code != CL_SUCCESS) fail(call, code);
}

/// "<function>(<what>)": the call named in an error message.
[[nodiscard]] std::string call_name(std::string_view function, std::string_view what);

/// How to retain and release each OpenCL object type.
template <typename T>
struct HandleTraits;
#define PARFILTER_CL_HANDLE_TRAITS(type, retain_fn, release_fn)       \
  template <>                                                         \
  struct HandleTraits<type> {                                         \
    static cl_int retain(type object) { return retain_fn(object); }   \
    static cl_int release(type object) { return release_fn(object); } \
  }
PARFILTER_CL_HANDLE_TRAITS(cl_context, clRetainContext, clReleaseContext);
PARFILTER_CL_HANDLE_TRAITS(cl_command_queue, clRetainCommandQueue, clReleaseCommandQueue);
PARFILTER_CL_HANDLE_TRAITS(cl_program, clRetainProgram, clReleaseProgram);
PARFILTER_CL_HANDLE_TRAITS(cl_kernel, clRetainKernel, clReleaseKernel);
PARFILTER_CL_HANDLE_TRAITS(cl_mem, clRetainMemObject, clReleaseMemObject);
PARFILTER_CL_HANDLE_TRAITS(cl_event, clRetainEvent, clReleaseEvent);
#undef PARFILTER_CL_HANDLE_TRAITS

/// An owning, reference-counted OpenCL object: copying retains, destruction releases.
template <typename T>
class Handle {
 public:
  Handle() = default;
  /// Takes ownership of `object` (a reference the caller got from a create call).
  explicit Handle(T object) : object_(object) {}
  Handle(const Handle& other) : object_(other.object_) {
    if (object_ != nullptr) (void)HandleTraits<T>::retain(object_);
  }
  Handle(Handle&& other) noexcept : object_(std::exchange(other.object_, nullptr)) {}
  Handle& operator=(Handle other) noexcept {
    std::swap(object_, other.object_);
    return *this;
  }
  ~Handle() {
    if (object_ != nullptr) (void)HandleTraits<T>::release(object_);
  }

  [[nodiscard]] T get() const { return object_; }
  /// For create calls that write the object through a pointer; releases any old one.
  [[nodiscard]] T* out() {
    *this = Handle();
    return &object_;
  }
  explicit operator bool() const { return object_ != nullptr; }

 private:
  T object_ = nullptr;
};

using Context = Handle<cl_context>;
using Queue = Handle<cl_command_queue>;
using Program = Handle<cl_program>;
using Kernel = Handle<cl_kernel>;
using Buffer = Handle<cl_mem>;  ///< a buffer or an image
using Event = Handle<cl_event>;

/// The time from a profiled command's start to its end, in ms (its queue profiles).
[[nodiscard]] double event_ms(cl_event event);

/// Calls `create(&error)` and wraps the object it returns, or throws naming `call`.
template <typename T, typename Create>
[[nodiscard]] Handle<T> create_checked(std::string_view call, Create&& create) {
  cl_int error = CL_SUCCESS;
  T object = create(&error);
  if (error != CL_SUCCESS || object == nullptr) {
    fail(call, error != CL_SUCCESS ? error : CL_INVALID_VALUE);
  }
  return Handle<T>(object);
}

}  // namespace parfilter::opencl
