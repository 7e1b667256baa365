// vmax3, the dummy op of scripts/check-add-op.sh (kernels/vmax3.cl).
#include <optional>

#include "cl_op.hpp"

namespace parfilter::opencl::ops {
namespace {

DeviceResult run(Lane& lane, const DeviceImage& input, const OpParams& /*params*/,
                 std::string_view /*variant*/) {
  const int row_samples = input.width() * input.channels();
  Buffer out =
      lane.buffer(image_bytes(input.width(), input.height(), input.channels()), "vmax3 output");
  lane.run("vmax3", "vmax3", Defines{},
           {static_cast<std::size_t>(row_samples), static_cast<std::size_t>(input.height())}, kTile,
           input.buffer(), out, cl_int{row_samples}, cl_int{input.height()});
  return image_result(DeviceImage{out, input.width(), input.height(), input.channels()});
}

std::optional<Plane16> run_16(Chain16& chain, Op /*op*/, const Plane16& in,
                              const OpParams& /*params*/, OpOutput& /*output*/) {
  Plane16 out = chain.like(in.shape);
  const int row_samples = in.shape.width * in.shape.channels;
  chain.device().run(
      "vmax3", "vmax3",
      {static_cast<std::size_t>(row_samples), static_cast<std::size_t>(in.shape.height)}, kTile,
      in.buffer, out.buffer, cl_int{row_samples}, cl_int{in.shape.height});
  return out;
}

}  // namespace

extern const ClOp vmax3_op{"vmax3", default_variant_only, run, run_16};

}  // namespace parfilter::opencl::ops
