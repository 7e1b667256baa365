// otsu: gray and its histogram, Otsu's threshold on the host, then the threshold applied.
#include "cl_op.hpp"

namespace parfilter::opencl::ops {

extern const ClOp otsu_op{"otsu", default_variant_only, run_in_group<run_thresholding, Op::otsu>,
                          Chain16::step_of<&Chain16::threshold>};

}  // namespace parfilter::opencl::ops
