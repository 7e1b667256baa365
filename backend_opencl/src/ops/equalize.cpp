// equalize: the luma's histogram, its LUT on the host, then the LUT applied.
#include "cl_op.hpp"

namespace parfilter::opencl::ops {

extern const ClOp equalize_op{"equalize", default_variant_only, run_image_step<run_equalize>,
                              Chain16::step_of<&Chain16::equalize>};

}  // namespace parfilter::opencl::ops
