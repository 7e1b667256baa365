// The CUDA backend on its own: small and mid-sized images (odd sizes, interiors large enough
// for every vectorized and tiled fast path) for every op and variant against the reference,
// the batch pipeline, device errors, and what happens without a GPU. Smaller than the
// cross-backend suite, so compute-sanitizer (memcheck, racecheck) can run all of it
// (scripts/gpu-check.sh). Without a CUDA device every test skips with the reason.
#include <gtest/gtest.h>

#include <cstdlib>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "cuda_test_backend.hpp"
#include "parfilter/backends/cuda.hpp"
#include "parfilter/error.hpp"
#include "reference.hpp"
#include "support/test_images.hpp"

namespace parfilter {
namespace {

struct Size {
  int width;
  int height;
};

// 1x1, a row, a column, odd sizes around the tile widths (64 px), and one mid-sized image
// whose interior takes every fast path. PARFILTER_CUDA_QUICK=1 (for racecheck, whose cost
// grows with every shared-memory access) keeps four of them.
const std::vector<Size>& sizes() {
  static const std::vector<Size> all = {{1, 1},   {9, 1},    {1, 6},    {5, 3},
                                        {67, 41}, {130, 70}, {301, 203}};
  static const std::vector<Size> quick = {{1, 1}, {5, 3}, {67, 41}, {130, 70}};
  return std::getenv("PARFILTER_CUDA_QUICK") != nullptr ? quick : all;
}
constexpr std::array kChannels = {1, 3, 4};
const std::vector<BorderMode> kBorders = {{BorderKind::replicate, 0},
                                          {BorderKind::reflect101, 0},
                                          {BorderKind::constant, 0},
                                          {BorderKind::constant, 200}};

using test::cuda_backend;

Image input_for(Size size, int channels) {
  constexpr std::uint32_t kSeedFactor = 31;
  return test::synthetic_image(
      size.width, size.height, channels,
      static_cast<std::uint32_t>(size.width * kSeedFactor + size.height + channels));
}

/// Every variant of `op` with `params` on every size (up to max_pixels, to keep the
/// reference's cost down for large windows and elements) and channel count.
void check_op(Op op, const OpParams& base, const std::string& what,
              long long max_pixels = 1LL << 20) {
  for (const Size size : sizes()) {
    if (static_cast<long long>(size.width) * size.height > max_pixels) continue;
    for (const int channels : kChannels) {
      const Image input = input_for(size, channels);
      const OpOutput expected = reference::run(op, input, base);
      for (const std::string& variant : cuda_backend().variants(op)) {
        OpParams params = base;
        params.variant = variant;
        const OpOutput actual = cuda_backend().run(op, input.view(), params);
        EXPECT_TRUE(test::same_output(expected, actual))
            << op_name(op) << " " << variant << " " << what << " on " << size.width << "x"
            << size.height << "x" << channels;
      }
    }
  }
}

constexpr long long kSmallImage = 67 * 41;
constexpr long long kMidImage = 130 * 70;

TEST(CudaBackend, WithoutAGpuSaysNoCudaDevice) {
  const Availability a = cuda_backend().availability();
  if (a.present) GTEST_SKIP() << "a CUDA device is present";
  EXPECT_NE(a.reason.find("no CUDA device"), std::string::npos) << a.reason;
  const Image input(4, 4, 1);
  EXPECT_THROW((void)cuda_backend().run(Op::gray, input.view(), {}), RuntimeError);
}

TEST(CudaBackend, BorderOps) {
  SKIP_WITHOUT_GPU();
  for (const BorderMode border : kBorders) {
    OpParams p;
    p.border = border;
    const std::string b = to_string(border);
    check_op(Op::sharpen, p, b);
    check_op(Op::gaussian, p, b);
    p.sigma = 0.6;
    check_op(Op::gaussian, p, b + " sigma 0.6");
    for (const SobelOutput output :
         {SobelOutput::magnitude, SobelOutput::l1, SobelOutput::dx, SobelOutput::dy}) {
      OpParams s;
      s.border = border;
      s.sobel_output = output;
      check_op(Op::sobel, s, b + " " + std::string(to_string(output)));
    }
  }
}

// Every gradient pair (gx, gy) in 0..255 that Sobel can produce (corners weigh +-1 in both,
// the other cells an even amount, so gx and gy have the same parity), each at the centre of
// its own 3 x 3 patch of a gray image: every n = gx^2 + gy^2 up to 255^2 + 255 (beyond it the
// magnitude saturates), so the fast magnitude's rounding is checked for every value it meets.
TEST(CudaBackend, SobelMagnitudeOfEveryGradientPair) {
  SKIP_WITHOUT_GPU();
  constexpr int kValues = 256;
  constexpr int kPatch = 3;
  Image input(kValues * kPatch, kValues * kPatch, 1);
  for (int a = 0; a < kValues; ++a) {
    for (int b = a % 2; b < kValues; b += 2) {
      // Left column and top row zero: gx = 2m + s and gy = 2e + s, with m and s the right
      // column's middle and bottom, e the bottom centre.
      const int s = a % 2;
      const int x = a * kPatch;
      input.row(b * kPatch + 1)[x + 2] = static_cast<std::uint8_t>((a - s) / 2);
      input.row(b * kPatch + 2)[x + 1] = static_cast<std::uint8_t>((b - s) / 2);
      input.row(b * kPatch + 2)[x + 2] = static_cast<std::uint8_t>(s);
    }
  }
  const OpOutput expected = reference::run(Op::sobel, input, {});
  for (const std::string& variant : cuda_backend().variants(Op::sobel)) {
    OpParams params;
    params.variant = variant;
    EXPECT_TRUE(test::same_output(expected, cuda_backend().run(Op::sobel, input.view(), params)))
        << variant;
  }
}

TEST(CudaBackend, PointOpsHistogramsAndThresholds) {
  SKIP_WITHOUT_GPU();
  check_op(Op::gray, {}, "");
  check_op(Op::pool, {}, "");
  check_op(Op::equalize, {}, "");
  check_op(Op::otsu, {}, "");
  check_op(Op::segment, {}, "global");
  check_op(Op::histogram, {}, "gray");
  OpParams per_channel;
  per_channel.per_channel = true;
  check_op(Op::histogram, per_channel, "per channel");
}

TEST(CudaBackend, AdaptiveSegment) {
  SKIP_WITHOUT_GPU();
  for (const int window : {1, 3, 31, 301}) {
    for (const int contrast : {0, 15, 256}) {
      OpParams p;
      p.adaptive = true;
      p.window = window;
      p.min_contrast = contrast;
      check_op(Op::segment, p, "window " + std::to_string(window),
               window > 31 ? kSmallImage : 1LL << 20);
    }
  }
}

TEST(CudaBackend, Morphology) {
  SKIP_WITHOUT_GPU();
  // Square ellipses and crosses take morphology_levels.cu (radius 1 to 7); other ellipses,
  // even sizes and 17 x 17 their rectangles.
  const std::vector<SeSpec> elements = {
      {SeShape::rect, 1, 1},      {SeShape::rect, 3, 3},     {SeShape::rect, 4, 2},
      {SeShape::rect, 31, 31},    {SeShape::cross, 5, 3},    {SeShape::ellipse, 7, 5},
      {SeShape::ellipse, 21, 9},  {SeShape::ellipse, 3, 3},  {SeShape::ellipse, 9, 9},
      {SeShape::ellipse, 15, 15}, {SeShape::cross, 5, 5},    {SeShape::cross, 15, 15},
      {SeShape::ellipse, 6, 6},   {SeShape::ellipse, 17, 17}};
  for (const SeSpec& se : elements) {
    for (const Op op : {Op::erode, Op::dilate}) {
      OpParams p;
      p.se = se;
      check_op(op, p, to_string(se));
    }
  }
  // Elements larger than a shared-memory tile, and larger than the image.
  for (const SeSpec se : {SeSpec{SeShape::rect, 100, 3}, SeSpec{SeShape::ellipse, 70, 150}}) {
    OpParams p;
    p.se = se;
    check_op(Op::erode, p, to_string(se), kMidImage);
  }
  OpParams twice;
  twice.iterations = 2;
  twice.se = {SeShape::cross, 3, 5};
  check_op(Op::open, twice, "cross 3x5 x2");
  check_op(Op::close, twice, "cross 3x5 x2");
}

TEST(CudaBackend, BatchRunsEveryInputInOrder) {
  SKIP_WITHOUT_GPU();
  std::vector<Image> inputs;
  for (const Size size : sizes()) {
    for (const int channels : kChannels) inputs.push_back(input_for(size, channels));
  }
  for (const Op op : {Op::gaussian, Op::otsu, Op::histogram, Op::erode}) {
    OpParams params;
    std::vector<std::size_t> order;
    BatchCallbacks callbacks;
    callbacks.next = indexed_inputs(inputs.size(), [&](std::size_t i) -> std::optional<Image> {
      if (i == 2) return std::nullopt;  // a failed load: the batch goes on without it
      return inputs[i];
    });
    callbacks.done = [&](std::size_t i, OpOutput&& output, const StageTimes& times) {
      order.push_back(i);
      EXPECT_TRUE(test::same_output(reference::run(op, inputs[i], params), output))
          << op_name(op) << " #" << i;
      EXPECT_TRUE(times.upload_ms.has_value());
    };
    callbacks.failed = [&](std::size_t i, const std::exception_ptr&) {
      ADD_FAILURE() << op_name(op) << " #" << i << " failed";
    };
    cuda_backend().run_batch(OpChain{{op, params}}, callbacks);
    std::vector<std::size_t> expected;
    for (std::size_t i = 0; i < inputs.size(); ++i) {
      if (i != 2) expected.push_back(i);
    }
    EXPECT_EQ(order, expected) << op_name(op);
  }
}

/// Chains keep their intermediates on the device (each step reads the previous step's buffer):
/// step sizes and channels change (gray, pool), host steps come between (equalize, otsu), and a
/// batch of pinned inputs (as the pipeline decodes them) overlaps them on three streams.
TEST(CudaBackend, ChainsOnTheDeviceMatchTheReferenceStepByStep) {
  SKIP_WITHOUT_GPU();
  OpParams ellipse;
  ellipse.se = *parse_se("ellipse:5x3");
  OpParams adaptive;
  adaptive.adaptive = true;
  adaptive.window = 5;
  const std::vector<OpChain> chains = {{{Op::gray, {}}, {Op::gaussian, {}}, {Op::sobel, {}}},
                                       {{Op::erode, ellipse}, {Op::dilate, ellipse}},
                                       {{Op::pool, {}}, {Op::sharpen, {}}, {Op::pool, {}}},
                                       {{Op::equalize, {}}, {Op::segment, adaptive}},
                                       {{Op::gaussian, {}}, {Op::otsu, {}}},
                                       {{Op::sharpen, {}}, {Op::histogram, {}}}};
  Backend& backend = cuda_backend();
  for (const OpChain& chain : chains) {
    std::vector<Image> inputs;
    for (const Size size : sizes()) {
      for (const int channels : kChannels) {
        const Image input = input_for(size, channels);
        EXPECT_TRUE(test::same_output(reference::run_chain(chain, input),
                                      backend.run_chain(chain, input.view())))
            << chain_name(chain) << " " << size.width << "x" << size.height << " c" << channels;
        Image pinned = Image::uninitialized(input.width(), input.height(), input.channels(),
                                            backend.host_allocator());
        std::copy_n(input.data(), input.size_bytes(), pinned.data());
        inputs.push_back(std::move(pinned));
      }
    }
    std::vector<OpOutput> expected;
    for (const Image& input : inputs) expected.push_back(reference::run_chain(chain, input));
    std::size_t done = 0;
    BatchCallbacks callbacks;
    callbacks.next = indexed_inputs(
        inputs.size(), [&](std::size_t i) -> std::optional<Image> { return std::move(inputs[i]); });
    callbacks.done = [&](std::size_t i, OpOutput&& output, const StageTimes&) {
      EXPECT_TRUE(test::same_output(expected[i], output)) << chain_name(chain) << " batch #" << i;
      ++done;
    };
    callbacks.failed = [&](std::size_t i, const std::exception_ptr&) {
      ADD_FAILURE() << chain_name(chain) << " batch #" << i << " failed";
    };
    backend.run_batch(chain, callbacks);
    EXPECT_EQ(done, expected.size()) << chain_name(chain);
  }
}

TEST(CudaBackend, TimesEveryStage) {
  SKIP_WITHOUT_GPU();
  const Image input = input_for({130, 70}, 4);
  StageTimes times;
  (void)cuda_backend().run(Op::sharpen, input.view(), {}, &times);
  EXPECT_GT(times.compute_ms, 0.0);
  EXPECT_TRUE(times.upload_ms.has_value());
  EXPECT_TRUE(times.download_ms.has_value());
}

TEST(CudaBackend, BadDeviceAndPlatformAreUsageErrors) {
  EXPECT_THROW((void)make_cuda_backend({0, "opencl", ""}), UsageError);
  SKIP_WITHOUT_GPU();
  const auto backend = make_cuda_backend({0, "", "no such gpu"});
  const Image input(4, 4, 1);
  EXPECT_THROW((void)backend->run(Op::gray, input.view(), {}), UsageError);
}

}  // namespace
}  // namespace parfilter
