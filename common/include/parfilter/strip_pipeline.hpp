// A chain run on an image in horizontal strips, from a RowReader to a RowWriter, so that memory
// depends on the image's width and the chain's halos, not on its height (docs/PIPELINE.md).
// Each run of steps that reads only rows near its output (strip_plan.hpp) runs on the backend
// strip by strip, each strip with its halo as an image of its own; a step that needs the whole
// image's histogram (equalize, otsu, segment, histogram) reads its input twice, once to count
// and once to map, its input recomputed from the file rather than held. The result is the
// same bytes as the chain on the whole image, on every backend.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>

#include "parfilter/backend.hpp"
#include "parfilter/row_stream.hpp"

namespace parfilter {

/// What a streamed run may hold: 256 MiB, a few strips of even a very wide image. An image
/// whose whole-image run needs more is streamed (the command line's --max-memory).
inline constexpr std::uint64_t kDefaultMaxMemoryBytes = std::uint64_t{256} << 20;

/// kDefaultMaxMemoryBytes, or a quarter of what this process may hold where that is less: its
/// address-space limit (ulimit -v), its cgroup's memory.max, the memory available now. The
/// rest is for the process itself, its libraries, thread stacks and the codecs' own buffers.
[[nodiscard]] std::uint64_t default_max_memory();

/// Output rows each strip aims at, in bytes: a strip's input, output and halo fit a core's
/// share of the last-level cache several times over, and its per-strip overheads stay small.
inline constexpr std::size_t kStripTargetBytes = std::size_t{2} << 20;

struct StripOptions {
  /// Output rows per strip of each stage; 0: about strip_bytes of output rows, at least the
  /// halo's rows and one row per thread.
  int strip_rows = 0;
  /// Output bytes each strip aims at when strip_rows is 0 (halved until the run fits
  /// max_memory).
  std::size_t strip_bytes = kStripTargetBytes;
  /// The most the strips, windows and codec blocks may hold together; RuntimeError before any
  /// row is read when the chain cannot run within it.
  std::uint64_t max_memory = kDefaultMaxMemoryBytes;
  /// Threads for the steps that run on the host (the histograms' passes); 1 when empty.
  ParallelFor parallel_for;
  int threads = 1;
  /// This process joins a collective backend's runs without the image (an MPI rank other
  /// than the root, given a reader of the root's shape and held bytes): its stages run the
  /// same strips in the same order, so that every collective call is matched, and read,
  /// count, map and keep nothing on the host.
  bool follower = false;
  /// Output rows of the last stage written so far, of `total`, after each strip.
  std::function<void(int written, int total)> progress;
};

/// The shape of the chain's image result for an input of `input` (that of its last step).
[[nodiscard]] StreamShape streamed_result_shape(const OpChain& chain, const StreamShape& input);

/// Runs the validated `chain` with `backend` on the rows of `input` (rewound as its global
/// steps need), writing the image result's rows to `output` (not committed: the caller does),
/// or, for a chain that ends in histogram, with `output` null, returning the histogram. The
/// returned OpOutput holds no image; its threshold and histogram are the whole image's. At
/// either depth (a 16-bit input needs backend.runs_16_bit()).
OpOutput run_streamed(Backend& backend, const OpChain& chain, RowReader& input, RowWriter* output,
                      const StripOptions& options, StageTimes* times = nullptr);

}  // namespace parfilter
