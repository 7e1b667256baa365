// One image over every rank, each reading its own rows of the input and writing its own rows
// of the output, where the ranks share the files (--files-on every-rank, or one host): no
// rank holds, sends or receives another's rows. For a chain of band steps (strip_plan.hpp)
// from a file that seeks (PNM, BMP, TIFF) to one whose rows lie at fixed offsets (binary PNM,
// BMP). Not installed.
#pragma once

#include <optional>

#include "cli_driver.hpp"

namespace parfilter::mpi_detail {

/// Runs the job the root opened for strips (`streamed`, empty on the other ranks) so, where it
/// can: rank r takes the r-th share of the output rows, reads the input rows they need (its
/// share widened by the chain's halo) through a reader of its own, runs them in strips on its
/// own backend and writes them into the root's temporary through MPI-IO; the root commits it
/// and prints the report. Returns the exit code, the same on every rank, or nullopt on every
/// rank, the job untouched, where the job cannot run so (run_streamed_on_ranks then runs it).
/// Collective over MPI_COMM_WORLD.
[[nodiscard]] std::optional<int> run_placed_on_ranks(const JobRunner& runner, const CliJob& job,
                                                     std::optional<StreamedJob>& streamed);

}  // namespace parfilter::mpi_detail
