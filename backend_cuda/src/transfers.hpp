// A transfer between host and device of an image's pitched rows.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>

namespace parfilter::cuda {

/// Copies `rows` rows of `row_bytes` between pitched buffers on `stream`: one 1-D copy when
/// both pitches are the row's length (the DMA engines move a contiguous block faster than
/// many rows), else a 2-D one.
void copy_rows(void* dst, std::size_t dst_pitch, const void* src, std::size_t src_pitch,
               std::size_t row_bytes, std::size_t rows, cudaMemcpyKind kind, cudaStream_t stream);

}  // namespace parfilter::cuda
