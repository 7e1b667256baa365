// 16-bit images on the CUDA device (deep_device.cpp).
#pragma once

#include "cuda_ops.hpp"
#include "parfilter/backend.hpp"

namespace parfilter::cuda {

/// The chain's steps (variants resolved) on a 16-bit image, on `ws`'s stream: one upload, the
/// steps' kernels (kernels/deep_filters.cu, kernels/deep_levels.cu), one download into memory from
/// `results` (null: the heap). Waits for the stream and fills `times`.
[[nodiscard]] OpOutput run_chain_16(Workspace& ws, const OpChain& resolved, const Image& input,
                                    const std::shared_ptr<SampleAllocator>& results,
                                    StageTimes* times);

/// The chain's steps on a 16-bit image in device memory (an array's, which they only read), on
/// ws's stream; the result is copied, packed, into memory DeviceOutput::owner frees. Waits
/// for the stream.
[[nodiscard]] DeviceOutput run_chain_16_on_device(Workspace& ws, const OpChain& resolved,
                                                  const DeviceImageRef& input);

}  // namespace parfilter::cuda
