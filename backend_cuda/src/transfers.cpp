#include "transfers.hpp"

#include "cuda_util.hpp"

namespace parfilter::cuda {

void copy_rows(void* dst, std::size_t dst_pitch, const void* src, std::size_t src_pitch,
               std::size_t row_bytes, std::size_t rows, cudaMemcpyKind kind, cudaStream_t stream) {
  if (dst_pitch == row_bytes && src_pitch == row_bytes) {
    CUDA_CHECK(cudaMemcpyAsync(dst, src, row_bytes * rows, kind, stream));
  } else {
    CUDA_CHECK(cudaMemcpy2DAsync(dst, dst_pitch, src, src_pitch, row_bytes, rows, kind, stream));
  }
}

}  // namespace parfilter::cuda
