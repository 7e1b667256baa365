#!/usr/bin/env bash
# Profiles CUDA kernels of parfilter-bench-cuda with Nsight Compute on a GPU machine: one ncu
# pass per kernel name given (its first launch, the benchmark's 7680 x 4320 RGBA image), the
# throughput, occupancy, scheduler and warp-stall sections, one text report per kernel in $OUT.
#
#   scripts/gpu-profile.sh [--no-build] kernel_name...
#
# Builds the serial and CUDA backends (with the carried .deps/ when present) into $BUILD_DIR.
set -uo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
out="${OUT:-$root/gpu-profile-logs}"
build="${BUILD_DIR:-$root/build-gpu}"
build_first=1
if [[ "${1:-}" == --no-build ]]; then build_first=0; shift; fi
mkdir -p "$out"
export PATH="/usr/local/cuda/bin:$PATH"
if [[ $build_first -eq 1 ]]; then
  args=(-S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DPARFILTER_WITH_CUDA=ON
        -DCMAKE_CUDA_ARCHITECTURES="${CUDA_ARCHS:-90}")
  for b in PTHREAD OPENMP MPI OPENCL; do args+=("-DPARFILTER_WITH_$b=OFF"); done
  if [[ -d "$root/.deps/usr" ]]; then
    export PKG_CONFIG_PATH="$root/.deps/usr/lib/x86_64-linux-gnu/pkgconfig:$root/.deps/usr/share/pkgconfig"
    args+=(-DCMAKE_PREFIX_PATH="$root/.deps/usr")
  fi
  { cmake "${args[@]}" && cmake --build "$build" -j "$(nproc)" --target parfilter-bench-cuda; } \
    >"$out/build.log" 2>&1 || { tail -n 40 "$out/build.log"; exit 1; }
fi
bench="$build/backend_cuda/parfilter-bench-cuda"
sections=(SpeedOfLight Occupancy LaunchStats WarpStateStats SchedulerStats MemoryWorkloadAnalysis
          ComputeWorkloadAnalysis InstructionStats)
for kernel in "$@"; do
  ncu_args=(--kernel-name "regex:$kernel" --launch-count 1)
  for s in "${sections[@]}"; do ncu_args+=(--section "$s"); done
  timeout 300 ncu "${ncu_args[@]}" "$bench" >"$out/ncu-$kernel.txt" 2>&1
  echo "== $kernel (exit $?)"
  grep -E "Duration|DRAM Throughput|Memory Throughput|Registers Per|Achieved Occupancy|Theoretical Occupancy|Issue Slots Busy|No Eligible|Executed Ipc A|Waves Per SM|L2 Hit|Block Limit" \
    "$out/ncu-$kernel.txt" | head -30
done
