#include "cl_lane.hpp"

#include <algorithm>
#include <cstring>

namespace parfilter::opencl {
namespace {

std::size_t round_up(std::size_t n, std::size_t multiple) {
  return (n + multiple - 1) / multiple * multiple;
}

}  // namespace

Lane::Lane(Runtime& runtime)
    : runtime_(runtime),
      queue_(create_checked<cl_command_queue>("clCreateCommandQueue", [&](cl_int* error) {
        return clCreateCommandQueue(runtime.context(), runtime.device(), CL_QUEUE_PROFILING_ENABLE,
                                    error);
      })) {}

Lane::~Lane() { drain(); }

void Lane::enqueue(cl_kernel kernel, std::string_view name, Range items, Range local) {
  const std::size_t global[] = {round_up(items.x, local.x), round_up(items.y, local.y)};
  const std::size_t group[] = {local.x, local.y};
  constexpr cl_uint kDims = 2;
  check(clEnqueueNDRangeKernel(queue(), kernel, kDims, nullptr, global, group, 0, nullptr,
                               track(Stage::compute)),
        call_name("clEnqueueNDRangeKernel", name));
}

Buffer Lane::buffer(std::size_t bytes, std::string_view what) {
  for (PooledBuffer& pooled : pool_) {
    if (!pooled.held && pooled.bytes == bytes) {
      pooled.held = true;
      pooled.used = true;
      return pooled.buffer;
    }
  }
  Buffer created = create_checked<cl_mem>(call_name("clCreateBuffer", what), [&](cl_int* error) {
    return clCreateBuffer(context(), CL_MEM_READ_WRITE, bytes, nullptr, error);
  });
  pool_.push_back({bytes, created, true, true});
  return created;
}

Buffer Lane::upload(const void* data, std::size_t bytes, std::string_view what) {
  Buffer created = buffer(bytes, what);
  const auto* first = static_cast<const unsigned char*>(data);
  const std::vector<unsigned char>& copy = tables_.emplace_back(first, first + bytes);
  check(clEnqueueWriteBuffer(queue(), created.get(), CL_FALSE, 0, bytes, copy.data(), 0, nullptr,
                             track(Stage::upload)),
        call_name("clEnqueueWriteBuffer", what));
  return created;
}

void Lane::download(const Buffer& buffer, void* data, std::size_t bytes, std::string_view what) {
  check(clEnqueueReadBuffer(queue(), buffer.get(), CL_TRUE, 0, bytes, data, 0, nullptr,
                            track(Stage::download)),
        call_name("clEnqueueReadBuffer", what));
}

void Lane::zero(const Buffer& buffer, std::size_t bytes, std::string_view what) {
  const cl_uchar pattern = 0;
  check(clEnqueueFillBuffer(queue(), buffer.get(), &pattern, sizeof(pattern), 0, bytes, 0, nullptr,
                            track(Stage::compute)),
        call_name("clEnqueueFillBuffer", what));
}

cl_event* Lane::track(Stage stage) {
  events_.emplace_back(stage, Event());
  return events_.back().second.out();
}

void Lane::begin_image() {
  events_.clear();
  tables_.clear();
  build_ms_ = 0.0;
  // Keep what the last image used (the next image of the same chain and size needs the same
  // buffers), release the rest.
  std::erase_if(pool_, [](const PooledBuffer& pooled) { return !pooled.used; });
  for (PooledBuffer& pooled : pool_) pooled.held = pooled.used = false;
}

void Lane::release_except(const Buffer& keep) {
  for (PooledBuffer& pooled : pool_) pooled.held = pooled.buffer.get() == keep.get();
}

void Lane::flush() { check(clFlush(queue()), "clFlush"); }

void Lane::finish(StageTimes* times) {
  check(clFinish(queue()), "clFinish");
  if (times != nullptr) {
    double upload = 0.0;
    double compute = 0.0;
    double download = 0.0;
    for (const auto& [stage, event] : events_) {
      const double ms = event_ms(event.get());
      (stage == Stage::upload ? upload : stage == Stage::compute ? compute : download) += ms;
    }
    times->compute_ms = compute;
    times->upload_ms = upload;
    times->download_ms = download;
    times->build_ms = build_ms_;
  }
  events_.clear();
}

void Lane::drain() noexcept { (void)clFinish(queue()); }

}  // namespace parfilter::opencl
