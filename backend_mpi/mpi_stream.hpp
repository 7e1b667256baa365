// One image in strips over every rank (strip_pipeline.hpp): the root reads the file and writes
// the result a strip at a time, and each strip runs on the MPI backend (a scatter of the
// strip's rows with their halo, every rank's compute, a gather), so that no rank holds more
// than a few strips. Not installed.
#pragma once

#include <optional>

#include "cli_driver.hpp"

namespace parfilter::mpi_detail {

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
