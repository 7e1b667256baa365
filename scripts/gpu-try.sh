#!/usr/bin/env bash
# A quick kernel-development round on a GPU machine: builds the serial and CUDA backends'
# test_cuda, test_cross_backend and parfilter-bench-cuda, runs the CUDA cases of both test
# binaries (optionally narrowed to one op), the benchmark, and optionally Nsight Compute on one
# kernel. The full check before a change lands is scripts/gpu-check.sh.
#
#   scripts/gpu-try.sh [--op NAME] [--ncu KERNEL_REGEX]... [--bench-grep REGEX]
#
#   --op NAME          cross-backend cases *cuda_NAME_* only (e.g. gaussian, sobel, erode)
#   --ncu REGEX        profile the first launch of the kernel matching REGEX at the GPU's own
#                      clocks (ncu locks them to base otherwise): throughput, occupancy,
#                      scheduler, warp stalls, instructions; report in $OUT/ncu-REGEX.txt (only
#                      letters, digits and _ kept in the name). Repeat for several kernels.
#   --bench-grep REGEX print only the benchmark rows matching REGEX (all rows are in bench.txt)
# Build directory: $BUILD_DIR, default /tmp/build-<name of the source directory>.
set -uo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
out="${OUT:-$root/gpu-try-logs}"
build="${BUILD_DIR:-/tmp/build-$(basename "$root")}"
op="" bench_grep="."
ncu_kernels=()
while [[ $# -gt 0 ]]; do
  case "$1" in
    --op) op="$2"; shift 2 ;;
    --ncu) ncu_kernels+=("$2"); shift 2 ;;
    --bench-grep) bench_grep="$2"; shift 2 ;;
    *) echo "usage: $0 [--op NAME] [--ncu KERNEL_REGEX] [--bench-grep REGEX]" >&2; exit 2 ;;
  esac
done
mkdir -p "$out"
export PATH="/usr/local/cuda/bin:$PATH"
deps=""
for d in "$root/.deps" "$root/../../.deps"; do [[ -d "$d/usr" ]] && deps="$(cd "$d" && pwd)" && break; done
args=(-S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DPARFILTER_WITH_CUDA=ON
      -DCMAKE_CUDA_ARCHITECTURES="${CUDA_ARCHS:-90}")
for b in PTHREAD OPENMP MPI OPENCL; do args+=("-DPARFILTER_WITH_$b=OFF"); done
if [[ -n "$deps" ]]; then
  export PKG_CONFIG_PATH="$deps/usr/lib/x86_64-linux-gnu/pkgconfig:$deps/usr/share/pkgconfig"
  args+=(-DCMAKE_PREFIX_PATH="$deps/usr")
fi
start=$SECONDS
if ! { cmake "${args[@]}" && cmake --build "$build" -j "$(nproc)" --target test_cuda \
         test_cross_backend parfilter-bench-cuda; } >"$out/build.log" 2>&1; then
  grep -E "error|Error" "$out/build.log" | head -n 30
  echo "BUILD FAILED"
  exit 1
fi
echo "build: $((SECONDS - start)) s"
status=0
"$build/tests/test_cuda" --gtest_brief=1 >"$out/test_cuda.log" 2>&1 || status=1
tail -n 4 "$out/test_cuda.log"
"$build/tests/test_cross_backend" --gtest_brief=1 --gtest_filter="*cuda_${op}*" \
  >"$out/cross.log" 2>&1 || status=1
grep -E "FAILED|PASSED" "$out/cross.log" | head -n 20
"$build/bench/cuda/parfilter-bench-cuda" >"$out/bench.txt" 2>&1 || status=1
grep -E "cudaMemcpy" "$out/bench.txt" | head -n 3
grep -E "$bench_grep" "$out/bench.txt" | grep "^|" | head -n 40
sections=()
for s in SpeedOfLight Occupancy LaunchStats WarpStateStats SchedulerStats MemoryWorkloadAnalysis \
         ComputeWorkloadAnalysis InstructionStats; do sections+=(--section "$s"); done
for kernel in "${ncu_kernels[@]}"; do
  report="$out/ncu-${kernel//[^A-Za-z0-9_]/}.txt"
  timeout 300 ncu --clock-control none --print-details all --kernel-name "regex:$kernel" \
    --launch-count 1 "${sections[@]}" "$build/bench/cuda/parfilter-bench-cuda" >"$report" 2>&1
  echo "== ncu $kernel"
  grep -E "Duration|DRAM Throughput|Registers Per|Achieved Occupancy|Issue Slots Busy|Executed Instructions  " \
    "$report" | head -n 12
done
echo "tests: $([[ $status -eq 0 ]] && echo PASS || echo FAIL)"
exit $status
