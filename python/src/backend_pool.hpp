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
  /// A backend lent to one call; it goes back to the pool when the lease ends.
  class Lease {
   public:
    Lease(BackendPool& pool, std::string key, std::unique_ptr<Backend> backend)
        : pool_(&pool), key_(std::move(key)), backend_(std::move(backend)) {}
    Lease(const Lease&) = delete;
    Lease& operator=(const Lease&) = delete;
    Lease(Lease&&) noexcept = default;
    Lease& operator=(Lease&&) noexcept = delete;
    ~Lease();
    [[nodiscard]] Backend& operator*() const { return *backend_; }
    [[nodiscard]] Backend* operator->() const { return backend_.get(); }

   private:
    BackendPool* pool_;
    std::string key_;
    std::unique_ptr<Backend> backend_;
  };

  /// An idle backend called `name` with `threads` workers (0: every hardware thread), or a new
  /// one. Throws UsageError for a name this build does not have or a backend that cannot run
  /// inside Python (mpi).
  [[nodiscard]] Lease lease(const std::string& name, int threads);

  /// The pool every call of the module shares.
  [[nodiscard]] static BackendPool& shared();

 private:
  void give_back(const std::string& key, std::unique_ptr<Backend> backend);

  std::mutex mutex_;
  std::map<std::string, std::vector<std::unique_ptr<Backend>>> idle_;
};

/// The registered backends that can run inside Python (not the distributed ones), in order.
[[nodiscard]] std::vector<std::string> embeddable_backend_names();

/// The registered backend `name`, refusing one that cannot run inside Python; UsageError.
[[nodiscard]] const BackendInfo& embeddable_backend(const std::string& name);

}  // namespace parfilter::python
