// The OpenCL backend: every op as OpenCL C kernels on any OpenCL device (a GPU, or PoCL on the
// CPU). docs/OPENCL.md describes its variants, device choice and program cache.
#pragma once

#include <memory>

#include "parfilter/backend.hpp"

namespace parfilter {

/// options.platform / options.device (or PARFILTER_OPENCL_DEVICE) choose the device; without
/// one, availability() says why. options.threads: a batch's decode and encode threads.
[[nodiscard]] std::unique_ptr<Backend> make_opencl_backend(const BackendOptions& options);

}  // namespace parfilter
