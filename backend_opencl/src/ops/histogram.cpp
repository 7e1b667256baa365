// histogram: the counts of the gray values, or of each channel (kernels/histogram.cl).
#include "cl_op.hpp"

namespace parfilter::opencl::ops {
namespace {

std::vector<std::string> variants(bool cpu_device) {
  // Atomics are cheap in GPU local memory, a locked bus cycle on CPUs.
  return cpu_device ? variant_list({kHistogramTwoKernel, kHistogramLocalAtomics})
                    : variant_list({kHistogramLocalAtomics, kHistogramTwoKernel});
}

DeviceResult run(Lane& lane, const DeviceImage& input, const OpParams& params,
                 std::string_view variant) {
  DeviceResult result;
  result.histogram = run_histogram(lane, input, params, variant);
  return result;
}

}  // namespace

extern const ClOp histogram_op{"histogram", variants, run};

}  // namespace parfilter::opencl::ops
