// The serial backend: every op on one thread, with the shared row kernels.
#pragma once

#include <memory>

#include "parfilter/backend.hpp"

namespace parfilter {

/// options.threads is ignored: serial always runs one thread.
[[nodiscard]] std::unique_ptr<Backend> make_serial_backend(const BackendOptions& options);

}  // namespace parfilter
