#!/usr/bin/env bash
# Builds and runs parfilter-bench-cuda: every CUDA kernel and variant on a 7680x4320 RGBA image
# against a device-to-device copy of it, NVIDIA NPP side by side (where the toolkit has NPP),
# sharpen at 2580x1319, the whole op through the backend and a batch. Needs an NVIDIA GPU;
# docs/CUDA.md holds the results of a run on an H200.
#
#   scripts/bench-cuda.sh [results.csv]        build dir: build-bench-cuda (or $BUILD_DIR)
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${BUILD_DIR:-$root/build-bench-cuda}"
args=(-S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release -DPARFILTER_WITH_CUDA=ON
      -DPARFILTER_BUILD_BENCH=ON -DCMAKE_CUDA_ARCHITECTURES="${CUDA_ARCHS:-90}")
[[ -f "$build/CMakeCache.txt" ]] || args+=(-G Ninja)
if [[ -d "$root/.deps/usr" ]]; then  # stb and CLI11 carried to a machine without them
  export PKG_CONFIG_PATH="$root/.deps/usr/lib/x86_64-linux-gnu/pkgconfig:$root/.deps/usr/share/pkgconfig${PKG_CONFIG_PATH:+:$PKG_CONFIG_PATH}"
  args+=(-DCMAKE_PREFIX_PATH="$root/.deps/usr")
fi
cmake "${args[@]}" >/dev/null
cmake --build "$build" --target parfilter-bench-cuda -j "$(nproc)"
"$build/bench/cuda/parfilter-bench-cuda" "$@"
