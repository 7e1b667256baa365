// gaussian: the 5x5 kernel, separable or direct (kernels/gaussian.cl).
#include "cl_op.hpp"

namespace parfilter::opencl::ops {
namespace {

std::vector<std::string> variants() {
  return variant_list({kDefaultVariant, kGaussianQuads, kGaussianTile, kGaussianStrip,
                       kGaussianSeparable, kGaussianVector, kGaussianDirect, kGaussianLut});
}

}  // namespace

// 16-lane rows suit a CPU's vector unit. On an H200 (7680x4320 RGBA) quads of pixel words in
// registers took 0.121 ms, the pixel-word stream (tile) 0.144, the strip kernel (which other
// channel counts take) 0.27, separable 0.51.
extern const ClOp gaussian_op{"gaussian", variants,
                              run_by_device<run_gaussian, kGaussianVector, kGaussianQuads>,
                              Chain16::step_of<&Chain16::gaussian>};

}  // namespace parfilter::opencl::ops
