// pool: 2x2 max pooling (kernels/point.cl).
#include "cl_op.hpp"

namespace parfilter::opencl::ops {

extern const ClOp pool_op{"pool", default_variant_only, run_image_step<run_pool>,
                          Chain16::step_of<&Chain16::pool>};

}  // namespace parfilter::opencl::ops
