#!/usr/bin/env bash
# Benchmarks the OpenCL backend (not a test: it measures, it does not grade).
#
#   scripts/bench-opencl.sh [options] [-- extra parfilter-bench-opencl options]
#
#   --build-dir DIR    build there (default: build-bench-opencl; an existing one is reused)
#   --platform P       OpenCL platform, index or name (default: the backend's default)
#   --device D         OpenCL device, index or name
#   --cuda-compare     build the CUDA backend and time OpenCL against it (instead of OpenMP)
#   --with-openmp      with --cuda-compare, time OpenMP too
#   --width W --height H --channels C   the generated image (default 7680x4320 RGBA)
#   --repeats N        timed runs per measurement (default 7)
#   --out DIR          results: bench-opencl.md, .csv, cold-warm table (default: the build dir)
#   --transfers SCALE  part 3's scale: auto (full on a GPU, quick on a CPU device), quick, full,
#                      or none to skip it (default auto)
#   --cmake-arg ARG    an extra CMake configure argument (repeatable)
#
# Part 1 runs parfilter-bench-opencl: every op with every OpenCL variant (kernel time from
# profiling events and end-to-end time) next to OpenMP (wall time) or, with --cuda-compare,
# CUDA (kernel time). Part 2 runs parfilter-opencl once per op with an empty program cache
# (XDG_CACHE_HOME and NVIDIA's CUDA_CACHE_PATH both fresh) and once more with the cache it
# left: the first-run cost of compiling the kernels against loading them. Part 3 runs
# parfilter-bench-opencl --transfers: the pinned and pageable bus bandwidth from 1 MB up, the
# backend's upload and download at each size, and a batch through run_batch against the bus time.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build_dir="$root/build-bench-opencl"
out_dir=""
platform=""
device=""
cuda=false
with_openmp=false
width=7680
height=4320
channels=4
repeats=7
transfers=auto
cmake_args=()
bench_args=()
while [[ $# -gt 0 ]]; do
  case "$1" in
    --build-dir) build_dir="$2"; shift 2 ;;
    --platform) platform="$2"; shift 2 ;;
    --device) device="$2"; shift 2 ;;
    --cuda-compare) cuda=true; shift ;;
    --with-openmp) with_openmp=true; shift ;;
    --width) width="$2"; shift 2 ;;
    --height) height="$2"; shift 2 ;;
    --channels) channels="$2"; shift 2 ;;
    --repeats) repeats="$2"; shift 2 ;;
    --out) out_dir="$2"; shift 2 ;;
    --transfers) transfers="$2"; shift 2 ;;
    --cmake-arg) cmake_args+=("$2"); shift 2 ;;
    --) shift; bench_args=("$@"); break ;;
    -h|--help) sed -n '2,26p' "${BASH_SOURCE[0]}"; exit 0 ;;
    *) echo "bench-opencl.sh: unknown option $1 (see --help)" >&2; exit 2 ;;
  esac
done

out_dir="${out_dir:-$build_dir}"
configure=(-S "$root" -B "$build_dir" -DPARFILTER_WITH_OPENCL=ON -DPARFILTER_WITH_OPENMP=ON
           -DPARFILTER_BUILD_BENCH=ON)
targets=(parfilter-bench-opencl parfilter-opencl)
peers=(openmp)
if $cuda; then
  configure+=(-DPARFILTER_WITH_CUDA=ON)
  targets+=(parfilter-cuda)
  peers=(cuda)
  $with_openmp && peers+=(openmp)
fi
# A new build dir gets a Release build without tests; an existing one (gpu-check's) keeps its
# settings.
if [[ ! -f "$build_dir/CMakeCache.txt" ]]; then
  configure+=(-G Ninja -DCMAKE_BUILD_TYPE=Release -DPARFILTER_BUILD_TESTS=OFF)
fi
cmake "${configure[@]}" "${cmake_args[@]}" >/dev/null
cmake --build "$build_dir" -j "$(nproc)" --target "${targets[@]}"

