// Chains on images already in the GPU's memory (an array library's, Backend::run_chain_on_device).
#pragma once

#include <cuda_runtime.h>

#include "cuda_ops.hpp"
#include "parfilter/backend.hpp"

namespace parfilter::cuda {

/// Runs the resolved chain on `input` on ws's stream, ordered after the work queued on
/// `caller` and before what the caller queues there next; the result is copied, packed, into
/// memory of its own (cudaMalloc), which DeviceOutput::owner frees.
[[nodiscard]] DeviceOutput run_on_device_memory(Workspace& ws, const OpChain& resolved,
                                                const DeviceImageRef& input, cudaStream_t caller);

}  // namespace parfilter::cuda
