// The CUDA backend: every op as CUDA kernels on one NVIDIA GPU. This header is plain C++ (no
// CUDA types), so that the registry and the CLI compile without the CUDA toolkit's headers.
#pragma once

#include <memory>

#include "parfilter/backend.hpp"

namespace parfilter {

/// options.device picks the GPU (index or name substring, empty = device 0); options.platform
/// must be empty, "0" or "cuda". Creating the backend touches no GPU: availability() says
/// whether one is there, and run() throws RuntimeError("no CUDA device ...") when none is.
[[nodiscard]] std::unique_ptr<Backend> make_cuda_backend(const BackendOptions& options);

}  // namespace parfilter
