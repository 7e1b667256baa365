#include "host_pool.hpp"

#include <memory>
#include <new>
#include <utility>

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
  if (void* p = cached(bytes)) return p;
  std::unique_lock mapping(mapping_, std::try_to_lock);
  if (mapping.owns_lock()) return map_new(bytes);
  void* p = ::operator new(bytes);
  const std::scoped_lock lock(mutex_);
  heap_.insert(p);
  return p;
}

void* HostPool::allocate_mapped(std::size_t bytes) {
  if (void* p = cached(bytes)) return p;
  const std::scoped_lock mapping(mapping_);
  return map_new(bytes);
}

void* HostPool::cached(std::size_t bytes) {
  const std::scoped_lock lock(mutex_);
  const auto fit = free_.lower_bound(bytes);
  if (fit == free_.end() || fit->first > bytes * kMaxSlack) return nullptr;
  void* p = fit->second;
  cached_ -= fit->first;
  free_.erase(fit);
  return p;
}

void* HostPool::map_new(std::size_t bytes) {
  cl_int error = CL_SUCCESS;
  Buffer buffer(clCreateBuffer(context_.get(), CL_MEM_READ_WRITE | CL_MEM_ALLOC_HOST_PTR, bytes,
                               nullptr, &error));
  if (error != CL_SUCCESS) throw std::bad_alloc();
  void* p = clEnqueueMapBuffer(queue_.get(), buffer.get(), CL_TRUE, CL_MAP_READ | CL_MAP_WRITE, 0,
                               bytes, 0, nullptr, nullptr, &error);
  if (error != CL_SUCCESS || p == nullptr) throw std::bad_alloc();
  const std::scoped_lock lock(mutex_);
  mapped_.emplace(p, Mapped{std::move(buffer), bytes});
  return p;
}

void HostPool::deallocate(void* p, std::size_t /*bytes*/) noexcept {
  std::unique_lock lock(mutex_);
  if (heap_.erase(p) > 0) {
    lock.unlock();
    ::operator delete(p);
    return;
  }
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

bool HostPool::is_mapped(const void* p) {
  const std::scoped_lock lock(mutex_);
  return mapped_.contains(const_cast<void*>(p));
}

namespace {

class MappedResults final : public SampleAllocator {
 public:
  explicit MappedResults(std::shared_ptr<HostPool> pool) : pool_(std::move(pool)) {}
  [[nodiscard]] void* allocate(std::size_t bytes) override { return pool_->allocate_mapped(bytes); }
  void deallocate(void* p, std::size_t bytes) noexcept override { pool_->deallocate(p, bytes); }

 private:
  std::shared_ptr<HostPool> pool_;
};

}  // namespace

std::shared_ptr<SampleAllocator> HostPool::results_of(std::shared_ptr<HostPool> pool) {
  return std::make_shared<MappedResults>(std::move(pool));
}

void HostPool::release(void* p, Mapped& mapped) noexcept {
  (void)clEnqueueUnmapMemObject(queue_.get(), mapped.buffer.get(), p, 0, nullptr, nullptr);
  (void)clFinish(queue_.get());
}

}  // namespace parfilter::opencl
