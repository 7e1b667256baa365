#!/usr/bin/env bash
# Builds and checks parfilter on a machine with an NVIDIA GPU, in one command:
#   1. configure and build every backend this machine supports (CUDA forced on);
#   2. the whole ctest suite, the cross-backend suite with the GPU backends in it;
#   3. with --bench, the CUDA benchmarks (parfilter-bench-cuda: kernels vs copy bandwidth and NPP;
#      parfilter-bench-cuda-halo: what strip kernels' halos cost in data movement alone);
#   4. compute-sanitizer memcheck and racecheck on test_cuda (every CUDA op and variant) and on
#      the 16-bit suite's CUDA cases.
# Logs and results go to $OUT (or ./gpu-check-logs); the last lines summarize every step and
# the exit code is non-zero when any step failed.
#
#   scripts/gpu-check.sh [--bench] [--no-sanitizer] [--sanitizer-only] [--cuda-only]
#                        [--no-opencl-suites]
#
# --cuda-only builds the serial and CUDA backends alone (a quicker check of the CUDA part).
# --sanitizer-only builds and runs compute-sanitizer alone, for a lease too short for it all.
# Each step has a time limit (STEP_TIMEOUT seconds, default 900) so that one hung step cannot
# take the machine's whole lease; at most 8 files land in $OUT.
#
# Missing build dependencies may come in .deps/ at the project root, made by
# ../shared/device/prepare-carry.sh on a machine with apt (libstb-dev libstb0 libcli11-dev,
# and libhwy-dev libhwy1 for the SIMD CPU kernels, which the batches' host share and the
# CPU backends use; without them the CPU kernels build as plain C++); used when present.
set -uo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
out="${OUT:-$root/gpu-check-logs}"
build="${BUILD_DIR:-$root/build-gpu}"
jobs="$(nproc)"
bench=0
sanitizer=1
cuda_only=0
suites=1  # ctest, the CLI smoke and the Python steps
opencl_suites=1  # the OpenCL suites on NVIDIA and PoCL apart (ctest runs OpenCL on the GPU)
for arg in "$@"; do
  case "$arg" in
    --bench) bench=1 ;;
    --no-sanitizer) sanitizer=0 ;;
    --sanitizer-only) suites=0 opencl_suites=0 ;;
    --cuda-only) cuda_only=1 ;;
    --no-opencl-suites) opencl_suites=0 ;;
    *) echo "usage: $0 [--bench] [--no-sanitizer] [--sanitizer-only] [--cuda-only]" \
         "[--no-opencl-suites]" >&2; exit 2 ;;
  esac
done
mkdir -p "$out"
# shellcheck source-path=SCRIPTDIR source=lib/steps.sh
source "$root/scripts/lib/steps.sh"
# step <name> <log> <command...>: runs the command into $out/<log>, shows the log's end.
step() {
  local name="$1" log="$2"
  shift 2
  echo "== $name" >&2
  run_step "$name" "$out/$log" ", $log" "$@"
  local rc=$?
  tail -n 15 "$out/$log"
  return $rc
}

cmake_args=(-S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release
            -DPARFILTER_WITH_CUDA=ON -DCMAKE_CUDA_ARCHITECTURES="${CUDA_ARCHS:-90}")
if [[ $cuda_only -eq 1 ]]; then
  for backend in PTHREAD OPENMP MPI OPENCL; do cmake_args+=("-DPARFILTER_WITH_$backend=OFF"); done
fi
if [[ -d "$root/.deps/usr" ]]; then
  deps_lib="$root/.deps/usr/lib/x86_64-linux-gnu"
  # The machine's own libtiff where it has one (the carried headers with it): a carried Debian
  # libtiff brings its libjpeg62 into processes that also load the machine's libjpeg8.
  machine_tiff="$(ldconfig -p 2>/dev/null | awk '/libtiff\.so\.6 /{print $NF; exit}')"
  if [[ -n "$machine_tiff" ]]; then
    rm -f "$deps_lib"/libtiff.so.6* "$deps_lib"/libjpeg.so.62* "$deps_lib"/libwebp.so.7* \
      "$deps_lib"/libLerc.so.4* "$deps_lib"/libjbig.so.0* "$deps_lib"/libdeflate.so.0*
    ln -sf "$machine_tiff" "$deps_lib/libtiff.so"
  fi
  export PKG_CONFIG_PATH="$deps_lib/pkgconfig:$root/.deps/usr/share/pkgconfig${PKG_CONFIG_PATH:+:$PKG_CONFIG_PATH}"
  export LD_LIBRARY_PATH="$deps_lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
  cmake_args+=(-DCMAKE_PREFIX_PATH="$root/.deps/usr")
