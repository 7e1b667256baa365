// NPP's counterparts of our ops, timed like ours. NPP computes its own variants of these
// filters (its Gauss kernel, its borders), so the rows compare speed, not bytes.
#include <nppcore.h>
#include <nppi_color_conversion.h>
#include <nppi_filtering_functions.h>
#include <nppi_morphological_operations.h>
#include <nppi_statistics_functions.h>

#include <array>
#include <string>
#include <vector>

#include "bench_npp.hpp"
#include "parfilter/error.hpp"

namespace parfilter::cuda::bench {
namespace {

constexpr int kLevels = 257;  // 256 bins
constexpr int kUpper = 256;
constexpr int kRgba = 4;

void npp_check(NppStatus status, const char* call) {
  if (status < 0) throw RuntimeError(std::string(call) + ": NPP error " + std::to_string(status));
}
#define NPP_CHECK(call) npp_check((call), #call)

NppStreamContext context_for(cudaStream_t stream) {
  NppStreamContext ctx{};
  ctx.hStream = stream;
  CUDA_CHECK(cudaGetDevice(&ctx.nCudaDeviceId));
  cudaDeviceProp prop{};
  CUDA_CHECK(cudaGetDeviceProperties(&prop, ctx.nCudaDeviceId));
  ctx.nMultiProcessorCount = prop.multiProcessorCount;
  ctx.nMaxThreadsPerMultiProcessor = prop.maxThreadsPerMultiProcessor;
  ctx.nMaxThreadsPerBlock = prop.maxThreadsPerBlock;
  ctx.nSharedMemPerBlock = prop.sharedMemPerBlock;
  ctx.nCudaDevAttrComputeCapabilityMajor = prop.major;
  ctx.nCudaDevAttrComputeCapabilityMinor = prop.minor;
  CUDA_CHECK(cudaStreamGetFlags(stream, &ctx.nStreamFlags));
  return ctx;
}

int step(const DeviceImage& img) { return static_cast<int>(img.pitch); }

}  // namespace

std::string npp_missing() { return ""; }

std::vector<Row> run_npp(const NppImages& im, cudaStream_t stream) {
  const NppStreamContext ctx = context_for(stream);
  const NppiSize size{im.rgba.width, im.rgba.height};
  const NppiPoint origin{0, 0};
  const double pixels = static_cast<double>(size.width) * size.height;
  std::vector<Row> rows;
  const auto time = [&](const std::string& op, const std::string& call, double bytes,
                        const std::function<void()>& work) {
    rows.push_back({op, call, median_ms(stream, work), bytes, true});
  };

  time("gray", "nppiRGBToGray_8u_AC4C1R", 5 * pixels, [&] {
    NPP_CHECK(nppiRGBToGray_8u_AC4C1R_Ctx(im.rgba.data, step(im.rgba), im.gray_out.data,
                                          step(im.gray_out), size, ctx));
  });
  time("gaussian", "nppiFilterGaussBorder_8u_C4R 5x5", 2 * kRgba * pixels, [&] {
    NPP_CHECK(nppiFilterGaussBorder_8u_C4R_Ctx(im.rgba.data, step(im.rgba), size, origin,
                                               im.rgba_out.data, step(im.rgba_out), size,
                                               NPP_MASK_SIZE_5_X_5, NPP_BORDER_REPLICATE, ctx));
  });

  // Kernels and masks live in device memory.
  DeviceBuffer coefficients;
  const std::array<Npp32s, 9> sharpen = {0, -1, 0, -1, 5, -1, 0, -1, 0};
  coefficients.reserve(sizeof(sharpen));
  CUDA_CHECK(
      cudaMemcpy(coefficients.get(), sharpen.data(), sizeof(sharpen), cudaMemcpyHostToDevice));
  time("sharpen", "nppiFilterBorder_8u_C4R (our 3x3 kernel)", 2 * kRgba * pixels, [&] {
    NPP_CHECK(nppiFilterBorder_8u_C4R_Ctx(
        im.rgba.data, step(im.rgba), size, origin, im.rgba_out.data, step(im.rgba_out), size,
        coefficients.as<Npp32s>(), NppiSize{3, 3}, NppiPoint{1, 1}, 1, NPP_BORDER_REPLICATE, ctx));
  });
  time("sharpen", "nppiFilterSharpenBorder_8u_C4R (NPP's kernel)", 2 * kRgba * pixels, [&] {
    NPP_CHECK(nppiFilterSharpenBorder_8u_C4R_Ctx(im.rgba.data, step(im.rgba), size, origin,
                                                 im.rgba_out.data, step(im.rgba_out), size,
                                                 NPP_BORDER_REPLICATE, ctx));
  });
  time("sobel", "RGBToGray + SobelHorizBorder + SobelVertBorder (8u C1)", 5 * pixels, [&] {
    NPP_CHECK(nppiRGBToGray_8u_AC4C1R_Ctx(im.rgba.data, step(im.rgba), im.gray_out.data,
                                          step(im.gray_out), size, ctx));
    NPP_CHECK(nppiFilterSobelHorizBorder_8u_C1R_Ctx(im.gray.data, step(im.gray), size, origin,
                                                    im.gray_out.data, step(im.gray_out), size,
                                                    NPP_BORDER_REPLICATE, ctx));
    NPP_CHECK(nppiFilterSobelVertBorder_8u_C1R_Ctx(im.gray.data, step(im.gray), size, origin,
                                                   im.gray_out.data, step(im.gray_out), size,
                                                   NPP_BORDER_REPLICATE, ctx));
  });
  time("sobel", "nppiFilterSobelHorizBorder_8u_C1R alone (gray in)", 2 * pixels, [&] {
    NPP_CHECK(nppiFilterSobelHorizBorder_8u_C1R_Ctx(im.gray.data, step(im.gray), size, origin,
                                                    im.gray_out.data, step(im.gray_out), size,
                                                    NPP_BORDER_REPLICATE, ctx));
  });

  for (const int side : {3, 31}) {
    const std::vector<Npp8u> ones(static_cast<std::size_t>(side * side), 1);
    DeviceBuffer mask;
    mask.reserve(ones.size());
    CUDA_CHECK(cudaMemcpy(mask.get(), ones.data(), ones.size(), cudaMemcpyHostToDevice));
    const NppiSize mask_size{side, side};
    const NppiPoint anchor{side / 2, side / 2};
    const std::string label = "erode rect " + std::to_string(side) + "x" + std::to_string(side);
    time(label, "nppiErodeBorder_8u_C4R", 2 * kRgba * pixels, [&] {
      NPP_CHECK(nppiErodeBorder_8u_C4R_Ctx(
          im.rgba.data, step(im.rgba), size, origin, im.rgba_out.data, step(im.rgba_out), size,
          mask.as<Npp8u>(), mask_size, anchor, NPP_BORDER_REPLICATE, ctx));
    });
    time(label, "nppiFilterMinBorder_8u_C4R", 2 * kRgba * pixels, [&] {
      NPP_CHECK(nppiFilterMinBorder_8u_C4R_Ctx(im.rgba.data, step(im.rgba), size, origin,
                                               im.rgba_out.data, step(im.rgba_out), size, mask_size,
                                               anchor, NPP_BORDER_REPLICATE, ctx));
    });
  }

  // Histograms: 4 x 256 bins of the RGBA image, and 256 bins of the gray plane.
  DeviceBuffer bins;
  bins.reserve(sizeof(Npp32s) * kLevels * kRgba);
  std::array<Npp32s*, kRgba> hists{};
  std::array<int, kRgba> levels{};
  std::array<Npp32s, kRgba> lower{};
  std::array<Npp32s, kRgba> upper{};
  for (int c = 0; c < kRgba; ++c) {
    hists[c] = bins.as<Npp32s>() + c * kLevels;
    levels[c] = kLevels;
    upper[c] = kUpper;
  }
  std::size_t buffer_bytes = 0;
  NPP_CHECK(nppiHistogramEvenGetBufferSize_8u_C4R_Ctx(size, levels.data(), &buffer_bytes, ctx));
  std::size_t gray_bytes = 0;
  NPP_CHECK(nppiHistogramEvenGetBufferSize_8u_C1R_Ctx(size, kLevels, &gray_bytes, ctx));
  DeviceBuffer buffer;
  buffer.reserve(std::max(buffer_bytes, gray_bytes));
  time("histogram per channel", "nppiHistogramEven_8u_C4R", kRgba * pixels, [&] {
    NPP_CHECK(nppiHistogramEven_8u_C4R_Ctx(im.rgba.data, step(im.rgba), size, hists.data(),
                                           levels.data(), lower.data(), upper.data(),
                                           buffer.as<Npp8u>(), ctx));
  });
  time("histogram gray", "nppiHistogramEven_8u_C1R (gray plane in)", pixels, [&] {
    NPP_CHECK(nppiHistogramEven_8u_C1R_Ctx(im.gray.data, step(im.gray), size, hists[0], kLevels, 0,
                                           kUpper, buffer.as<Npp8u>(), ctx));
  });
  return rows;
}

}  // namespace parfilter::cuda::bench
