#!/usr/bin/env bash
# The OpenCL backend on a machine with an NVIDIA GPU (scripts/gpu-check.sh calls it at its end;
# it also runs alone, within one 10-minute device call):
#   1. registers the NVIDIA OpenCL driver with the ICD loader (it ships unregistered);
#   2. builds the OpenCL tests (and, with --bench, the CUDA backend and the benchmark);
#   3. lists the OpenCL platforms and devices;
#   4. runs the cross-backend suite's OpenCL cases and test_opencl on the NVIDIA platform and
#      on PoCL (PARFILTER_OPENCL_DEVICE chooses), each with a fresh program cache;
#   5. with --bench, scripts/bench-opencl.sh on the NVIDIA GPU against CUDA.
# Everything lands in one file, $OUT/opencl.log (or ./gpu-check-logs/opencl.log); the last
# lines summarize the steps and the exit code is non-zero when any step failed.
#
#   scripts/gpu-check-opencl.sh [--bench] [--no-suites] [--no-build] [--build-dir DIR]
#
# BUILD_DIR (default build-gpu) is shared with gpu-check.sh: a build it made is reused. Within
# one 10-minute call: the build and the suites take about 5 minutes; --bench --no-suites in a
# second call, made while the machine is still warm, runs the benchmark alone.
set -uo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
out="${OUT:-$root/gpu-check-logs}"
build="${BUILD_DIR:-$root/build-gpu}"
bench=0
suites=1
do_build=1
while [[ $# -gt 0 ]]; do
  case "$1" in
    --bench) bench=1; shift ;;
    --no-suites) suites=0; shift ;;
    --no-build) do_build=0; shift ;;
    --build-dir) build="$2"; shift 2 ;;
    *) echo "usage: $0 [--bench] [--no-suites] [--no-build] [--build-dir DIR]" >&2; exit 2 ;;
  esac
done
mkdir -p "$out"
log="$out/opencl.log"
# shellcheck source-path=SCRIPTDIR source=lib/steps.sh
source "$root/scripts/lib/steps.sh"
# step <name> <command...>: runs the command into the log.
step() {
  echo "== $1" >>"$log"
  run_step "$1" "$log" "" "${@:2}"
}

# 1. The driver's OpenCL library is present but not registered (commands run as root there).
if ldconfig -p 2>/dev/null | grep libnvidia-opencl.so.1 >/dev/null; then
  mkdir -p /etc/OpenCL/vendors && echo libnvidia-opencl.so.1 >/etc/OpenCL/vendors/nvidia.icd
fi

# 2. Build what the checks need, with the CUDA backend for the comparison.
cmake_args=(-S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release -DPARFILTER_WITH_OPENCL=ON
            -DPARFILTER_WITH_CUDA=ON -DCMAKE_CUDA_ARCHITECTURES="${CUDA_ARCHS:-90}")
[[ -f "$build/CMakeCache.txt" ]] || cmake_args+=(-G Ninja)
if [[ -d "$root/.deps/usr" ]]; then
  deps_pc="$root/.deps/usr/lib/x86_64-linux-gnu/pkgconfig:$root/.deps/usr/share/pkgconfig"
  export PKG_CONFIG_PATH="$deps_pc${PKG_CONFIG_PATH:+:$PKG_CONFIG_PATH}"
  cmake_args+=(-DCMAKE_PREFIX_PATH="$root/.deps/usr")
fi
export PATH="/usr/local/cuda/bin:$PATH"
if [[ $do_build -eq 1 ]]; then
  targets=(test_cross_backend test_opencl parfilter-opencl)
  [[ $bench -eq 1 ]] && targets+=(parfilter-bench-opencl parfilter-cuda)
  build_cmd="cmake --build ${build@Q} -j $(nproc) --target ${targets[*]}"
  step "configure and build (OpenCL)" bash -c "cmake ${cmake_args[*]@Q} >/dev/null && $build_cmd" ||
    { printf '%s\n' "${summary[@]}" | tee -a "$log"; exit 1; }
fi

# 3. What the ICD loader sees.
step "OpenCL platforms and devices" bash -c \
  "clinfo -l; ${build@Q}/backend_opencl/parfilter-opencl --list-devices"

# 4. The suites on each platform; a fresh cache each, so that every program is compiled there.
platforms=(NVIDIA pocl)
[[ $suites -eq 1 ]] || platforms=()
for platform in "${platforms[@]}"; do
  cache="$(mktemp -d)"
  # A platform that is missing would only make the suites skip: say so as a failure.
  step "OpenCL platform $platform present" env PARFILTER_OPENCL_DEVICE="$platform:" \
    bash -c "${build@Q}/backend_opencl/parfilter-opencl --list | grep 'device present'"
  step "cross-backend suite, OpenCL cases, on $platform" \
    env PARFILTER_OPENCL_DEVICE="$platform:" XDG_CACHE_HOME="$cache" CUDA_CACHE_PATH="$cache/nv" \
    "$build/tests/test_cross_backend" --gtest_filter='*opencl*' --gtest_brief=1
  step "test_opencl on $platform" \
    env PARFILTER_OPENCL_DEVICE="$platform:" XDG_CACHE_HOME="$cache" CUDA_CACHE_PATH="$cache/nv" \
    "$build/tests/test_opencl" --gtest_brief=1
  rm -rf "$cache"
done

# 5. OpenCL on the GPU against CUDA, same image (7680x4320 RGBA).
if [[ $bench -eq 1 ]]; then
  bench_out="$(mktemp -d)"
  step "bench-opencl.sh: NVIDIA OpenCL against CUDA" \
    "$root/scripts/bench-opencl.sh" --build-dir "$build" --platform NVIDIA --cuda-compare \
    --repeats "${BENCH_REPEATS:-5}" --out "$bench_out" -- --warmup 1
  rm -rf "$bench_out"
fi

printf '%s\n' "${summary[@]}" | tee -a "$log"
exit $failed
