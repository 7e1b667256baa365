// The image2d morphology variant: the image lives in two image2d_t objects (CL_RGBA texels for
// 4 channels, CL_R texels otherwise, CL_UNSIGNED_INT8: formats every image-capable driver
// lists, PoCL and NVIDIA included; checked here anyway), each step reading one through a
// sampler and writing the other. The chain's buffers go in and out by device-side copies.
#include <algorithm>
#include <vector>

#include "morphology.hpp"
#include "ops.hpp"
#include "parfilter/error.hpp"

namespace parfilter::opencl {
namespace {

struct ImageLayout {
  cl_image_format format{};
  std::size_t texels_wide = 0;  ///< pixels for RGBA, samples for CL_R
  std::size_t height = 0;
};

template <typename T>
T device_value(cl_device_id device, cl_device_info what, std::string_view name) {
  T value{};
  check(clGetDeviceInfo(device, what, sizeof(value), &value, nullptr),
        call_name("clGetDeviceInfo", name));
  return value;
}

[[noreturn]] void unsupported(const std::string& why) {
  throw RuntimeError("morphology --variant image2d: " + why +
                     " (the other variants need no images)");
}

ImageLayout image_layout(const Lane& rt, const MorphologySetup& setup) {
  const cl_device_id device = rt.device();
  if (device_value<cl_bool>(device, CL_DEVICE_IMAGE_SUPPORT, "CL_DEVICE_IMAGE_SUPPORT") == 0) {
    unsupported("the device has no image support");
  }
  ImageLayout layout;
  const bool rgba = setup.channels == kRgbaChannels;
  layout.format = {static_cast<cl_channel_order>(rgba ? CL_RGBA : CL_R), CL_UNSIGNED_INT8};
  layout.texels_wide =
      static_cast<std::size_t>(setup.width) * static_cast<std::size_t>(rgba ? 1 : setup.channels);
  layout.height = static_cast<std::size_t>(setup.height);

  cl_uint count = 0;
  check(clGetSupportedImageFormats(rt.context(), CL_MEM_READ_WRITE, CL_MEM_OBJECT_IMAGE2D, 0,
                                   nullptr, &count),
        "clGetSupportedImageFormats");
  std::vector<cl_image_format> formats(count);
  check(clGetSupportedImageFormats(rt.context(), CL_MEM_READ_WRITE, CL_MEM_OBJECT_IMAGE2D, count,
                                   formats.data(), nullptr),
        "clGetSupportedImageFormats");
  if (std::none_of(formats.begin(), formats.end(), [&](const cl_image_format& f) {
        return f.image_channel_order == layout.format.image_channel_order &&
               f.image_channel_data_type == layout.format.image_channel_data_type;
      })) {
    unsupported(std::string(rgba ? "CL_RGBA" : "CL_R") +
                " CL_UNSIGNED_INT8 images are not supported");
  }
  const auto max_width =
      device_value<std::size_t>(device, CL_DEVICE_IMAGE2D_MAX_WIDTH, "CL_DEVICE_IMAGE2D_MAX_WIDTH");
  const auto max_height = device_value<std::size_t>(device, CL_DEVICE_IMAGE2D_MAX_HEIGHT,
                                                    "CL_DEVICE_IMAGE2D_MAX_HEIGHT");
  if (layout.texels_wide > max_width || layout.height > max_height) {
    unsupported("the image needs " + std::to_string(layout.texels_wide) + " x " +
                std::to_string(layout.height) + " texels, over the device's image2d limit of " +
                std::to_string(max_width) + " x " + std::to_string(max_height));
  }
  return layout;
}

Buffer create_image(const Lane& rt, const ImageLayout& layout) {
  cl_image_desc desc{};
  desc.image_type = CL_MEM_OBJECT_IMAGE2D;
  desc.image_width = layout.texels_wide;
  desc.image_height = layout.height;
  return create_checked<cl_mem>("clCreateImage(morphology image)", [&](cl_int* error) {
    return clCreateImage(rt.context(), CL_MEM_READ_WRITE, &layout.format, &desc, nullptr, error);
  });
}

}  // namespace

DeviceImage run_morphology_images(Lane& rt, const MorphologySetup& setup,
                                  const std::vector<MorphOp>& steps, const DeviceImage& input) {
  const ImageLayout layout = image_layout(rt, setup);
  const Buffer images[2] = {create_image(rt, layout), create_image(rt, layout)};
  const std::size_t origin[3] = {0, 0, 0};
  const std::size_t region[3] = {layout.texels_wide, layout.height, 1};
  check(clEnqueueCopyBufferToImage(rt.queue(), input.buffer().get(), images[0].get(), 0, origin,
                                   region, 0, nullptr, rt.track(Lane::Stage::compute)),
        "clEnqueueCopyBufferToImage(morphology input)");
  const cl_int clip = closed_toward_anchor(setup.se) ? 0 : 1;
  const StructuringElement& se = setup.se;
  int source = 0;
  for (const MorphOp step : steps) {
    rt.run(kMorphologyProgram, "morph_image", setup.defines(step, true), setup.pixels(), kTile,
           images[source], images[1 - source], setup.width, setup.height, setup.spans, se.height,
           se.anchor_x, se.anchor_y, clip);
    source = 1 - source;
  }
  const Buffer out = rt.buffer(input.bytes(), "morphology output");
  check(clEnqueueCopyImageToBuffer(rt.queue(), images[source].get(), out.get(), origin, region, 0,
                                   0, nullptr, rt.track(Lane::Stage::compute)),
        "clEnqueueCopyImageToBuffer(morphology output)");
  return {out, setup.width, setup.height, setup.channels};
}

}  // namespace parfilter::opencl
