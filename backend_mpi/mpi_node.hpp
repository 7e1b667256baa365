// A node backend under the MPI backend (--node-backend): the registered backend each rank
// computes with, made with the device its local rank picks, and where a rank runs. Not
// installed.
#pragma once

#include <memory>
#include <string>

#include "parfilter/backend.hpp"
#include "parfilter/backends/mpi.hpp"

namespace parfilter::mpi_detail {

/// A rank's place among the ranks of its host.
struct LocalPlace {
  int rank = 0;
  int size = 1;
};

/// This rank's place on its host, as the launcher tells it: OMPI_COMM_WORLD_LOCAL_RANK and
/// _LOCAL_SIZE (Open MPI), MPI_LOCALRANKID and MPI_LOCALNRANKS (MPICH, Intel MPI), SLURM_LOCALID
/// and SLURM_NTASKS_PER_NODE (srun); rank 0 of 1 when none is set.
[[nodiscard]] LocalPlace local_place();

/// This process's host name (MPI_Get_processor_name), for messages that say where.
[[nodiscard]] std::string host_name();

/// The backend `options.node_backend` names (else `mpi.node_backend`), looked up in
/// `mpi.backends`; null when neither names one (the ranks' own CPU kernels). Threaded CPU
/// backends get `options.threads` threads (0: 1, the ranks being the parallelism). A backend
/// with devices gets `options.platform` and `options.device`; without --device, the device
/// local rank modulo its device count, so that the ranks of a host spread over its devices.
/// Throws UsageError for an unknown name, for "mpi" itself and where no registry was given.
[[nodiscard]] std::unique_ptr<Backend> make_node_backend(const BackendOptions& options,
                                                         const MpiOptions& mpi);

/// The threads a rank's batch pipeline decodes and encodes on, beside a node backend that
/// computes on a device: --threads, or the host's hardware threads shared by its ranks.
[[nodiscard]] int device_rank_codec_threads(const BackendOptions& options);

}  // namespace parfilter::mpi_detail
