// The GPU part of bench_hooks.hpp when the CUDA backend is not built: no copy, no NPP.
#include "bench_hooks.hpp"

namespace parfilter::bench {

std::optional<DeviceCopy> gpu_copy(std::size_t /*bytes*/) { return std::nullopt; }

std::string gpu_peer_missing() { return "NPP: not built (the CUDA backend is not built)"; }

std::vector<PeerTiming> gpu_peer_timings(const Image& /*rgba*/) { return {}; }

}  // namespace parfilter::bench
