// The OpenCL C sources in backend_opencl/kernels/, embedded at build time
// (cmake/embed_kernels.cmake generates kernel_sources.cpp).
#pragma once

#include <span>
#include <string_view>

namespace parfilter::opencl {

struct KernelSource {
  std::string_view name;  ///< the file's stem: "sharpen" for kernels/sharpen.cl
  std::string_view text;
};

/// Every embedded source.
[[nodiscard]] std::span<const KernelSource> kernel_sources();

/// The source called `name`; throws std::logic_error for an unknown one.
[[nodiscard]] std::string_view kernel_source(std::string_view name);

}  // namespace parfilter::opencl
