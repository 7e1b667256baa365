// Chains on images already in the GPU's memory (an array library's, Backend::run_chain_on_device).
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <memory>

#include "cuda_ops.hpp"
#include "parfilter/backend.hpp"

namespace parfilter::cuda {

/// Runs the resolved chain on `input` (either depth) on ws's stream, ordered after the work
/// queued on `caller` and before what the caller queues there next; the result is copied,
/// packed, into memory of its own (cudaMalloc), which DeviceOutput::owner frees.
[[nodiscard]] DeviceOutput run_on_device_memory(Workspace& ws, const OpChain& resolved,
                                                const DeviceImageRef& input, cudaStream_t caller);

/// A packed copy, enqueued on `stream`, of `height` rows of `row_bytes` lying `pitch` apart
/// from `source`, in device memory of its own that the returned owner frees.
[[nodiscard]] std::shared_ptr<void> packed_device_copy(const void* source, std::size_t pitch,
                                                       std::size_t row_bytes, int height,
                                                       cudaStream_t stream);

}  // namespace parfilter::cuda
