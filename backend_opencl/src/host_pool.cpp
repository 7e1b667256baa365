#include "host_pool.hpp"

#include <new>

namespace parfilter::opencl {
namespace {

/// A cached buffer serves a request down to half its size: a little slack, never a large waste.
constexpr std::size_t kMaxSlack = 2;

}  // namespace

HostPool::HostPool(const Context& context, cl_device_id device, std::size_t cached_bytes)
    : context_(context),
      queue_(create_checked<cl_command_queue>(
          "clCreateCommandQueue",
          [&](cl_int* error) { return clCreateCommandQueue(context.get(), device, 0, error); })),
      cap_(cached_bytes) {}

HostPool::~HostPool() {
  for (auto& [p, mapped] : mapped_) release(p, mapped);
}

void* HostPool::allocate(std::size_t bytes) {
  {
    const std::scoped_lock lock(mutex_);
    const auto fit = free_.lower_bound(bytes);
    if (fit != free_.end() && fit->first <= bytes * kMaxSlack) {
      void* p = fit->second;
      cached_ -= fit->first;
      free_.erase(fit);
      return p;
    }
  }
  cl_int error = CL_SUCCESS;
  Buffer buffer(clCreateBuffer(context_.get(), CL_MEM_READ_WRITE | CL_MEM_ALLOC_HOST_PTR, bytes,
                               nullptr, &error));
  if (error != CL_SUCCESS) throw std::bad_alloc();
  const std::scoped_lock lock(mutex_);
  void* p = clEnqueueMapBuffer(queue_.get(), buffer.get(), CL_TRUE, CL_MAP_READ | CL_MAP_WRITE, 0,
                               bytes, 0, nullptr, nullptr, &error);
  if (error != CL_SUCCESS || p == nullptr) throw std::bad_alloc();
  mapped_.emplace(p, Mapped{std::move(buffer), bytes});
  return p;
}

void HostPool::deallocate(void* p, std::size_t /*bytes*/) noexcept {
  const std::scoped_lock lock(mutex_);
  const auto found = mapped_.find(p);
  if (found == mapped_.end()) return;
  const std::size_t size = found->second.bytes;
  if (cached_ + size <= cap_) {
    cached_ += size;
    free_.emplace(size, p);
    return;
  }
  release(p, found->second);
  mapped_.erase(found);
}

void HostPool::release(void* p, Mapped& mapped) noexcept {
  (void)clEnqueueUnmapMemObject(queue_.get(), mapped.buffer.get(), p, 0, nullptr, nullptr);
  (void)clFinish(queue_.get());
}

}  // namespace parfilter::opencl
