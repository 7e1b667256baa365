#include "backend_pool.hpp"

#include <string_view>

#include "parfilter/error.hpp"

namespace parfilter::python {

std::vector<std::string> embeddable_backend_names() {
  std::vector<std::string> names;
  for (const BackendInfo& info : registered_backends()) {
    if (!info.distributed) names.emplace_back(info.name);
  }
  return names;
}

const BackendInfo& embeddable_backend(const std::string& name) {
  const BackendInfo* info = find_backend(name);
  if (info == nullptr) {
    std::string built;
    for (const std::string& each : embeddable_backend_names()) {
      built += (built.empty() ? "" : ", ") + each;
    }
    throw UsageError("backend '" + name + "' is not in this build (built: " + built + ")");
  }
  if (info->distributed) {
    throw UsageError("backend '" + name + "' spreads work over MPI processes: run parfilter-" +
                     name + " under mpirun; from Python use one of parfilter.backends()");
  }
  return *info;
}

BackendPool::Lease::~Lease() {
  if (backend_) pool_->give_back(*slot_, std::move(backend_));
}

BackendPool::Slot& BackendPool::slot(const std::string& name, int threads) {
  const BackendInfo& info = embeddable_backend(name);
  // A backend without worker threads is the same whatever was asked.
  const int workers = info.threaded ? threads : 0;
  const std::string key = name + "/" + std::to_string(workers);
  const std::lock_guard lock(mutex_);
  Slot& slot = slots_[key];
  slot.info = &info;
  slot.workers = workers;
  return slot;
}

BackendPool::Lease BackendPool::lease(Slot& slot) {
  {
    const std::lock_guard lock(mutex_);
    if (!slot.idle.empty()) {
      std::unique_ptr<Backend> backend = std::move(slot.idle.back());
      slot.idle.pop_back();
      return {*this, slot, std::move(backend)};
    }
  }
  BackendOptions options;
  options.threads = slot.workers;
  return {*this, slot, slot.info->create(options)};
}

void BackendPool::give_back(Slot& slot, std::unique_ptr<Backend> backend) {
  const std::lock_guard lock(mutex_);
  slot.idle.push_back(std::move(backend));
}

BackendPool& BackendPool::shared() {
  // Never destroyed: a device backend's teardown at interpreter exit would race the driver's.
  static auto* pool = new BackendPool;
  return *pool;
}

}  // namespace parfilter::python
