// histogram: the counts of the gray values, or of each channel (kernels/histogram.cl).
#include "cl_op.hpp"

namespace parfilter::opencl::ops {
namespace {

std::vector<std::string> variants() {
  return variant_list({kDefaultVariant, kHistogramLocalAtomics, kHistogramTwoKernel});
}

DeviceResult run(Lane& lane, const DeviceImage& input, const OpParams& params,
                 std::string_view variant) {
  return DeviceResult{
      {}, run_histogram(lane, input, params, histogram_schedule(lane, variant)), {}};
}

}  // namespace

extern const ClOp histogram_op{"histogram", variants, run, Chain16::step_of<&Chain16::histogram>};

}  // namespace parfilter::opencl::ops
