// The OpenCL backend: every op as OpenCL C kernels on any OpenCL device (a GPU, or PoCL on the
// CPU). docs/OPENCL.md describes its variants, device choice and program cache.
// Named opencl_backend.hpp, not opencl.hpp, so that it is never mistaken for (or shadows)
// the Khronos C++ bindings header <CL/opencl.hpp>.
#pragma once

#include <memory>

#include "parfilter/backend.hpp"

namespace parfilter {

/// options.platform / options.device (or PARFILTER_OPENCL_DEVICE) choose the device; without
/// one, availability() says why. options.threads is ignored.
[[nodiscard]] std::unique_ptr<Backend> make_opencl_backend(const BackendOptions& options);

}  // namespace parfilter
