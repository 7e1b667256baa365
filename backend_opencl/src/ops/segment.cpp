// segment: gray and its histogram, the isodata threshold, then global or --adaptive
// (kernels/segment.cl).
#include "cl_op.hpp"

namespace parfilter::opencl::ops {
namespace {

std::vector<std::string> variants() {
  return variant_list({kDefaultVariant, kSegmentColumns, kSegmentWorkgroup, kSegmentPrivate});
}

DeviceResult run(Lane& lane, const DeviceImage& input, const OpParams& params,
                 std::string_view variant) {
  // --adaptive's schedule: barriers are cheap on GPUs, costly on CPUs.
  return run_thresholding(lane, Op::segment, input, params,
                          device_schedule(lane, variant, kSegmentPrivate, kSegmentColumns));
}

}  // namespace

extern const ClOp segment_op{"segment", variants, run, Chain16::step_of<&Chain16::threshold>};

}  // namespace parfilter::opencl::ops
