// parfilter-bench-cuda: every op and variant of the CUDA backend on a 7680 x 4320 RGBA image.
// For each kernel: the median of CUDA-event timings after warm-up, the bytes it must move
// (each input and output once), the effective bandwidth and its fraction of a device-to-device
// cudaMemcpy of the image measured in the same run; NPP's counterparts side by side; sharpen at
// 2580 x 1319 (the classic course's K40 anchor); the pinned host-device bandwidth; the whole op
// through the backend (upload, compute, download) at sizes from 1 MB up against that bandwidth;
// and a batch of pinned images through run_batch against the bus time.
//
//   parfilter-bench-cuda [results.csv]
#include <algorithm>
#include <array>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "bench_npp.hpp"
#include "bench_timer.hpp"
#include "cuda_ops.hpp"
#include "filter_math.hpp"
#include "parfilter/backend.hpp"
#include "parfilter/backends/cuda.hpp"

namespace parfilter::cuda::bench {
namespace {

constexpr int kWidth = 7680;
constexpr int kHeight = 4320;
constexpr int kRgba = 4;
constexpr int kAnchorWidth = 2580;  // the course's sharpen anchor: 0.56 ms on a Tesla K40
constexpr int kAnchorHeight = 1319;
constexpr int kBatchImages = 16;
constexpr int kTransferRuns = 5;
/// 1 MB up to the whole 133 MB image, for the transfer table.
constexpr std::array<std::pair<int, int>, 5> kTransferSizes{
    {{512, 512}, {1024, 1024}, {2048, 2048}, {3840, 2160}, {kWidth, kHeight}}};

/// A photograph-like test image: smooth gradients with noise, flat areas and hard edges (not
/// zeros, which would flatter every kernel).
Image make_image(int width, int height) {
  Image img(width, height, kRgba);
  std::uint32_t state = 12345U;
  constexpr std::uint32_t kLcgA = 1664525U;
  constexpr std::uint32_t kLcgC = 1013904223U;
  constexpr int kNoise = 32;
  constexpr int kBlock = 64;
  for (int y = 0; y < height; ++y) {
    std::uint8_t* row = img.row(y);
    for (int x = 0; x < width; ++x) {
      state = state * kLcgA + kLcgC;
      const int noise = static_cast<int>(state >> 27) - kNoise / 2;
      const bool flat = ((x / kBlock) + (y / kBlock)) % 5 == 0;
      for (int c = 0; c < kRgba; ++c) {
        const int v =
            flat ? 40 + 50 * c : (x * 255 / width + y * 255 / height) / 2 + 30 * c + noise;
        row[x * kRgba + c] = static_cast<std::uint8_t>(std::clamp(v, 0, 255));
      }
    }
  }
  return img;
}

DeviceImage upload(DeviceBuffer& buffer, const Image& img) {
  const DeviceImage d = device_image(buffer, img.width(), img.height(), img.channels());
  CUDA_CHECK(cudaMemcpy2D(d.data, d.pitch, img.data(), static_cast<std::size_t>(img.stride()),
                          static_cast<std::size_t>(img.stride()), img.height(),
                          cudaMemcpyHostToDevice));
  return d;
}

void print_table(const std::vector<Row>& rows, double copy_gbs, std::FILE* csv) {
  std::printf("\n| op | implementation | time (ms) | GB/s | of copy |\n|---|---|---:|---:|---:|\n");
  for (const Row& r : rows) {
    const double gbs = gb_per_s(r.bytes, r.ms);
    std::printf("| %s | %s%s | %.3f | %.0f | %.0f%% |\n", r.op.c_str(), r.npp ? "NPP " : "",
                r.variant.c_str(), r.ms, gbs, 100.0 * gbs / copy_gbs);
    if (csv != nullptr) {
      std::fprintf(csv, "%s,%s,%d,%.5f,%.0f,%.2f,%.4f\n", r.op.c_str(), r.variant.c_str(),
                   r.npp ? 1 : 0, r.ms, r.bytes, gbs, gbs / copy_gbs);
    }
  }
}

struct Buffers {
  DeviceBuffer input, output, gray, gray_out, small, scratch, spare, counts, hist_scratch, tables;
};

/// Every op and variant of ours on `in` (RGBA).
std::vector<Row> run_ours(Buffers& b, const DeviceImage& in, cudaStream_t stream) {
  const double px = static_cast<double>(in.width) * in.height;
  const double rgba2 = 2.0 * kRgba * px;  // RGBA in, RGBA out
  const DeviceImage out = device_image(b.output, in.width, in.height, kRgba);
  const DeviceImage gray = device_image(b.gray, in.width, in.height, 1);
  const DeviceImage small = device_image(b.small, in.width, in.height, 1);
  const DeviceImage scratch = device_image(b.scratch, in.width, in.height, kRgba);
  b.counts.reserve(sizeof(unsigned long long) * kHistogramBins * kRgba);
  b.hist_scratch.reserve(
      std::max(histogram_scratch_bytes(HistogramVariant::no_atomics, in), std::size_t{1}));
  auto* counts = b.counts.as<unsigned long long>();
  std::vector<Row> rows;
  const auto time = [&](const std::string& op, const std::string& variant, double bytes,
                        const std::function<void()>& work, int max_runs = 21) {
    rows.push_back(
        {op, variant, median_ms(stream, work, max_runs > 3 ? 3 : 1, 3, max_runs), bytes});
    std::fprintf(stderr, "  %s %s: %.3f ms\n", op.c_str(), variant.c_str(), rows.back().ms);
  };
  const BorderMode replicate{};
  time("gray", "default", 5 * px, [&] { launch_gray(in, gray, stream); });

  const GaussianWeights weights = gaussian_weights(OpParams{}.sigma);
  std::vector<std::uint32_t> lut;
  for (const auto& row : gaussian_lut(weights)) lut.insert(lut.end(), row.begin(), row.end());
  std::vector<int> w25;
  for (int i = 0; i < kGaussianTaps; ++i) {
    for (int j = 0; j < kGaussianTaps; ++j) w25.push_back(weights.weight(i, j));
  }
  b.tables.reserve(lut.size() * sizeof(std::uint32_t) + w25.size() * sizeof(int));
  CUDA_CHECK(cudaMemcpy(b.tables.get(), lut.data(), lut.size() * 4, cudaMemcpyHostToDevice));
  int* d_w25 = reinterpret_cast<int*>(b.tables.as<std::uint32_t>() + lut.size());
  CUDA_CHECK(cudaMemcpy(d_w25, w25.data(), w25.size() * sizeof(int), cudaMemcpyHostToDevice));
  const GaussianTables tables{d_w25, b.tables.as<std::uint32_t>()};
  const std::vector<std::pair<std::string, GaussianVariant>> gaussians = {
      {"registers", GaussianVariant::registers},
      {"separable", GaussianVariant::separable},
      {"direct", GaussianVariant::direct},
      {"unrolled", GaussianVariant::unrolled},
      {"lut", GaussianVariant::lut},
      {"texture", GaussianVariant::texture}};
  for (const auto& [name, v] : gaussians) {
    time("gaussian", name, rgba2,
         [&, v = v] { launch_gaussian(v, in, out, weights.q, tables, replicate, stream); });
  }
  for (const auto& [name, v] :
       {std::pair{"vector", SharpenVariant::vector}, std::pair{"naive", SharpenVariant::naive},
        std::pair{"tile", SharpenVariant::tile}}) {
    time("sharpen", name, rgba2, [&, v = v] { launch_sharpen(v, in, out, replicate, stream); });
  }
  time("sobel", "multi", 5 * px,
       [&] { launch_sobel_multi(in, small, replicate, SobelOutput::magnitude, stream); });
  time("sobel", "pixel (gray kernel + sobel kernel)", 5 * px, [&] {
    launch_gray(in, gray, stream);
    launch_sobel_pixel(gray, small, replicate, SobelOutput::magnitude, stream);
  });
  for (const auto& [name, v] : {std::pair{"shared-atomics", HistogramVariant::shared_atomics},
                                std::pair{"no-atomics", HistogramVariant::no_atomics}}) {
    time("histogram gray", name, kRgba * px, [&, v = v] {
      launch_histogram(v, HistogramSource::gray, in, counts, b.hist_scratch.get(), {}, stream);
    });
    time("histogram per channel", name, kRgba * px, [&, v = v] {
      launch_histogram(v, HistogramSource::channels, in, counts, b.hist_scratch.get(), {}, stream);
    });
  }
  const HistogramVariant atomics = HistogramVariant::shared_atomics;
  time("equalize", "luma histogram pass", kRgba * px, [&] {
    launch_histogram(atomics, HistogramSource::luma, in, counts, b.hist_scratch.get(), {}, stream);
  });
  std::array<std::uint8_t, kHistogramBins> identity{};
  for (int v = 0; v < kHistogramBins; ++v) identity[v] = static_cast<std::uint8_t>(255 - v);
  time("equalize", "apply pass", rgba2,
       [&] { launch_equalize_color(in, out, identity.data(), stream); });
  time("otsu", "gray + histogram pass", 5 * px, [&] {
    launch_histogram(atomics, HistogramSource::gray, in, counts, b.hist_scratch.get(), gray,
                     stream);
  });
  time("otsu", "threshold pass", 2 * px, [&] { launch_threshold(gray, small, 128, stream); });
  time(
      "segment adaptive 31x31", "default", 2 * px,
      [&] { launch_adaptive_segment(gray, small, 31, 15, 128, stream); }, 3);
  for (const int side : {3, 31}) {
    const SeSpec se{SeShape::rect, side, side};
    const auto rects = morphology_rects(se);
    const auto spans = morphology_spans(se);
    for (const auto& [name, v] :
         {std::pair{"vhgw", MorphVariant::vhgw}, std::pair{"separable", MorphVariant::separable},
          std::pair{"naive", MorphVariant::naive}}) {
      time(
          "erode rect " + std::to_string(side) + "x" + std::to_string(side), name, rgba2,
          [&, v = v] {
            launch_morphology(v, MorphOp::erode, in, out, scratch, rects, spans, stream);
          },
          side > 3 && v == MorphVariant::naive ? 3 : 21);
    }
  }
  for (const SeSpec& se : {SeSpec{SeShape::ellipse, 15, 15}, SeSpec{SeShape::ellipse, 7, 7},
                           SeSpec{SeShape::cross, 15, 15}, SeSpec{SeShape::ellipse, 31, 15}}) {
    time("erode " + to_string(se), "vhgw", rgba2, [&] {
      launch_morphology(MorphVariant::vhgw, MorphOp::erode, in, out, scratch, morphology_rects(se),
                        morphology_spans(se), stream);
    });
  }
  const DeviceImage pooled = device_image(b.spare, in.width / 2, in.height / 2, kRgba);
  time("pool", "default", kRgba * px * 1.25, [&] { launch_pool(in, pooled, stream); });
  return rows;
}

double copy_bandwidth(Buffers& b, const DeviceImage& in, cudaStream_t stream) {
  const std::size_t bytes = in.pitch * static_cast<std::size_t>(in.height);
  b.spare.reserve(bytes);
  const double ms = device_copy_ms(stream, b.spare.get(), in.data, bytes);
  const double gbs = gb_per_s(2.0 * static_cast<double>(bytes), ms);
  std::printf("device-to-device cudaMemcpy of %.1f MB: %.3f ms = %.0f GB/s (read + written)\n",
              static_cast<double>(bytes) / 1e6, ms, gbs);
  return gbs;
}

void anchor_sharpen(Buffers& b, cudaStream_t stream) {
  const Image img = make_image(kAnchorWidth, kAnchorHeight);
  const DeviceImage in = upload(b.input, img);
  const DeviceImage out = device_image(b.output, in.width, in.height, kRgba);
  std::printf("\nsharpen at %dx%d RGBA (the course's K40 anchor: 0.56 ms):\n", kAnchorWidth,
              kAnchorHeight);
  for (const auto& [name, v] :
       {std::pair{"vector", SharpenVariant::vector}, std::pair{"naive", SharpenVariant::naive},
        std::pair{"tile", SharpenVariant::tile}}) {
    const double ms = median_ms(stream, [&, v = v] { launch_sharpen(v, in, out, {}, stream); });
    std::printf("  %-7s %.4f ms\n", name, ms);
  }
}

/// Host-to-device and device-to-host bandwidth of a plain cudaMemcpy from and to page-locked
/// memory, as a bandwidth test measures it: the bus's limit, in the same run as the backend.
struct BusBandwidth {
  double up_gbs = 0.0;
  double down_gbs = 0.0;
};

BusBandwidth pinned_bandwidth(std::size_t bytes) {
  void* host = nullptr;
  CUDA_CHECK(cudaHostAlloc(&host, bytes, cudaHostAllocDefault));
  DeviceBuffer device;
  device.reserve(bytes);
  const auto median_copy_ms = [&](cudaMemcpyKind kind) {
    std::vector<double> ms;
    for (int i = 0; i < kTransferRuns + 1; ++i) {
      const auto start = std::chrono::steady_clock::now();
      if (kind == cudaMemcpyHostToDevice) {
        CUDA_CHECK(cudaMemcpy(device.get(), host, bytes, kind));
      } else {
        CUDA_CHECK(cudaMemcpy(host, device.get(), bytes, kind));
      }
      if (i > 0) ms.push_back(elapsed_ms(start));
    }
    std::sort(ms.begin(), ms.end());
    return ms[ms.size() / 2];
  };
  BusBandwidth bus{gb_per_s(static_cast<double>(bytes), median_copy_ms(cudaMemcpyHostToDevice)),
                   gb_per_s(static_cast<double>(bytes), median_copy_ms(cudaMemcpyDeviceToHost))};
  CUDA_CHECK(cudaFreeHost(host));
  return bus;
}

/// The same bytes' plain cudaMemcpyAsync between page-locked memory and the device, timed as
/// the backend times its transfers (events behind a stream gate): the bus's limit at this size,
/// where a fixed cost per transfer weighs on small images.
BusBandwidth pinned_bandwidth_at(std::size_t bytes, cudaStream_t stream) {
  void* host = nullptr;
  CUDA_CHECK(cudaHostAlloc(&host, bytes, cudaHostAllocDefault));
  DeviceBuffer device;
  device.reserve(bytes);
  const double up_ms = median_ms(stream, [&] {
    CUDA_CHECK(cudaMemcpyAsync(device.get(), host, bytes, cudaMemcpyHostToDevice, stream));
  });
  const double down_ms = median_ms(stream, [&] {
    CUDA_CHECK(cudaMemcpyAsync(host, device.get(), bytes, cudaMemcpyDeviceToHost, stream));
  });
  CUDA_CHECK(cudaFreeHost(host));
  return {gb_per_s(static_cast<double>(bytes), up_ms),
          gb_per_s(static_cast<double>(bytes), down_ms)};
}

/// A copy of `img` in the backend's page-locked pool, as the batch pipeline decodes into it.
Image pooled_copy(Backend& backend, const Image& img) {
  Image pooled =
      Image::uninitialized(img.width(), img.height(), img.channels(), backend.host_allocator());
  std::copy_n(img.data(), img.size_bytes(), pooled.data());
  return pooled;
}

/// The whole op through the backend (upload, kernels, download) at sizes from 1 MB up, each
/// transfer against the bus's pinned bandwidth; and a batch in memory against the bus time.
void end_to_end(const Image& img) {
  const auto backend = make_cuda_backend({});
  (void)backend->run(Op::gray, img.view(), {});  // the device in use: the pool now pins
  const BusBandwidth bus = pinned_bandwidth(img.size_bytes());
  std::printf(
      "\npinned cudaMemcpy of %.0f MB: host to device %.1f GB/s, device to host %.1f "
      "GB/s\n",
      static_cast<double>(img.size_bytes()) / 1e6, bus.up_gbs, bus.down_gbs);
  std::printf(
      "\n| image | MB | upload ms | GB/s | of bus | of a same-size copy | download ms | GB/s | "
      "of bus | of a same-size copy | compute ms |\n"
      "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
  const Stream copies;
  for (const auto& [w, h] : kTransferSizes) {
    const Image input = pooled_copy(*backend, make_image(w, h));
    const BusBandwidth same_size = pinned_bandwidth_at(input.size_bytes(), copies.get());
    std::vector<StageTimes> runs;
    for (int i = 0; i < kTransferRuns + 1; ++i) {
      StageTimes t;
      (void)backend->run(Op::gaussian, input.view(), {}, &t);
      if (i > 0) runs.push_back(t);
    }
    const auto median_of = [&](auto get) {
      std::vector<double> v;
      for (const auto& t : runs) v.push_back(get(t));
      std::sort(v.begin(), v.end());
      return v[v.size() / 2];
    };
    const double bytes = static_cast<double>(input.size_bytes());
    const double up = median_of([](const StageTimes& t) { return t.upload_ms.value_or(0.0); });
    const double down = median_of([](const StageTimes& t) { return t.download_ms.value_or(0.0); });
    const double compute = median_of([](const StageTimes& t) { return t.compute_ms; });
    std::printf(
        "| %dx%d RGBA | %.1f | %.3f | %.1f | %.0f%% | %.0f%% | %.3f | %.1f | %.0f%% | %.0f%% | "
        "%.3f |\n",
        w, h, bytes / 1e6, up, gb_per_s(bytes, up), 100.0 * gb_per_s(bytes, up) / bus.up_gbs,
        100.0 * gb_per_s(bytes, up) / same_size.up_gbs, down, gb_per_s(bytes, down),
        100.0 * gb_per_s(bytes, down) / bus.down_gbs,
        100.0 * gb_per_s(bytes, down) / same_size.down_gbs, compute);
  }
  // The batch: every input already in the pool (as the pipeline decodes them), moved in once.
  for (int pass = 0; pass < 2; ++pass) {  // the first pass warms up (the pool fills)
    std::vector<Image> images;
    for (int i = 0; i < kBatchImages; ++i) images.push_back(pooled_copy(*backend, img));
    BatchCallbacks callbacks;
    callbacks.next = indexed_inputs(
        images.size(), [&](std::size_t i) -> std::optional<Image> { return std::move(images[i]); });
    callbacks.done = [](std::size_t, OpOutput&&, const StageTimes&) {};
    callbacks.failed = [](std::size_t, const std::exception_ptr& e) { std::rethrow_exception(e); };
    const auto start = std::chrono::steady_clock::now();
    backend->run_batch(OpChain{{Op::gaussian, {}}}, callbacks);
    const double batched = elapsed_ms(start);
    if (pass == 1) {
      const double bytes = static_cast<double>(img.size_bytes()) * kBatchImages;
      const double bus_ms = bytes / (bus.up_gbs * 1e6) + bytes / (bus.down_gbs * 1e6);
      std::printf(
          "\nbatch of %d %dx%d RGBA images in pinned memory, gaussian (run_batch, 3 "
          "streams): %.1f ms; the bus alone (every byte up then down at the pinned "
          "bandwidth): %.1f ms; ratio %.2f\n",
          kBatchImages, img.width(), img.height(), batched, bus_ms, batched / bus_ms);
    }
  }
}

int bench_main(int argc, char** argv) {
  std::FILE* csv = argc > 1 ? std::fopen(argv[1], "w") : nullptr;
  if (csv != nullptr) std::fprintf(csv, "op,implementation,npp,ms,bytes,gbs,fraction_of_copy\n");
  CUDA_CHECK(cudaSetDevice(0));
  cudaDeviceProp prop{};
  CUDA_CHECK(cudaGetDeviceProperties(&prop, 0));
  std::printf("parfilter-bench-cuda on %s (%d SMs, %.0f GB)\n", prop.name, prop.multiProcessorCount,
              static_cast<double>(prop.totalGlobalMem) / kBytesPerGB);
  const Stream stream;
  Buffers b;
  const Image img = make_image(kWidth, kHeight);
  const DeviceImage in = upload(b.input, img);
  std::printf("image %dx%d RGBA (%.1f MB)\n", kWidth, kHeight,
              static_cast<double>(img.size_bytes()) / 1e6);
  const double copy_gbs = copy_bandwidth(b, in, stream.get());
  std::vector<Row> rows = run_ours(b, in, stream.get());
  const std::string missing = npp_missing();
  if (missing.empty()) {
    const DeviceImage gray = device_image(b.gray, kWidth, kHeight, 1);
    launch_gray(in, gray, stream.get());
    const NppImages images{in, gray, device_image(b.output, kWidth, kHeight, kRgba),
                           device_image(b.gray_out, kWidth, kHeight, 1)};
    for (Row& r : run_npp(images, stream.get())) rows.push_back(std::move(r));
  } else {
    std::printf("%s: no NPP rows\n", missing.c_str());
  }
  print_table(rows, copy_gbs, csv);
  if (csv != nullptr) std::fclose(csv);
  anchor_sharpen(b, stream.get());
  end_to_end(img);
  return 0;
}

}  // namespace
}  // namespace parfilter::cuda::bench

int main(int argc, char** argv) {
  try {
    return parfilter::cuda::bench::bench_main(argc, argv);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "parfilter-bench-cuda: %s\n", e.what());
    return 1;
  }
}
