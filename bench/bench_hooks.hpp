// What parfilter-bench needs from a backend's own runtime, beyond the Backend interface: the
// GPU's device-to-device copy (its bandwidth limit) and NPP (its peer) from the CUDA toolkit,
// and MPI_Init/Finalize for the MPI backend. Each part is linked from the backend's bench/
// directory when that backend is built (backend_cuda/bench/bench_hooks_cuda.cu,
// backend_mpi/bench/bench_hooks_mpi.cpp), else from a stub here that says it is absent; so
// nothing outside those directories needs to know the runtimes.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "parfilter/image.hpp"

namespace parfilter::bench {

/// A device-to-device copy on the GPU: the limit the GPU backends' kernels live under.
struct DeviceCopy {
  std::string device;  ///< "NVIDIA H200"
  double gbs = 0.0;    ///< bytes read + written per second, in GB/s
};

/// The copy of `bytes` bytes on the default GPU, timed with events (median after warm-up);
/// nullopt without a GPU runtime or device.
[[nodiscard]] std::optional<DeviceCopy> gpu_copy(std::size_t bytes);

/// One timed call of a GPU peer library (NPP), on an image already on the device.
struct PeerTiming {
  std::string op;     ///< parfilter's op name: "gaussian", "erode", ...
  int se = 0;         ///< the square SE's side for morphology, else 0
  std::string calls;  ///< what it calls: "nppiFilterGaussBorder_8u_C4R 5x5"
  double median_ms = 0.0;
  double bytes = 0.0;  ///< bytes read + written
};

/// Why there is no GPU peer ("" when there is one).
[[nodiscard]] std::string gpu_peer_missing();

/// The GPU peer's counterparts of our ops on `rgba` (4 channels), kernel time only.
[[nodiscard]] std::vector<PeerTiming> gpu_peer_timings(const Image& rgba);

/// This process's place among the MPI ranks.
struct MpiWorld {
  bool active = false;  ///< MPI was initialized here (the MPI backend may run)
  int rank = 0;
  int size = 1;
};

/// MPI_Init (with the thread level the MPI backend wants); inactive without MPI.
[[nodiscard]] MpiWorld mpi_start(int& argc, char**& argv);
/// MPI_Finalize after mpi_start; nothing otherwise.
void mpi_stop();
/// After a failure on one rank: MPI_Abort, so that the others do not wait for it forever.
void mpi_abort(int code);

}  // namespace parfilter::bench
