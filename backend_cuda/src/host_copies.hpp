// The host's side of a transfer: an asynchronous copy of pitched rows, and a staging copy
// between pageable and page-locked memory.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>

namespace parfilter::cuda {

/// Copies `rows` rows of `row_bytes` between pitched buffers on `stream`: one 1-D copy when
/// both pitches are the row's length (the DMA engines move a contiguous block faster than
/// many rows), else a 2-D one.
void copy_rows(void* dst, std::size_t dst_pitch, const void* src, std::size_t src_pitch,
               std::size_t row_bytes, std::size_t rows, cudaMemcpyKind kind, cudaStream_t stream);

/// Copies `bytes` from `src` to `dst` (one side a staging buffer) on a few threads: one core
/// copies about 8 GB/s, so a 28 MB image would hold a batch's one backend thread for 3.5 ms.
void staging_copy(std::uint8_t* dst, const std::uint8_t* src, std::size_t bytes);

}  // namespace parfilter::cuda
