// segment: gray and its histogram, the isodata threshold, then global or --adaptive
// (kernels/segment.cl).
#include "cl_op.hpp"

namespace parfilter::opencl::ops {
namespace {

std::vector<std::string> variants(bool cpu_device) {
  // --adaptive's schedule: barriers are cheap on GPUs, costly on CPUs.
  return cpu_device ? variant_list({kSegmentPrivate, kSegmentWorkgroup})
                    : variant_list({kSegmentWorkgroup, kSegmentPrivate});
}

DeviceResult run(Lane& lane, const DeviceImage& input, const OpParams& params,
                 std::string_view variant) {
  return run_thresholding(lane, Op::segment, input, params, variant);
}

}  // namespace

extern const ClOp segment_op{"segment", variants, run};

}  // namespace parfilter::opencl::ops
