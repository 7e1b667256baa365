// gray: the luma of every pixel, one work item per pixel (kernels/point.cl).
#include "cl_op.hpp"

namespace parfilter::opencl::ops {

extern const ClOp gray_op{"gray", default_variant_only, run_image_step<run_gray>,
                          Chain16::step_of<&Chain16::gray>};

}  // namespace parfilter::opencl::ops