bench="$build_dir/bench/opencl/parfilter-bench-opencl"
cli="$build_dir/backend_opencl/parfilter-opencl"
mkdir -p "$out_dir"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
device_args=()
[[ -n "$platform" ]] && device_args+=(--platform "$platform")
[[ -n "$device" ]] && device_args+=(--device "$device")
peer_args=()
for p in "${peers[@]}"; do peer_args+=(--peer "$p"); done
image="$work/bench.bmp"  # BMP: quick to write and read at 8K
"$bench" --width "$width" --height "$height" --channels "$channels" --write-image "$image"

# ---- part 1: variants and peers, warm -------------------------------------------------------
report="$out_dir/bench-opencl.md"
{
  echo "# OpenCL benchmark ($(date -u +%Y-%m-%d), $(uname -n))"
  echo
  echo "CPU: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ //') ($(nproc) cores)"
  if command -v nvidia-smi >/dev/null 2>&1; then
    echo "GPU: $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | head -1)"
  fi
  echo
  XDG_CACHE_HOME="$work/warm-cache" "$bench" --input "$image" "${device_args[@]}" \
    "${peer_args[@]}" --repeats "$repeats" --csv "$out_dir/bench-opencl.csv" "${bench_args[@]}"
} | tee "$report"

# ---- part 2: first run with an empty program cache, then with the cache it left -------------
# label|op and options (each op's default variant, as a user runs it)
cases=("gray|gray" "gaussian|gaussian" "sobel|sobel" "sharpen|sharpen" "histogram|histogram"
       "equalize|equalize" "otsu|otsu" "segment|segment" "segment-adaptive|segment --adaptive"
       "erode-rect3x3|erode" "dilate-ellipse7x7|dilate --se ellipse:7x7"
       "erode-rect31x31|erode --se rect:31x31" "open-cross5x5|open --se cross:5x5" "pool|pool")
now_ms() { date +%s%N | awk '{printf "%.1f", $1 / 1e6}'; }
# run_cli <cache dir> <op args...>: prints "wall_ms build_ms"
run_cli() {
  local cache="$1"; shift
  local ext=bmp  # quick to write at 8K: the save is not what is measured
  [[ "$1" == histogram ]] && ext=csv
  local start end build
  start="$(now_ms)"
  XDG_CACHE_HOME="$cache" CUDA_CACHE_PATH="$cache/nv" "$cli" "$@" "${device_args[@]}" --timing \
    "$image" "$work/out.$ext" 2>"$work/timing.txt"
  end="$(now_ms)"
  build="$(sed -n 's/.*: build \([0-9.]*\) ms/\1/p' "$work/timing.txt")"
  awk -v s="$start" -v e="$end" -v b="${build:-0}" 'BEGIN { printf "%.1f %.1f", e - s, b }'
}
cold_report="$out_dir/bench-opencl-cold-warm.md"
{
  echo
  echo "## First run: empty program cache against warm cache"
  echo
  echo "${width}x${height}, $channels channels."
  echo
  echo "One parfilter-opencl process per op (its default variant): the wall time of the whole"
  echo "process (start, load, build, run, save as BMP) and the time its programs took to build or"
  echo "load, in ms."
  echo
  echo "| case | cold: process | cold: build | warm: process | warm: build |"
  echo "|---|---|---|---|---|"
  for entry in "${cases[@]}"; do
    label="${entry%%|*}"
    read -r -a args <<<"${entry#*|}"
    cache="$work/cache-$label"
    read -r cold_wall cold_build <<<"$(run_cli "$cache" "${args[@]}")"
    read -r warm_wall warm_build <<<"$(run_cli "$cache" "${args[@]}")"
    echo "| $label | $cold_wall | $cold_build | $warm_wall | $warm_build |"
  done
} | tee "$cold_report"
cat "$cold_report" >>"$report"

# ---- part 3: transfers and batches against the bus -------------------------------------------
if [[ "$transfers" != none ]]; then
  {
    echo
    XDG_CACHE_HOME="$work/warm-cache" "$bench" --transfers "$transfers" "${device_args[@]}"
  } | tee -a "$report"
fi
echo "bench-opencl.sh: results in $report and $out_dir/bench-opencl.csv"
