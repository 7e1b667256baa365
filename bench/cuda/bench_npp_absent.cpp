// Built where the CUDA toolkit has no NPP: the benchmark says so and runs our kernels alone.
#include "bench_npp.hpp"

namespace parfilter::cuda::bench {

std::string npp_missing() { return "NPP not found in this CUDA toolkit"; }

std::vector<Row> run_npp(const NppImages& /*images*/, cudaStream_t /*stream*/) { return {}; }

}  // namespace parfilter::cuda::bench
