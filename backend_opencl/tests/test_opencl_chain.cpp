// Chains and batches on the OpenCL device (PoCL in CI; skipped with the reason where there is
// none): intermediates stay on the device and every step matches the reference; a batch of
// host-pool inputs overlapped on several lanes keeps the input order, downloads its results
// into the inputs' own page-locked buffers and reports a failed image without stopping.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "cl_device.hpp"
#include "cl_runtime.hpp"
#include "host_pool.hpp"
#include "opencl_backend_test.hpp"
#include "parfilter/backends/opencl.hpp"
#include "reference.hpp"
#include "support/test_images.hpp"

namespace parfilter::opencl {
namespace {

struct Size {
  int width;
  int height;
};
// 1x1, odd sizes around the 16x16 tiles and the 64-pixel morphology tile.
const std::vector<Size> kSizes = {{1, 1}, {5, 3}, {67, 41}, {130, 70}};
constexpr std::array kChannels = {1, 3, 4};

Image input_for(Size size, int channels) {
  constexpr std::uint32_t kSeedFactor = 31;
  return test::synthetic_image(
      size.width, size.height, channels,
      static_cast<std::uint32_t>(size.width * kSeedFactor + size.height + channels));
}

/// A copy of `image` in the backend's host pool, as the batch pipeline decodes into it.
Image pooled_copy(Backend& backend, const Image& image) {
  Image pooled = Image::uninitialized(image.width(), image.height(), image.channels(),
                                      backend.host_allocator());
  std::copy_n(image.data(), image.size_bytes(), pooled.data());
  return pooled;
}

/// run_batch over `inputs` (moved in), collecting outputs by index and failures.
struct BatchRun {
  std::vector<std::size_t> order;
  std::vector<std::optional<OpOutput>> outputs;
  std::vector<std::size_t> failed;
};
BatchRun run_batch(Backend& backend, const OpChain& chain, std::vector<Image>& inputs) {
  BatchRun run;
  run.outputs.resize(inputs.size());
  BatchCallbacks callbacks;
  callbacks.next = indexed_inputs(
      inputs.size(), [&](std::size_t i) -> std::optional<Image> { return std::move(inputs[i]); });
  callbacks.done = [&](std::size_t i, OpOutput&& output, const StageTimes& times) {
    EXPECT_TRUE(times.upload_ms.has_value()) << "#" << i;
    run.order.push_back(i);
    run.outputs[i] = std::move(output);
  };
  callbacks.failed = [&](std::size_t i, const std::exception_ptr&) { run.failed.push_back(i); };
  backend.run_batch(chain, callbacks);
  return run;
}

using OpenClChainTest = OpenClBackendTest;

/// Step sizes and channels change (gray, pool), host steps come between (equalize, otsu),
/// morphology ping-pongs inside a step, and the last step may leave no image (histogram).
TEST_F(OpenClChainTest, ChainsOnTheDeviceMatchTheReferenceStepByStep) {
  OpParams ellipse;
  ellipse.se = *parse_se("ellipse:5x3");
  OpParams image2d = ellipse;
  image2d.variant = "image2d";
  OpParams adaptive;
  adaptive.adaptive = true;
  adaptive.window = 5;
  const std::vector<OpChain> chains = {{{Op::gray, {}}, {Op::gaussian, {}}, {Op::sobel, {}}},
                                       {{Op::erode, ellipse}, {Op::dilate, image2d}},
                                       {{Op::pool, {}}, {Op::sharpen, {}}, {Op::pool, {}}},
                                       {{Op::equalize, {}}, {Op::segment, adaptive}},
                                       {{Op::gaussian, {}}, {Op::otsu, {}}},
                                       {{Op::sharpen, {}}, {Op::histogram, {}}}};
  Backend& backend = *backend_;
  for (const OpChain& chain : chains) {
    std::vector<Image> inputs;
    std::vector<OpOutput> expected;
    for (const Size size : kSizes) {
      for (const int channels : kChannels) {
        const Image input = input_for(size, channels);
        expected.push_back(reference::run_chain(chain, input));
        StageTimes times;
        const OpOutput single = backend.run_chain(chain, input.view(), &times);
        EXPECT_TRUE(test::same_output(expected.back(), single))
            << chain_name(chain) << " " << size.width << "x" << size.height << " c" << channels;
        EXPECT_TRUE(times.upload_ms && times.download_ms && times.build_ms);
        if (!single.image.empty()) {  // read back into page-locked memory
          const auto pool = std::dynamic_pointer_cast<PoolOnceAttached>(backend.host_allocator());
          ASSERT_NE(pool, nullptr);
          EXPECT_TRUE(pool->is_locked(single.image.data()));
        }
        inputs.push_back(pooled_copy(backend, input));
      }
    }
    const BatchRun run = run_batch(backend, chain, inputs);
    EXPECT_TRUE(run.failed.empty()) << chain_name(chain);
    ASSERT_EQ(run.order.size(), expected.size()) << chain_name(chain);
    for (std::size_t i = 0; i < expected.size(); ++i) {
      EXPECT_EQ(run.order[i], i);
      EXPECT_TRUE(test::same_output(expected[i], *run.outputs[i]))
          << chain_name(chain) << " batch #" << i;
    }
  }
}

/// A result no larger than its input is downloaded into the input's own host-pool buffer (once
/// the device is ready: inputs allocated before are ordinary memory).
TEST_F(OpenClChainTest, ABatchDownloadsIntoItsInputsBuffers) {
  (void)backend_->run(Op::gray, input_for({1, 1}, 1).view(), {});
  std::vector<Image> inputs;
  std::vector<const std::uint8_t*> buffers;
  for (const int channels : kChannels) {
    inputs.push_back(pooled_copy(*backend_, input_for({67, 41}, channels)));
    buffers.push_back(inputs.back().data());
  }
  const BatchRun run = run_batch(*backend_, OpChain{{Op::gaussian, {}}, {Op::gray, {}}}, inputs);
  ASSERT_EQ(run.order.size(), buffers.size());
  for (std::size_t i = 0; i < buffers.size(); ++i) {
    EXPECT_EQ(run.outputs[i]->image.data(), buffers[i]) << "#" << i;
  }
}

/// Rows with padding between them (a view into a wider buffer) go up in one rectangular write.
TEST_F(OpenClChainTest, APaddedViewMatchesTheReference) {
  constexpr int kPadding = 13;
  for (const int channels : kChannels) {
    const Image image = input_for({67, 41}, channels);
    const auto row = static_cast<std::size_t>(image.stride());
    const std::size_t stride = row + kPadding;
    std::vector<std::uint8_t> padded(stride * static_cast<std::size_t>(image.height()), 0xA5);
    for (int y = 0; y < image.height(); ++y) {
      std::copy_n(image.row(y), row, padded.data() + static_cast<std::size_t>(y) * stride);
    }
    const ConstImageView view(padded.data(), image.width(), image.height(), channels,
                              static_cast<std::ptrdiff_t>(stride), {0, image.height()});
    const OpChain chain = {{Op::sharpen, {}}, {Op::gaussian, {}}};
    EXPECT_TRUE(
        test::same_output(reference::run_chain(chain, image), backend_->run_chain(chain, view)))
        << "c" << channels;
  }
}

/// An image whose step fails (image2d wider than the device allows) fails alone; the images
/// before and after it, in flight on the other lanes, come out right and in order.
TEST_F(OpenClChainTest, ABatchReportsAFailedImageAndGoesOn) {
  DeviceList list;
  const DeviceChoice choice = test_choice(list);
  ASSERT_TRUE(choice.device);
  std::size_t max_width = 0;
  ASSERT_EQ(clGetDeviceInfo(list.devices[*choice.device].id, CL_DEVICE_IMAGE2D_MAX_WIDTH,
                            sizeof(max_width), &max_width, nullptr),
            CL_SUCCESS);
  constexpr std::size_t kLargestWidth = std::size_t{1} << 20;
  if (max_width >= kLargestWidth) GTEST_SKIP() << "image2d allows " << max_width << " texels";
  OpParams image2d;
  image2d.variant = "image2d";
  const OpChain chain = {{Op::gaussian, {}}, {Op::erode, image2d}};
  std::vector<Image> inputs;
  std::vector<OpOutput> expected;
  constexpr std::size_t kImages = 7;
  constexpr std::size_t kFailing = 3;
  for (std::size_t i = 0; i < kImages; ++i) {
    const Image input = i == kFailing ? input_for({static_cast<int>(max_width) + 1, 1}, 1)
                                      : input_for({67, 41}, static_cast<int>(i % 2 * 3 + 1));
    expected.push_back(i == kFailing ? OpOutput{} : reference::run_chain(chain, input));
    inputs.push_back(pooled_copy(*backend_, input));
  }
  const BatchRun run = run_batch(*backend_, chain, inputs);
  EXPECT_EQ(run.failed, std::vector<std::size_t>{kFailing});
  ASSERT_EQ(run.order.size(), kImages - 1);
  EXPECT_TRUE(std::is_sorted(run.order.begin(), run.order.end()));
  for (std::size_t i = 0; i < kImages; ++i) {
    if (i == kFailing) continue;
    EXPECT_TRUE(test::same_output(expected[i], *run.outputs[i])) << "#" << i;
  }
}

}  // namespace
}  // namespace parfilter::opencl
