// Backend instances for the module's calls, created once per (name, threads) and lent to one
// call at a time: a backend's run is not meant to be entered by two threads at once, and
// creating one (an OpenCL context, a thread pool) costs far more than a small image's filter.
#pragma once

#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "parfilter/backend.hpp"

namespace parfilter::python {

class BackendPool {
 public:
  /// The idle backends of one (name, threads): found once by a prepared chain, which then
  /// leases from it without building its key or searching the pool again. Never moves.
  struct Slot {
    const BackendInfo* info = nullptr;
    int workers = 0;  ///< BackendOptions::threads of its backends
    std::vector<std::unique_ptr<Backend>> idle;
  };

  /// A backend lent to one call; it goes back to the pool when the lease ends.
  class Lease {
   public:
    Lease(BackendPool& pool, Slot& slot, std::unique_ptr<Backend> backend)
        : pool_(&pool), slot_(&slot), backend_(std::move(backend)) {}
    Lease(const Lease&) = delete;
    Lease& operator=(const Lease&) = delete;
    Lease(Lease&&) noexcept = default;
    Lease& operator=(Lease&&) noexcept = delete;
    ~Lease();
    [[nodiscard]] Backend& operator*() const { return *backend_; }
    [[nodiscard]] Backend* operator->() const { return backend_.get(); }

   private:
    BackendPool* pool_;
    Slot* slot_;
    std::unique_ptr<Backend> backend_;
  };

  /// The slot of backend `name` with `threads` workers (0: every hardware thread). Throws
  /// UsageError for a name this build does not have or a backend that cannot run inside
  /// Python (mpi).
  [[nodiscard]] Slot& slot(const std::string& name, int threads);
  /// An idle backend of the slot, or a new one.
  [[nodiscard]] Lease lease(Slot& slot);
  [[nodiscard]] Lease lease(const std::string& name, int threads) {
    return lease(slot(name, threads));
  }

  /// The pool every call of the module shares.
  [[nodiscard]] static BackendPool& shared();

 private:
  void give_back(Slot& slot, std::unique_ptr<Backend> backend);

  std::mutex mutex_;
  std::map<std::string, Slot, std::less<>> slots_;
};

/// The registered backends that can run inside Python (not the distributed ones), in order.
[[nodiscard]] std::vector<std::string> embeddable_backend_names();

/// The registered backend `name`, refusing one that cannot run inside Python; UsageError.
[[nodiscard]] const BackendInfo& embeddable_backend(const std::string& name);

}  // namespace parfilter::python
