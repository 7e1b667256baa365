// Backend::run_chain_on_device: images already in the GPU's memory (an array library's, as
// the Python module hands them over) give the host path's bytes, at any row pitch, ordered on
// the caller's stream, and the result lives in memory of its own. Small enough for
// compute-sanitizer (scripts/gpu-check.sh). Without a CUDA device every test skips.
#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "cuda_test_backend.hpp"
#include "parfilter/backends/cuda.hpp"
#include "parfilter/error.hpp"
#include "support/test_images.hpp"

namespace parfilter {
namespace {

using test::cuda_backend;

void check(cudaError_t status) { ASSERT_EQ(status, cudaSuccess) << cudaGetErrorString(status); }

/// The bytes of one row of `image`'s pixels.
std::size_t row_bytes(const Image& image) {
  return image.size_bytes() / static_cast<std::size_t>(image.height());
}

/// An image copied into device memory whose rows are `extra` samples longer than the pixels.
struct DeviceCopy {
  DeviceCopy(const Image& image, std::size_t extra) {
    const std::size_t row = row_bytes(image);
    pitch = row + extra * (image.depth() == Depth::u8 ? 1 : 2);
    check(cudaMalloc(&memory, pitch * image.height()));
    check(cudaMemcpy2D(memory, pitch, image.bytes(), row, row, image.height(),
                       cudaMemcpyHostToDevice));
    ref = {static_cast<std::uint8_t*>(memory),
           image.width(),
           image.height(),
           image.channels(),
           pitch,
           0,
           image.depth()};
  }
  DeviceCopy(const DeviceCopy&) = delete;
  DeviceCopy& operator=(const DeviceCopy&) = delete;
  ~DeviceCopy() { (void)cudaFree(memory); }
  void* memory = nullptr;
  std::size_t pitch = 0;
  DeviceImageRef ref;
};

/// A device result's pixels, downloaded.
Image downloaded(const DeviceOutput& out) {
  Image image(out.image.width, out.image.height, out.image.channels, out.image.depth);
  const std::size_t row = row_bytes(image);
  EXPECT_EQ(out.image.pitch, row);  // packed, as an array library expects
  check(cudaMemcpy2D(image.bytes(), row, out.image.data, out.image.pitch, row, out.image.height,
                     cudaMemcpyDeviceToHost));
  return image;
}

/// Every op on `input` in device memory, at two pitches, against the host path.
void check_every_op(const Image& input) {
  for (const std::size_t extra : {std::size_t{0}, std::size_t{13}}) {
    const DeviceCopy device(input, extra);
    for (const Op op : kAllOps) {
      const OpChain chain{{op, {}}};
      const OpOutput expected = run_chain_on(cuda_backend(), chain, input);
      const DeviceOutput actual = cuda_backend().run_chain_on_device(chain, device.ref, 0);
      check(cudaStreamSynchronize(nullptr));
      const std::string where = std::string(op_name(op)) + " on " + std::to_string(input.width()) +
                                "x" + std::to_string(input.height()) + "x" +
                                std::to_string(input.channels()) + " at " +
                                std::to_string(bits_of(input.depth())) + " bits";
      EXPECT_EQ(actual.threshold, expected.threshold) << where;
      EXPECT_EQ(actual.histogram, expected.histogram) << where;
      EXPECT_EQ(actual.wide_histogram, expected.wide_histogram) << where;
      if (op_info(op).traits.histogram_result) {
        EXPECT_EQ(actual.image.data, nullptr) << where;
        continue;
      }
      EXPECT_NE(actual.image.data, device.ref.data) << where;
      EXPECT_EQ(downloaded(actual), expected.image) << where;
    }
  }
}

TEST(CudaDeviceMemory, EveryOpGivesTheHostPathsBytesAtAnyPitchAndDepth) {
  SKIP_WITHOUT_GPU();
  const std::vector<std::pair<int, int>> sizes = {{1, 1}, {67, 41}, {130, 70}};
  for (const auto& [width, height] : sizes) {
    for (const int channels : {1, 3, 4}) {
      for (const Depth depth : {Depth::u8, Depth::u16}) {
        const auto seed = static_cast<std::uint32_t>(width + channels);
        const Image input = depth == Depth::u8
                                ? test::synthetic_image(width, height, channels, seed)
                                : test::synthetic_image_16(width, height, channels, seed);
        check_every_op(input);
      }
    }
  }
}

TEST(CudaDeviceMemory, AChainRunsAfterTheCallersStreamAndBeforeItsNextWork) {
  SKIP_WITHOUT_GPU();
  const Image input = test::synthetic_image(301, 203, 3, 7);
  const OpChain chain{{Op::gray, {}}, {Op::gaussian, {}}, {Op::sobel, {}}};
  const OpOutput expected = cuda_backend().run_chain(chain, input.view());
  cudaStream_t stream = nullptr;
  check(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  // The input arrives on the caller's stream, queued with the chain, not yet copied.
  const auto row = static_cast<std::size_t>(input.width()) * input.channels();
  void* memory = nullptr;
  check(cudaMalloc(&memory, row * input.height()));
  check(cudaMemsetAsync(memory, 0, row * input.height(), stream));
  check(
      cudaMemcpyAsync(memory, input.data(), row * input.height(), cudaMemcpyHostToDevice, stream));
  const DeviceImageRef ref{
      static_cast<std::uint8_t*>(memory), input.width(), input.height(), input.channels(), row, 0};
  const DeviceOutput actual =
      cuda_backend().run_chain_on_device(chain, ref, reinterpret_cast<std::uintptr_t>(stream));
  // The caller's next work on its stream reads the result.
  Image result(actual.image.width, actual.image.height, 1);
  check(cudaMemcpyAsync(result.data(), actual.image.data, result.size_bytes(),
                        cudaMemcpyDeviceToHost, stream));
  check(cudaStreamSynchronize(stream));
  EXPECT_EQ(result, expected.image);
  check(cudaFree(memory));
  check(cudaStreamDestroy(stream));
}

TEST(CudaDeviceMemory, AHostBackendSaysItTakesHostImagesOnly) {
  const std::unique_ptr<Backend> serial = find_backend("serial")->create({});
  EXPECT_FALSE(serial->runs_device_images());
  EXPECT_THROW((void)serial->run_chain_on_device({{Op::gray, {}}}, DeviceImageRef{}, 0),
               UsageError);
}

}  // namespace
}  // namespace parfilter
