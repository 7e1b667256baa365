#!/usr/bin/env bash
# Builds and runs the CPU benchmark: every op on a generated 3840x2160 RGB image, on the serial
# backend, on the pthread and OpenMP backends at 1..N threads (N = hardware threads) and on
# OpenCV at the same thread counts where its C++ library is installed (else the benchmark says
# "OpenCV: not found" and runs the rest), next to a memcpy of the same bytes.
#
#   scripts/bench-cpu.sh [parfilter-bench-cpu options]    e.g. --threads 1,2,4,8,16 --repeats 11
#
# Build dir: build-bench/ (or $BENCH_BUILD_DIR), a Release build of only what the benchmark
# needs. The table goes to stdout, the CSV to <build dir>/bench-cpu.csv (or --csv FILE).
# Nothing is installed: the build needs what scripts/install-deps.sh installs for "build".
# Run it on a quiet machine: other load shows up as missing speedup.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build_dir="${BENCH_BUILD_DIR:-$root/build-bench}"

configure_args=(-S "$root" -B "$build_dir" -DCMAKE_BUILD_TYPE=Release
  -DPARFILTER_BUILD_TESTS=OFF -DPARFILTER_BUILD_BENCH=ON
  -DPARFILTER_WITH_MPI=OFF -DPARFILTER_WITH_CUDA=OFF -DPARFILTER_WITH_OPENCL=OFF)
if [[ ! -f "$build_dir/CMakeCache.txt" ]] && command -v ninja >/dev/null 2>&1; then
  configure_args+=(-G Ninja)
fi
cmake "${configure_args[@]}" >/dev/null
cmake --build "$build_dir" -j "$(nproc)" --target parfilter-bench-cpu >/dev/null

has_csv=false
for arg in "$@"; do [[ "$arg" == --csv* ]] && has_csv=true; done
extra=()
$has_csv || extra=(--csv "$build_dir/bench-cpu.csv")
exec "$build_dir/bench/parfilter-bench-cpu" "${extra[@]}" "$@"
