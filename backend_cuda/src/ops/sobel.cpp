// sobel: gray fused into a multi-pixel kernel, or a gray pass then a thread per pixel
// (kernels/sobel.cu).
#include "cuda_op.hpp"

namespace parfilter::cuda::ops {
namespace {

enum class SobelVariant : std::uint8_t { multi, pixel };
constexpr std::array<VariantName<SobelVariant>, 2> kVariants = {
    {{"multi", SobelVariant::multi}, {"pixel", SobelVariant::pixel}}};

std::vector<std::string> variants() { return variant_names(kVariants); }

DeviceResult run(Workspace& ws, const OpParams& params, const DeviceImage& in) {
  const DeviceImage out = ws.image(ws.output, in.width, in.height, 1);
  if (variant_value(kVariants, params.variant) == SobelVariant::multi) {
    launch_sobel_multi(in, out, params.border, params.sobel_output, ws.stream.get());
    return DeviceResult{out, {}, {}};
  }
  DeviceImage gray = in;
  if (in.channels != 1) {
    gray = ws.image(ws.gray, in.width, in.height, 1);
    launch_gray(in, gray, ws.stream.get());
  }
  launch_sobel_pixel(gray, out, params.border, params.sobel_output, ws.stream.get());
  return DeviceResult{out, {}, {}};
}

}  // namespace

extern const CudaOp sobel_op{"sobel", variants, run, Chain16::step_of<&Chain16::sobel>};

}  // namespace parfilter::cuda::ops
