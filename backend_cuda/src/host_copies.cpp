#include "host_copies.hpp"

#include <algorithm>
#include <cstring>
#include <thread>
#include <vector>

#include "cuda_util.hpp"

namespace parfilter::cuda {
namespace {

/// A staging copy is split over up to this many threads, in parts of at least kMinStagingPart
/// (below that, starting a thread costs more than it saves).
constexpr std::size_t kStagingThreads = 4;
constexpr std::size_t kMinStagingPart = std::size_t{4} << 20;

}  // namespace

void copy_rows(void* dst, std::size_t dst_pitch, const void* src, std::size_t src_pitch,
               std::size_t row_bytes, std::size_t rows, cudaMemcpyKind kind, cudaStream_t stream) {
  if (dst_pitch == row_bytes && src_pitch == row_bytes) {
    CUDA_CHECK(cudaMemcpyAsync(dst, src, row_bytes * rows, kind, stream));
  } else {
    CUDA_CHECK(cudaMemcpy2DAsync(dst, dst_pitch, src, src_pitch, row_bytes, rows, kind, stream));
  }
}

void staging_copy(std::uint8_t* dst, const std::uint8_t* src, std::size_t bytes) {
  const std::size_t parts = std::clamp<std::size_t>(bytes / kMinStagingPart, 1, kStagingThreads);
  const std::size_t part = (bytes + parts - 1) / parts;
  std::vector<std::jthread> helpers;  // joined on return
  for (std::size_t i = 1; i < parts; ++i) {
    const std::size_t begin = i * part;
    helpers.emplace_back(
        [=] { std::memcpy(dst + begin, src + begin, std::min(part, bytes - begin)); });
  }
  std::memcpy(dst, src, std::min(part, bytes));
}

}  // namespace parfilter::cuda
