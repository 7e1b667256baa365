// The 2-D van Herk/Gil-Werman tile: both 1-D passes of one rectangle in shared memory.
#include "internal.hpp"
#include "morphology_common.cuh"

namespace parfilter::cuda {

bool launch_morphology_vhgw_tile(MorphOp /*op*/, const DeviceImage& /*in*/,
                                 const DeviceImage& /*out*/, const MorphRect& /*rect*/,
                                 bool /*combine*/, cudaStream_t /*stream*/) {
  return false;
}

}  // namespace parfilter::cuda
