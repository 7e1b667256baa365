// sharpen: the 3x3 kernel (kernels/sharpen.cl).
#include "cl_op.hpp"

namespace parfilter::opencl::ops {
namespace {

std::vector<std::string> variants() {
  return variant_list(
      {kDefaultVariant, kSharpenQuads, kSharpenTile, kSharpenVector, kSharpenNaive, kSharpenLocal});
}

}  // namespace

// On a GPU quads of pixel words in registers (0.077 ms on an H200, 7680x4320 RGBA, against
// 0.114 for the tile stream and 0.24 for vector), which take RGBA only: other channel counts
// go by four samples per work item.
extern const ClOp sharpen_op{"sharpen", variants,
                             run_by_device<run_sharpen, kSharpenVector, kSharpenQuads>,
                             Chain16::step_of<&Chain16::sharpen>};

}  // namespace parfilter::opencl::ops
