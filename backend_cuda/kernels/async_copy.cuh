// Asynchronous copies from global into shared memory (cp.async, sm_80 and later): a copy holds
// no register until its data is used, so a thread can keep many rows in flight. Destinations
// are 32-bit shared-window addresses (shared_address), which a kernel can work out once per row
// instead of converting a generic pointer per copy. GPUs before sm_80 load and store instead
// (commit and wait are then no-ops): the same results, without the overlap.
#pragma once

#include <cstdint>

namespace parfilter::cuda {

/// The shared-window address of a pointer into shared memory.
__device__ __forceinline__ unsigned int shared_address(const void* p) {
  return static_cast<unsigned int>(__cvta_generic_to_shared(p));
}

__device__ __forceinline__ void store_shared(unsigned int dst, std::uint32_t v) {
  asm volatile("st.shared.u32 [%0], %1;\n" ::"r"(dst), "r"(v) : "memory");
}

__device__ __forceinline__ uint4 load_shared(unsigned int src) {
  uint4 v;
  asm volatile("ld.shared.v4.u32 {%0, %1, %2, %3}, [%4];\n"
               : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w)
               : "r"(src)
               : "memory");
  return v;
}

/// 16 bytes, both addresses 16-byte aligned; through L2 only (.cg: rows are streamed once).
__device__ __forceinline__ void copy_async16(unsigned int dst, const void* src) {
#if __CUDA_ARCH__ >= 800
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(dst), "l"(src) : "memory");
#else
  const uint4 v = __ldg(static_cast<const uint4*>(src));
  asm volatile("st.shared.v4.u32 [%0], {%1, %2, %3, %4};\n" ::"r"(dst), "r"(v.x), "r"(v.y),
               "r"(v.z), "r"(v.w)
               : "memory");
#endif
}

/// 4 bytes, both addresses 4-byte aligned.
__device__ __forceinline__ void copy_async4(unsigned int dst, const void* src) {
#if __CUDA_ARCH__ >= 800
  asm volatile("cp.async.ca.shared.global [%0], [%1], 4;\n" ::"r"(dst), "l"(src) : "memory");
#else
  store_shared(dst, __ldg(static_cast<const std::uint32_t*>(src)));
#endif
}

/// Closes this thread's group of copies issued since the last commit.
__device__ __forceinline__ void commit_async() {
#if __CUDA_ARCH__ >= 800
  asm volatile("cp.async.commit_group;\n" ::);
#endif
}

/// Waits until at most the newest `Pending` groups of this thread's copies are in flight.
template <int Pending>
__device__ __forceinline__ void wait_async() {
#if __CUDA_ARCH__ >= 800
  asm volatile("cp.async.wait_group %0;\n" ::"n"(Pending) : "memory");
#endif
}

}  // namespace parfilter::cuda
