#include "bench_transfers.hpp"

#include <algorithm>
#include <array>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <optional>
#include <span>
#include <vector>

#include "cl_device.hpp"
#include "cl_runtime.hpp"
#include "parfilter/backend.hpp"
#include "parfilter/backends/opencl.hpp"
#include "parfilter/error.hpp"
#include "synthetic.hpp"
#include "timing.hpp"

namespace parfilter::bench {
namespace {

using Clock = std::chrono::steady_clock;

constexpr int kRgba = 4;
constexpr double kBytesPerMB = 1e6;
struct Size {
  int width;
  int height;
};
/// 1 MB up to the whole 8K image (133 MB), as bench/cuda; the quick scale stops at Full HD.
constexpr std::array<Size, 5> kFullSizes{
    {{512, 512}, {1024, 1024}, {2048, 2048}, {3840, 2160}, {7680, 4320}}};
constexpr std::array<Size, 3> kQuickSizes{{{512, 512}, {1024, 1024}, {1920, 1080}}};
constexpr int kFullBatch = 16;
constexpr int kQuickBatch = 4;
/// The op every transfer run computes: bench/cuda's, one kernel between the transfers.
constexpr Op kOp = Op::gaussian;

double gb_per_s(double bytes, double ms) { return ms > 0.0 ? bytes / (ms * kBytesPerMB) : 0.0; }

double median(std::vector<double> samples) { return summarize(std::move(samples)).median_ms; }

/// The median of `runs` calls of `work` after one untimed call, in ms of wall time.
double median_ms(int runs, const std::function<void()>& work) {
  std::vector<double> ms;
  for (int i = 0; i <= runs; ++i) {
    const auto start = Clock::now();
    work();
    if (i > 0) ms.push_back(elapsed_ms(start));
  }
  return median(ms);
}

struct Bandwidth {
  double up_gbs = 0.0;
  double down_gbs = 0.0;
};

/// How a bus copy is timed: by its profiling events, as the backend times its own transfers
/// (page-locked memory), or by the wall clock around a blocking call (pageable memory, whose
/// staging by the driver the events would not show).
enum class CopyTiming { events, wall };

/// clEnqueueWriteBuffer and clEnqueueReadBuffer of `host` into a device buffer and back, as a
/// bandwidth test measures them: the limit the backend's transfers can reach at this size.
Bandwidth copy_bandwidth(const opencl::Runtime& rt, const opencl::Queue& queue,
                         std::span<unsigned char> host, int runs, CopyTiming timing) {
  const std::size_t bytes = host.size();
  const opencl::Buffer device =
      opencl::create_checked<cl_mem>("clCreateBuffer(bandwidth)", [&](cl_int* error) {
        return clCreateBuffer(rt.context(), CL_MEM_READ_WRITE, bytes, nullptr, error);
      });
  const auto median_copy_ms = [&](bool up) {
    const auto copy = [&](cl_event* event) {
      const cl_bool blocking = event == nullptr ? CL_TRUE : CL_FALSE;
      if (up) {
        opencl::check(clEnqueueWriteBuffer(queue.get(), device.get(), blocking, 0, bytes,
                                           host.data(), 0, nullptr, event),
                      "clEnqueueWriteBuffer(bandwidth)");
      } else {
        opencl::check(clEnqueueReadBuffer(queue.get(), device.get(), blocking, 0, bytes,
                                          host.data(), 0, nullptr, event),
                      "clEnqueueReadBuffer(bandwidth)");
      }
    };
    if (timing == CopyTiming::wall) return median_ms(runs, [&] { copy(nullptr); });
    std::vector<double> ms;
    for (int i = 0; i <= runs; ++i) {
      cl_event raw = nullptr;
      copy(&raw);
      const opencl::Event event(raw);
      opencl::check(clWaitForEvents(1, &raw), "clWaitForEvents(bandwidth)");
      if (i > 0) ms.push_back(opencl::event_ms(raw));
    }
    return median(ms);
  };
  const auto total = static_cast<double>(bytes);
  return {gb_per_s(total, median_copy_ms(true)), gb_per_s(total, median_copy_ms(false))};
}

/// Page-locked (a mapped CL_MEM_ALLOC_HOST_PTR buffer of the backend's host pool, where the
/// pipeline decodes inputs) and pageable (fresh heap memory, touched once) bandwidths.
struct BusBandwidth {
  Bandwidth pinned;
  Bandwidth pageable;
};

BusBandwidth bus_bandwidth(opencl::Runtime& rt, std::size_t bytes, int runs) {
  const opencl::Queue queue =
      opencl::create_checked<cl_command_queue>("clCreateCommandQueue", [&](cl_int* error) {
        return clCreateCommandQueue(rt.context(), rt.device(), CL_QUEUE_PROFILING_ENABLE, error);
      });
  const std::shared_ptr<opencl::HostPool>& pool = rt.host_pool();
  auto* pinned = static_cast<unsigned char*>(pool->allocate(bytes));
  std::fill_n(pinned, bytes, 1);
  BusBandwidth bus;
  try {
    bus.pinned = copy_bandwidth(rt, queue, {pinned, bytes}, runs, CopyTiming::events);
  } catch (...) {
    pool->deallocate(pinned, bytes);
    throw;
  }
  pool->deallocate(pinned, bytes);
  std::vector<unsigned char> pageable(bytes, 1);
  bus.pageable = copy_bandwidth(rt, queue, pageable, runs, CopyTiming::wall);
  return bus;
}

/// A copy of `image` in the backend's host pool, as the batch pipeline decodes into it.
Image pooled_copy(Backend& backend, const Image& image) {
  Image pooled = Image::uninitialized(image.width(), image.height(), image.channels(),
                                      backend.host_allocator());
  std::copy_n(image.data(), image.size_bytes(), pooled.data());
  return pooled;
}

/// The backend's own upload and download (profiling events) and kernel time, medians.
StageTimes backend_stages(Backend& backend, const Image& input, int runs) {
  std::vector<double> up;
  std::vector<double> down;
  std::vector<double> compute;
  for (int i = 0; i <= runs; ++i) {
    StageTimes t;
    (void)backend.run(kOp, input.view(), {}, &t);
    if (i == 0) continue;
    up.push_back(t.upload_ms.value_or(0.0));
    down.push_back(t.download_ms.value_or(0.0));
    compute.push_back(t.compute_ms);
  }
  StageTimes medians;
  medians.upload_ms = median(up);
  medians.download_ms = median(down);
  medians.compute_ms = median(compute);
  return medians;
}

/// run_batch over `count` host-pool copies of `image`, wall time of the second pass (the
/// first fills the host pool and the lanes' buffers).
double batch_ms(Backend& backend, const Image& image, int count) {
  double ms = 0.0;
  for (int pass = 0; pass < 2; ++pass) {
    std::vector<Image> images;
    for (int i = 0; i < count; ++i) images.push_back(pooled_copy(backend, image));
    BatchCallbacks callbacks;
    callbacks.next = indexed_inputs(
        images.size(), [&](std::size_t i) -> std::optional<Image> { return std::move(images[i]); });
    callbacks.done = [](std::size_t, OpOutput&&, const StageTimes&) {};
    callbacks.failed = [](std::size_t, const std::exception_ptr& e) { std::rethrow_exception(e); };
    const auto start = Clock::now();
    backend.run_batch(OpChain{{kOp, {}}}, callbacks);
    ms = elapsed_ms(start);
  }
  return ms;
}

/// The same images through run_chain one after another: nothing overlaps.
double sequential_ms(Backend& backend, const Image& image, int count) {
  const Image input = pooled_copy(backend, image);
  (void)backend.run_chain(OpChain{{kOp, {}}}, input.view());
  const auto start = Clock::now();
  for (int i = 0; i < count; ++i) (void)backend.run_chain(OpChain{{kOp, {}}}, input.view());
  return elapsed_ms(start);
}

}  // namespace

int run_transfers(const TransferArgs& args) {
  const std::unique_ptr<Backend> backend = make_opencl_backend(args.options);
  if (const Availability a = backend->availability(); !a.present) {
    std::fprintf(stderr, "bench-opencl: %s\n", a.reason.c_str());
    return 1;
  }
  // The device the backend chose, for the plain copies on the same context.
  opencl::DeviceList list = opencl::enumerate_devices();
  const opencl::DeviceChoice choice = opencl::choose_device(
      list, opencl::device_request(args.options,
                                   std::getenv(std::string(opencl::kDeviceEnvVar).c_str())));
  const opencl::DeviceInfo& device = list.devices[*choice.device];
  opencl::Runtime& rt = opencl::Runtime::of(device.id);
  const bool cpu = (device.type & CL_DEVICE_TYPE_CPU) != 0;
  const bool full =
      args.scale == TransferScale::full || (args.scale == TransferScale::automatic && !cpu);
  const std::span<const Size> sizes =
      full ? std::span<const Size>(kFullSizes) : std::span<const Size>(kQuickSizes);
  const int batch = full ? kFullBatch : kQuickBatch;

  std::printf("## Transfers against the bus (%s scale)\n\n", full ? "full" : "quick");
  std::printf(
      "%s, op %s. Bus: clEnqueueWriteBuffer (up) and clEnqueueReadBuffer (down) of the same "
      "bytes between a device buffer and page-locked memory (a mapped CL_MEM_ALLOC_HOST_PTR "
      "buffer of the host pool; profiling events, as the backend is timed) or pageable heap "
      "memory (blocking, wall time). Backend: Backend::run from a host-pool input, its upload "
      "and download profiling events. Medians of %d runs after 1.\n\n",
      device.name.c_str(), std::string(op_name(kOp)).c_str(), args.runs);
  std::printf(
      "| image | MB | pinned up GB/s | pinned down GB/s | pageable up GB/s | pageable down GB/s "
      "| upload ms | upload GB/s | of pinned | download ms | download GB/s | of pinned | "
      "kernels ms |\n|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
  Bandwidth largest;
  for (const Size& size : sizes) {
    const Image input =
        pooled_copy(*backend, bench::synthetic_image(size.width, size.height, kRgba));
    const auto bytes = static_cast<double>(input.size_bytes());
    const BusBandwidth bus = bus_bandwidth(rt, input.size_bytes(), args.runs);
    const StageTimes t = backend_stages(*backend, input, args.runs);
    const double up = gb_per_s(bytes, *t.upload_ms);
    const double down = gb_per_s(bytes, *t.download_ms);
    std::printf(
        "| %dx%d RGBA | %.1f | %.1f | %.1f | %.1f | %.1f | %.3f | %.1f | %.0f%% | %.3f | %.1f | "
        "%.0f%% | %.3f |\n",
        size.width, size.height, bytes / kBytesPerMB, bus.pinned.up_gbs, bus.pinned.down_gbs,
        bus.pageable.up_gbs, bus.pageable.down_gbs, *t.upload_ms, up,
        100.0 * up / bus.pinned.up_gbs, *t.download_ms, down, 100.0 * down / bus.pinned.down_gbs,
        t.compute_ms);
    std::fflush(stdout);
    largest = bus.pinned;
  }
  const Size last = sizes.back();
  const Image image = bench::synthetic_image(last.width, last.height, kRgba);
  const double batched = batch_ms(*backend, image, batch);
  const double one_by_one = sequential_ms(*backend, image, batch);
  const double bytes = static_cast<double>(image.size_bytes()) * batch;
  const double bus_ms =
      bytes / (largest.up_gbs * kBytesPerMB) + bytes / (largest.down_gbs * kBytesPerMB);
  std::printf(
      "\nBatch of %d %dx%d RGBA images in host-pool memory, %s: run_batch (lanes overlapping "
      "upload, kernels and download) %.1f ms; run_chain one after another %.1f ms (%.2fx); the "
      "bus alone (every byte up, then down, at the pinned bandwidth) %.1f ms; run_batch / bus "
      "%.2f\n",
      batch, last.width, last.height, std::string(op_name(kOp)).c_str(), batched, one_by_one,
      one_by_one / batched, bus_ms, batched / bus_ms);
  return 0;
}

}  // namespace parfilter::bench
