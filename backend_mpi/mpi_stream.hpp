// One image in strips over every rank (strip_pipeline.hpp): the root reads the file and writes
// the result a strip at a time, and each strip runs on the MPI backend (a scatter of the
// strip's rows with their halo, every rank's compute, a gather), so that no rank holds more
// than a few strips. Not installed.
#pragma once

#include <cstdint>
#include <optional>

#include "cli_driver.hpp"

namespace parfilter::mpi_detail {

/// What every rank needs of the root's streamed job to run its part of the same strips: the
/// input's shape, what the root's reader holds and may hold, and the strip options. Sent as
/// bytes (MPI_Bcast of the struct).
struct StreamPlan {
  std::int32_t width = 0;
  std::int32_t height = 0;
  std::int32_t channels = 0;
  std::int32_t depth = 0;
  std::int32_t strip_rows = 0;
  std::int32_t threads = 1;
  std::uint64_t reader_held = 0;
  std::uint64_t max_image_bytes = 0;
  std::uint64_t max_memory = 0;
  std::uint64_t strip_bytes = 0;

  [[nodiscard]] StreamShape shape() const {
    return {width, height, channels, static_cast<Depth>(depth)};
  }
  /// The root's strip options, for another rank (no progress, no host threads' callback).
  [[nodiscard]] StripOptions options() const;
};

/// The root's plan of its streamed job.
[[nodiscard]] StreamPlan plan_of(const StreamedJob& streamed);

/// Runs the job the root opened for strips (`streamed`, empty on the other ranks, which get
/// its shape and plan from the root) on every rank; the root commits the output and prints the
/// report. A failure to read or write on the root comes after the last strip, so that no rank
/// waits for a strip that never comes. Collective over MPI_COMM_WORLD; every rank returns the
/// same exit code.
[[nodiscard]] int run_streamed_on_ranks(const JobRunner& runner, const CliJob& job,
                                        std::optional<StreamedJob>& streamed);

/// Whether the root opened the job for strips: its answer, shared with every rank.
[[nodiscard]] bool agree_streamed(const std::optional<StreamedJob>& streamed);

}  // namespace parfilter::mpi_detail
