#include "parfilter/strip_pipeline.hpp"

#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <fstream>
#include <limits>
#include <optional>
#include <string>

#include "parfilter/error.hpp"
#include "parfilter/strip_plan.hpp"
#include "strip_stages.hpp"
#include "strip_threads.hpp"

namespace parfilter {
namespace {

constexpr std::uint64_t kMebibyte = std::uint64_t{1} << 20;

std::string mebibytes(std::uint64_t bytes) {
  return std::to_string((bytes + kMebibyte - 1) / kMebibyte) + " MiB";
}

/// A device's strips are this many times the host's: each transfer and launch has a fixed
/// cost (tens of microseconds) that larger strips amortize, and a strip must fill the GPU.
constexpr std::size_t kDeviceStripScale = 8;

/// A quarter: the process's own share of a limit beside its strips.
constexpr std::uint64_t kBudgetShare = 4;
constexpr const char* kCgroupMemoryMax = "/sys/fs/cgroup/memory.max";

/// The cgroup (v2) memory limit of this process, if it has one.
std::optional<std::uint64_t> cgroup_memory_limit() {
  std::ifstream file(kCgroupMemoryMax);
  std::uint64_t bytes = 0;
  if (file >> bytes) return bytes;  // "max" (no limit) does not parse
  return std::nullopt;
}

}  // namespace

std::uint64_t default_max_memory() {
  std::uint64_t limit = std::numeric_limits<std::uint64_t>::max();
  rlimit address_space{};
  if (::getrlimit(RLIMIT_AS, &address_space) == 0 && address_space.rlim_cur != RLIM_INFINITY) {
    limit = std::min<std::uint64_t>(limit, address_space.rlim_cur);
  }
  if (const auto cgroup = cgroup_memory_limit()) limit = std::min(limit, *cgroup);
  const long pages = ::sysconf(_SC_AVPHYS_PAGES);
  const long page_size = ::sysconf(_SC_PAGESIZE);
  if (pages > 0 && page_size > 0) {
    limit =
        std::min(limit, static_cast<std::uint64_t>(pages) * static_cast<std::uint64_t>(page_size));
  }
  return std::min(kDefaultMaxMemoryBytes, limit / kBudgetShare);
}

StreamShape streamed_result_shape(const OpChain& chain, const StreamShape& input) {
  ImageShape shape{input.width, input.height, input.channels};
  for (const OpStep& step : chain) {
    if (!op_info(step.op).traits.histogram_result) shape = result_shape(step.op, shape);
  }
  return {shape.width, shape.height, shape.channels, input.depth};
}

OpOutput run_streamed(Backend& backend, const OpChain& chain, RowReader& input, RowWriter* output,
                      const StripOptions& options, StageTimes* times) {
  const StreamShape in_shape = input.shape();
  if (in_shape.depth == Depth::u16) check_depth(backend, in_shape.depth);
  const bool ends_in_histogram = op_info(chain.back().op).traits.histogram_result;
  if (!ends_in_histogram && output == nullptr) {
    throw std::logic_error("run_streamed: an image result needs a writer");
  }
  OpChain body = chain;
  if (ends_in_histogram) body.pop_back();

  // The stages with strips of options' size; automatic strips halve until they fit.
  StripOptions tuned = options;
  strips::StageList stages;
  const bool overlapped = options.threads > 1;  // decoding and encoding beside the compute
  // A device backend overlaps its strips' transfers and kernels on its in-flight ring.
  const bool on_device_ring =
      !backend.computes_on_host() && backend.batch_depth() > 1 && !options.follower;
  std::uint64_t held = 0;
  int write_rows = 1;
  for (;;) {
    stages.clear();
    stages.add(std::make_unique<strips::ReaderStage>(input));
    if (overlapped) {
      const int rows = strips::strip_rows_for(in_shape, 0, tuned);
      stages.add(std::make_unique<strips::PrefetchStage>(stages.last(), rows));
    }
    for (const OpChain& segment : band_segments(body)) {
      strips::RowStage& upstream = stages.last();
      if (runs_on_bands(segment.front().op)) {
        const StreamShape shape = streamed_result_shape(segment, upstream.shape());
        if (on_device_ring) {
          StripOptions device_strips = tuned;
          device_strips.strip_bytes *= kDeviceStripScale;
          const int rows = strips::strip_rows_for(shape, segment_halo(segment), device_strips);
          stages.add(std::make_unique<strips::DeviceBandStage>(backend, segment, upstream, rows));
        } else {
          const int rows = strips::strip_rows_for(shape, segment_halo(segment), tuned);
          stages.add(std::make_unique<strips::BandStage>(backend, segment, upstream, rows,
                                                         options.follower));
        }
      } else {
        stages.add(strips::make_global_stage(segment.front(), upstream, tuned));
      }
    }
    const StreamShape shape = stages.last().shape();
    write_rows = strips::strip_rows_for(shape, 0, tuned);
    const std::uint64_t write_strip = static_cast<std::uint64_t>(write_rows) * shape.row_bytes();
    held = overlapped ? (strips::kQueuedStrips + 2) * write_strip : write_strip;
    // The reader's bytes count once, in the stage that holds them.
    for (std::size_t i = overlapped ? 1 : 0; i < stages.all().size(); ++i) {
      held += stages.all()[i]->held_bytes();
    }
    if (held <= options.max_memory || options.strip_rows > 0 || tuned.strip_bytes <= 1) break;
    tuned.strip_bytes /= 2;
  }
  if (held > options.max_memory) {
    throw RuntimeError("the chain's strips need " + mebibytes(held) + ", over --max-memory " +
                       mebibytes(options.max_memory) + " (raise it, or use fewer --strip-rows)");
  }
  strips::RowStage& last = stages.last();
  const StreamShape out_shape = last.shape();

  OpOutput result;
  if (ends_in_histogram) {
    result = strips::stream_histogram(chain.back(), last, options);
  } else {
    const auto stride = static_cast<std::ptrdiff_t>(out_shape.row_bytes());
    std::optional<strips::WriterThread> writer;
    if (overlapped) writer.emplace(*output, out_shape.row_bytes());
    strips::RowStrip strip;
    for (int done = 0; done < out_shape.height;) {
      const int count = std::min(write_rows, out_shape.height - done);
      strip.count = count;
      const std::size_t bytes = static_cast<std::size_t>(count) * out_shape.row_bytes();
      if (writer) {
        strip.rows = writer->buffer(bytes);
      } else {
        strip.rows.resize(bytes);
      }
      last.read(strip.rows.data(), stride, count);
      if (writer) {
        writer->write(std::move(strip));
        strip = {};
      } else {
        output->write_rows(strip.rows.data(), stride, count);
      }
      done += count;
      if (options.progress) options.progress(done, out_shape.height);
    }
    if (writer) writer->finish();
  }
  // A chain's threshold is its last step's, as each step's output replaces the one before.
  if (!ends_in_histogram) result.threshold = last.threshold();
  if (times != nullptr) {
    *times = StageTimes{};
    for (const auto& stage : stages.all()) stage->add_times(*times);
  }
  return result;
}

}  // namespace parfilter
