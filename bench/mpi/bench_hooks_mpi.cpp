// The MPI part of parfilter-bench's hooks (bench/bench_hooks.hpp): MPI_Init_thread at the
// level parfilter-mpi asks for, so that the MPI backend runs in the benchmark as it does in
// its own executable (backend_mpi/main.cpp).
#include <mpi.h>

#include "bench_hooks.hpp"

namespace parfilter::bench {

MpiWorld mpi_start(int& argc, char**& argv) {
  int provided = MPI_THREAD_SINGLE;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_SERIALIZED, &provided);
  MpiWorld world;
  world.active = true;
  MPI_Comm_rank(MPI_COMM_WORLD, &world.rank);
  MPI_Comm_size(MPI_COMM_WORLD, &world.size);
  return world;
}

void mpi_stop() {
  int initialized = 0;
  MPI_Initialized(&initialized);
  int finalized = 0;
  MPI_Finalized(&finalized);
  if (initialized != 0 && finalized == 0) MPI_Finalize();
}

void mpi_abort(int code) {
  int initialized = 0;
  MPI_Initialized(&initialized);
  if (initialized != 0) MPI_Abort(MPI_COMM_WORLD, code);
}

}  // namespace parfilter::bench
