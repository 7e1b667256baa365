// A chain checked and resolved once for a backend and thread count, then run on many arrays:
// each op function of the package keeps one per backend for its calls with every parameter at
// its default, so that a call on a small image costs little beyond the filter itself.
#pragma once

#include <nanobind/nanobind.h>

#include <string>

#include "arrays.hpp"
#include "backend_pool.hpp"
#include "parfilter/backend.hpp"

namespace parfilter::python {

class PreparedChain {
 public:
  /// Validates the chain and resolves its variants on `backend` (UsageError: a bad chain,
  /// variant or backend name). threads 0: every core, or one for a small image.
  PreparedChain(const OpChain& chain, const std::string& backend, int threads);

  /// Runs the chain on a host array (the GIL held on entry, released while it runs): the last
  /// step's result as the package returns it.
  [[nodiscard]] nb::object run(const HostArray& array) const;

 private:
  OpChain chain_;                ///< resolved
  BackendPool::Slot* slot_;      ///< the backends of (backend, threads)
  BackendPool::Slot* one_;       ///< (backend, 1), for a small image when threads is 0
  const OpTraits* last_traits_;  ///< the last step's: what the result holds
};

}  // namespace parfilter::python
