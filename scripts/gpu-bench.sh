#!/usr/bin/env bash
# The benchmarks on a machine with an NVIDIA GPU, on a build gpu-check.sh made (run it right
# after, while the lent machine is still warm; one 10-minute device call):
#   1. parfilter-bench-cuda: every kernel against a device copy and NPP, the pinned bus
#      bandwidth with the backend's transfers (1 MB up) against it, a pinned in-memory batch
#      against the bus time;
#   2. scripts/bench-opencl.sh --cuda-compare: OpenCL's default kernels against CUDA's;
#   3. scripts/bench-e2e.sh: file to file, every backend next to cv2 (no libvips there);
#   4. bench/e2e/bench_batch_ops.py: file-to-file batches of light and heavy ops and a chain,
#      CUDA and OpenCL against OpenMP, on the inputs step 3 made.
# Results land in $OUT (or ./gpu-check-logs): bench.txt, bench-opencl.md, e2e.md, e2e.csv,
# batch-ops.md.
#
#   scripts/gpu-bench.sh [--no-cuda] [--no-opencl] [--no-e2e] [e2e options...]
set -uo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
out="${OUT:-$root/gpu-check-logs}"
build="${BUILD_DIR:-$root/build-gpu}"
cuda=1
opencl=1
e2e=1
e2e_args=()
for arg in "$@"; do
  case "$arg" in
    --no-cuda) cuda=0 ;;
    --no-opencl) opencl=0 ;;
    --no-e2e) e2e=0 ;;
    *) e2e_args+=("$arg") ;;
  esac
done
mkdir -p "$out"
export PATH="/usr/local/cuda/bin:$PATH" OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
if [[ -d "$root/.deps/usr" ]]; then
  export LD_LIBRARY_PATH="$root/.deps/usr/lib/x86_64-linux-gnu${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
fi
summary=()
run() {  # run <name> <command...>
  local name="$1" start=$SECONDS
  shift
  echo "== $name" >&2
  if "$@"; then summary+=("PASS  $name ($((SECONDS - start)) s)"); else
    summary+=("FAIL  $name ($((SECONDS - start)) s)"); fi
}
if [[ $cuda -eq 1 ]]; then
  run "parfilter-bench-cuda" bash -c "${build@Q}/bench/cuda/parfilter-bench-cuda ${out@Q}/bench.csv > ${out@Q}/bench.txt 2>&1"
fi
if [[ $opencl -eq 1 ]]; then
  run "bench-opencl vs cuda" env BUILD_DIR="$build" "$root/scripts/bench-opencl.sh" --cuda-compare \
    --out "$out" --build-dir "$build"
fi
if [[ $e2e -eq 1 ]]; then
  run "bench-e2e" env BENCH_BUILD_DIR="$build" PARFILTER_SKIP_DEPS=1 "$root/scripts/bench-e2e.sh" \
    --no-vips --no-chart --out "$out/e2e" "${e2e_args[@]}"
  cp "$out/e2e/results.md" "$out/e2e.md" 2>/dev/null
  cp "$out/e2e/results.csv" "$out/e2e.csv" 2>/dev/null
  run "batch ops" python3 "$root/bench/e2e/bench_batch_ops.py" --build-dir "$build" \
    --inputs "$(ls -d "$out"/e2e/inputs/*/ | head -n 1)" --out "$out/batch-ops.md"
  rm -rf "$out/e2e"
fi
printf '%s\n' "${summary[@]}"
