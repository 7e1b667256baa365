// The OpenCL backend's transfers against the bus, as parfilter-bench-cuda measures CUDA's: the
// plain host-to-device and device-to-host bandwidth of clEnqueueWrite/ReadBuffer from mapped
// page-locked memory (and from pageable memory, for contrast) at sizes from 1 MB up, the
// backend's achieved upload and download at each size, and a batch of images in host-pool
// memory through run_batch against the bus time (every byte up, then down, at the pinned
// bandwidth) and against the same images run one after another.
#pragma once

#include <string>

#include "parfilter/backend.hpp"

namespace parfilter::bench {

enum class TransferScale {
  quick,      ///< sizes up to 1920x1080 and a batch of 4 of them: seconds on PoCL
  full,       ///< sizes up to 7680x4320 (133 MB) and a batch of 16 of them, as bench/cuda
  automatic,  ///< full on a GPU, quick on a CPU device (PoCL: its "bus" is a memcpy)
};

struct TransferArgs {
  TransferScale scale = TransferScale::automatic;
  int runs = 5;            ///< timed runs per measurement (median), after one untimed
  BackendOptions options;  ///< the OpenCL device
};

/// Prints the markdown tables on stdout; returns the exit status.
int run_transfers(const TransferArgs& args);

}  // namespace parfilter::bench
