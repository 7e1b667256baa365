// 16-bit images on the OpenCL device (deep_device.cpp).
#pragma once

#include "cl_lane.hpp"
#include "parfilter/backend.hpp"

namespace parfilter::opencl {

/// The chain's steps (variants resolved) on a 16-bit image, on `lane`: one upload, the steps'
/// kernels (kernels/deep.cl), one download. Waits for the lane and fills `times`.
[[nodiscard]] OpOutput run_chain_16(Lane& lane, const OpChain& resolved, const Image& input,
                                    StageTimes* times);

}  // namespace parfilter::opencl
