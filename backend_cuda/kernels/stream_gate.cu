// StreamGate (cuda_util.hpp): a one-thread kernel that holds its stream until the host writes
// the ticket it waits for into a pinned flag, or until a time limit passes.
#include <atomic>
#include <cstdint>

#include "../src/cuda_util.hpp"

namespace parfilter::cuda {
namespace {

/// How long a closed gate holds its stream at most. The host queues an op's launches in tens
/// of microseconds and opens the gate before anything that waits for the device; the limit
/// only bounds a gate the host cannot open in time (a blocking launch under a tool, a
/// descheduled thread): the stream then goes on and that run's kernel time includes the gap.
constexpr unsigned long long kGateTimeoutNs = 2'000'000;
/// Sleep between two reads of the flag: short against the launch gaps it removes, long
/// enough not to flood the bus with reads of host memory.
constexpr unsigned int kPollNs = 200;

__device__ __forceinline__ unsigned long long global_ns() {
  unsigned long long ns = 0;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(ns));
  return ns;
}

// The flag is read volatile: on sm_70 and later that is a relaxed load at system scope, so the
// host's store becomes visible without any fence on this side.
__global__ void gate_kernel(const volatile std::uint32_t* flag, std::uint32_t ticket) {
  const unsigned long long start = global_ns();
  // Tickets only grow (modulo 2^32): the signed difference says whether this one was written.
  while (static_cast<std::int32_t>(*flag - ticket) < 0) {
    if (global_ns() - start > kGateTimeoutNs) return;
    __nanosleep(kPollNs);
  }
}

}  // namespace

void StreamGate::close(cudaStream_t stream) {
  if (device_flag_ == nullptr) {
    flag_.reserve(sizeof(std::uint32_t));
    *flag_.as<std::uint32_t>() = ticket_;
    void* device = nullptr;
    CUDA_CHECK(cudaHostGetDevicePointer(&device, flag_.get(), 0));
    device_flag_ = static_cast<std::uint32_t*>(device);
  }
  open();  // a gate is closed once at a time
  ++ticket_;
  gate_kernel<<<1, 1, 0, stream>>>(device_flag_, ticket_);
  closed_ = true;  // before the check: a failed launch still leaves nothing to open
  CUDA_CHECK_LAUNCH("gate_kernel");
}

void StreamGate::open() noexcept {
  if (!closed_) return;
  std::atomic_ref<std::uint32_t>(*flag_.as<std::uint32_t>())
      .store(ticket_, std::memory_order_release);
  closed_ = false;
}

}  // namespace parfilter::cuda