fi
# The Python module: nanobind and pytest may come in .pydeps/ (pip install --target .pydeps
# nanobind pytest, on a machine with PyPI); the machine's python3 brings NumPy and CuPy, which
# the module's pytest suite (python_suite in ctest) uses for the DLPack cases.
if [[ -d "$root/.pydeps" ]]; then
  export PYTHONPATH="$root/.pydeps${PYTHONPATH:+:$PYTHONPATH}"
fi
if command -v python3 >/dev/null; then
  cmake_args+=(-DPython_EXECUTABLE="$(command -v python3)")
fi
export PATH="/usr/local/cuda/bin:$PATH"
# Commands run as root on the lent GPU machines; mpirun refuses that unless told.
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1

# ---- OpenCL on the NVIDIA GPU (the OpenCL backend's part goes here) -------------------------
# The driver's OpenCL library is present but not registered with the ICD loader; register it
# (as root) so that clinfo and the OpenCL backend see the "NVIDIA CUDA" platform next to PoCL.
if [[ -e /usr/lib/x86_64-linux-gnu/libnvidia-opencl.so.1 || -n "$(ldconfig -p 2>/dev/null | grep libnvidia-opencl)" ]] &&
   [[ -w /etc || -w /etc/OpenCL/vendors ]]; then
  mkdir -p /etc/OpenCL/vendors && echo libnvidia-opencl.so.1 >/etc/OpenCL/vendors/nvidia.icd
fi
# ---- end OpenCL --------------------------------------------------------------------------------

nvidia-smi >"$out/build.log" 2>&1 || true
step "configure and build" build.log \
  bash -c "cmake ${cmake_args[*]@Q} && cmake --build ${build@Q} -j $jobs" ||
  { printf '%s\n' "${summary[@]}"; exit 1; }
if [[ $suites -eq 1 ]]; then
  step "ctest (whole suite)" ctest.log ctest --test-dir "$build" --output-on-failure -j 8 --timeout 600

  # CLI smoke on the GPU: a batch through the overlapped pipeline, with timings.
  smoke_dir="$(mktemp -d)"
  step "parfilter-cuda batch --timing" cli.log \
    "$build/backend_cuda/parfilter-cuda" gaussian --timing --out-dir "$smoke_dir" "$root"/data/*.png
  rm -rf "$smoke_dir"

  # The Python module with CuPy's arrays, step by step (scripts/gpu-python-check.sh).
  step "python module (import, each backend, pytest)" python.log \
    "$root/scripts/gpu-python-check.sh" "$build"
fi

if [[ $bench -eq 1 ]]; then
  step "parfilter-bench-cuda" bench.txt "$build/bench/cuda/parfilter-bench-cuda" "$out/bench.csv"
  step "parfilter-bench-cuda-halo" halo.txt "$build/bench/cuda/parfilter-bench-cuda-halo"
fi

if [[ $sanitizer -eq 1 ]]; then
  # racecheck costs far more per shared-memory access: it runs the quick set of sizes.
  for tool in memcheck racecheck; do
    quick=()
    [[ $tool == racecheck ]] && quick=(env PARFILTER_CUDA_QUICK=1)
    # test_cross_backend_16's CUDA cases: every op, variant, border and shape at 16 bits; under
    # memcheck also the streamed strips' CUDA cases (the in-flight ring, from threads of its own).
    tests=(test_cuda test_cuda_device_memory "test_cross_backend_16 --gtest_filter=*cuda*")
    [[ $tool == memcheck ]] && tests+=("test_strip_pipeline --gtest_filter=*cuda*")
    for test in "${tests[@]}"; do
      read -r -a test_args <<<"$test"
      STEP_TIMEOUT="${SANITIZER_TIMEOUT:-${STEP_TIMEOUT:-900}}" step "compute-sanitizer $tool $test" \
        "$tool.log" "${quick[@]}" compute-sanitizer --tool "$tool" --error-exitcode 86 \
        "$build/tests/${test_args[0]}" --gtest_brief=1 "${test_args[@]:1}"
    done
  done
fi

# ---- OpenCL backend (owned by the OpenCL backend; scripts/gpu-check-opencl.sh does the work) --
# The cross-backend suite's OpenCL cases and test_opencl on the NVIDIA platform and on PoCL,
# with --bench the OpenCL-against-CUDA benchmark; all of it in $OUT/opencl.log.
if [[ $cuda_only -eq 0 && $opencl_suites -eq 1 ]]; then
  opencl_args=(--no-build)
  [[ $bench -eq 1 ]] && opencl_args+=(--bench)
  echo "== OpenCL on NVIDIA and PoCL" >&2
  if OUT="$out" BUILD_DIR="$build" "$root/scripts/gpu-check-opencl.sh" "${opencl_args[@]}"; then
    summary+=("PASS  OpenCL on NVIDIA and PoCL (opencl.log)")
  else
    summary+=("FAIL  OpenCL on NVIDIA and PoCL (opencl.log)")
    failed=1
  fi
fi
# ---- end OpenCL backend

echo
printf '%s\n' "${summary[@]}"
exit $failed
