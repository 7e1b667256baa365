// The MPI part of bench_hooks.hpp when the MPI backend is not built: one process, no MPI.
#include "bench_hooks.hpp"

namespace parfilter::bench {

MpiWorld mpi_start(int& /*argc*/, char**& /*argv*/) { return {}; }

void mpi_stop() {}

void mpi_abort(int /*code*/) {}

}  // namespace parfilter::bench
