#include "host_pool.hpp"

#include <new>
#include <utility>

namespace parfilter::opencl {

HostPool::HostPool(const Context& context, cl_device_id device, std::size_t cached_bytes)
    : HostBufferPool(cached_bytes, true),
      context_(context),
      queue_(create_checked<cl_command_queue>("clCreateCommandQueue", [&](cl_int* error) {
        return clCreateCommandQueue(context.get(), device, 0, error);
      })) {}

HostPool::~HostPool() { release_cached(); }

void* HostPool::lock_new(std::size_t bytes) {
  cl_int error = CL_SUCCESS;
  Buffer buffer(clCreateBuffer(context_.get(), CL_MEM_READ_WRITE | CL_MEM_ALLOC_HOST_PTR, bytes,
                               nullptr, &error));
  if (error != CL_SUCCESS) throw std::bad_alloc();
  void* p = clEnqueueMapBuffer(queue_.get(), buffer.get(), CL_TRUE, CL_MAP_READ | CL_MAP_WRITE, 0,
                               bytes, 0, nullptr, nullptr, &error);
  if (error != CL_SUCCESS || p == nullptr) throw std::bad_alloc();
  const std::scoped_lock lock(mutex_);
  buffers_.emplace(p, std::move(buffer));
  return p;
}

void HostPool::unlock(void* p, std::size_t /*bytes*/) noexcept {
  Buffer buffer;
  {
    const std::scoped_lock lock(mutex_);
    const auto found = buffers_.find(p);
    if (found == buffers_.end()) return;
    buffer = std::move(found->second);
    buffers_.erase(found);
  }
  (void)clEnqueueUnmapMemObject(queue_.get(), buffer.get(), p, 0, nullptr, nullptr);
  (void)clFinish(queue_.get());
}

void PoolOnceAttached::attach(const std::shared_ptr<HostPool>& pool) {
  const std::scoped_lock lock(mutex_);
  if (!pool_) pool_ = pool;
}

void* PoolOnceAttached::allocate(std::size_t bytes) {
  std::shared_ptr<HostPool> pool;
  {
    const std::scoped_lock lock(mutex_);
    pool = pool_;
  }
  if (pool) return pool->allocate(bytes);
  return ordinary_.allocate(bytes);
}

bool PoolOnceAttached::is_locked(const void* p) {
  std::shared_ptr<HostPool> pool;
  {
    const std::scoped_lock lock(mutex_);
    pool = pool_;
  }
  return pool && pool->is_locked(p);
}

void PoolOnceAttached::deallocate(void* p, std::size_t bytes) noexcept {
  if (ordinary_.release(p)) return;
  std::shared_ptr<HostPool> pool;
  {
    const std::scoped_lock lock(mutex_);
    pool = pool_;
  }
  if (pool) pool->deallocate(p, bytes);
}

}  // namespace parfilter::opencl
