// How parfilter-mpi runs the command line's jobs (a JobDriver for cli_main). Not installed.
#pragma once

#include <mpi.h>

#include "cli_driver.hpp"

namespace parfilter::mpi_detail {

/// One image: the root loads it, every rank computes (the MPI backend), the root saves it and
/// prints its report. A batch (--out-dir): whole images handed out to the ranks as they free
/// up (run_batch). Collective over MPI_COMM_WORLD; every rank returns the same exit code, and
/// only the root prints.
[[nodiscard]] int run_mpi_jobs(const JobRunner& runner);

/// Whether a batch's files are the root's alone (--files-on root; auto, the default, when the
/// ranks span several nodes): the root reads every input and writes every output, the others
/// get and give their bytes. Collective over `comm`.
[[nodiscard]] bool files_on_root(const BackendOptions& options, MPI_Comm comm);

/// The batch: every rank, the root included, loads, computes and saves the images the root
/// hands it, one at a time, largest file first; the root prints each failure, the progress
/// and a summary.
[[nodiscard]] int run_batch(const JobRunner& runner);

}  // namespace parfilter::mpi_detail
