// The MPI backend: an image's rows split over the ranks of a communicator. The root scatters
// each rank its block of rows plus the halo its op reads (MPI_Scatterv), every rank runs the
// shared CPU passes on its block (with --threads T, on T OpenMP threads), histogram ops merge
// their counts with MPI_Allreduce, repeated morphology steps exchange halos with
// MPI_Sendrecv, and the root gathers the result (MPI_Gatherv). With a node backend
// (MpiOptions::node_backend, BackendOptions::node_backend) each rank runs another registered
// backend (cuda, opencl, ...) on its rows and their halo. docs/MPI.md has the details.
#pragma once

#include <mpi.h>

#include <memory>
#include <span>
#include <string>

#include "parfilter/backend.hpp"

namespace parfilter {

/// Where an MPI backend runs and where its results go.
struct MpiOptions {
  /// The ranks that share each run (duplicated on first use, so the backend's messages never
  /// meet the caller's).
  MPI_Comm comm = MPI_COMM_WORLD;
  /// The rank whose input counts and which receives the output image.
  int root = 0;
  /// Also broadcast the output image to every rank (thresholds and histograms always are).
  bool result_on_every_rank = false;
  /// The node backend each rank computes with when BackendOptions::node_backend names none:
  /// empty for the ranks' own CPU kernels (docs/MPI.md, "Node backends").
  std::string node_backend{};
  /// Where node backends are looked up by name: parfilter::registered_backends, which the
  /// program passes in (the registry links every backend, this one included, so this library
  /// cannot link it). Null: no node backend can be named.
  std::span<const BackendInfo> (*backends)() = nullptr;
};

/// An MPI backend over MPI_COMM_WORLD with default_mpi_options(). options.threads: threads
/// per rank (0 = 1: the ranks are the parallelism). Backend::run is collective over the
/// communicator: every rank calls it with the same op and parameters; only the root's input
/// is read (other ranks may pass an empty view), and the output image is filled on the root
/// only (unless result_on_every_rank). A failure on any rank makes run() throw on every rank.
/// availability() is absent until MPI is initialized.
[[nodiscard]] std::unique_ptr<Backend> make_mpi_backend(const BackendOptions& options);

[[nodiscard]] std::unique_ptr<Backend> make_mpi_backend(const BackendOptions& options,
                                                        const MpiOptions& mpi);

/// The MpiOptions that make_mpi_backend(options) uses (the registry's factory): by default
/// MPI_COMM_WORLD, root 0, the image on the root only. The MPI test suite sets
/// result_on_every_rank, so that every rank checks the result.
[[nodiscard]] MpiOptions default_mpi_options();
void set_default_mpi_options(const MpiOptions& mpi);

}  // namespace parfilter
