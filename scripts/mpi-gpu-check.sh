#!/usr/bin/env bash
# parfilter-mpi over CUDA node backends on a machine with 2 or more GPUs: builds nothing, takes
# a build directory that has parfilter-mpi, parfilter-serial and test_cross_backend_mpi with
# the CUDA backend in it, and prints the numbers.
#
#   1. bit-exact: the cross-backend suite's mpi cases with --node-backend=cuda on 2 ranks
#      (each rank on its own GPU: local rank modulo the device count); one image through
#      chains on 2 ranks (each rank's slab on its GPU) and a batch on 2 ranks, against
#      parfilter-serial's bytes;
#   2. the GPUs in use during the 2-rank batch (nvidia-smi, where present);
#   3. batch throughput: the same batch of generated PNGs on 1 rank with 1 GPU and on 2 ranks
#      with 2 GPUs, each rank with the same --threads T codec threads (by default T = half the
#      cores less one, so that each rank's codec workers and its compute thread fill its half of
#      the machine), median of --repeats runs; the goal is at least 1.8x. Next to them, the
#      host's own ceiling for 2 ranks: two separate 1-rank jobs at once, half the batch each, one
#      per GPU (they share the cores' memory bandwidth and clock as the 2 ranks do).
#
#   scripts/mpi-gpu-check.sh BUILD_DIR [--images N] [--distinct D] [--width W] [--height H]
#                            [--threads T] [--op "OP [OPTION...]"] [--repeats N]
#                            [--files-on auto|root|every-rank] [--format png|bmp]
#
# Defaults: a batch of 1024 images, D = 64 of them distinct (the rest hard links to those, so
# that making them is quick; each has its own name and output), 2048x1152 (random pixels,
# blurred once: about 4 MB each as PNG), op "gaussian,sobel", --files-on auto (every-rank on
# one host), PNG (--format: the inputs' and outputs' format), 3 repeats. A batch this long
# shows the throughput a cluster job sees: a job's fixed start (MPI, the GPU contexts, the
# first image through the pipeline: about 0.3 s for 1 rank, 0.5 s for 2 on an H200 host) is a
# few percent of it, where it was half of a 64-image batch. Exit code 0 when every check
# passed and the goal was met, 1 otherwise, 2 for bad usage or a build without what it needs.
# mpirun runs as root where the machine needs it (OMPI_ALLOW_RUN_AS_ROOT); MPIRUN_FLAGS adds
# options (default "--bind-to none").
#
# A build that has all of it (CUDA on, OpenCL optional), from the repository root:
#   cmake -S . -B build-gpu -G Ninja -DCMAKE_BUILD_TYPE=Release -DPARFILTER_WITH_CUDA=ON \
#     -DPARFILTER_WITH_MPI=ON
#   cmake --build build-gpu --target parfilter-mpi parfilter-serial test_cross_backend_mpi
set -uo pipefail

usage() { awk 'NR > 1 && !/^#/ { exit } NR > 1 { sub(/^# ?/, ""); print }' "${BASH_SOURCE[0]}"; }
if [[ $# -lt 1 || "$1" == -h || "$1" == --help ]]; then
  usage
  [[ $# -ge 1 ]] && exit 0
  exit 2
fi
build="$1"
shift
images=1024
distinct=64
width=2048
height=1152
threads=$(($(nproc) / 2 - 1))
((threads < 1)) && threads=1
op="gaussian,sobel"
repeats=3
files_on=auto
format=png
readonly goal_percent=180
while [[ $# -gt 0 ]]; do
  case "$1" in
    --images) images="$2"; shift 2 ;;
    --distinct) distinct="$2"; shift 2 ;;
    --width) width="$2"; shift 2 ;;
    --height) height="$2"; shift 2 ;;
    --threads) threads="$2"; shift 2 ;;
    --op) op="$2"; shift 2 ;;
    --repeats) repeats="$2"; shift 2 ;;
    --files-on) files_on="$2"; shift 2 ;;
    --format) format="$2"; shift 2 ;;
    *) echo "mpi-gpu-check.sh: unknown argument '$1' (see --help)" >&2; exit 2 ;;
  esac
done
# shellcheck source-path=SCRIPTDIR source=lib/checks.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib/checks.sh"
require_width_multiple_of_4 mpi-gpu-check.sh "$width"
mpi_exe="$build/backend_mpi/parfilter-mpi"
serial_exe="$build/backend_serial/parfilter-serial"
cross_exe="$build/tests/mpi/test_cross_backend_mpi"
require_executables mpi-gpu-check.sh "see --help for the build" "$mpi_exe" "$serial_exe" \
  "$cross_exe"
read -ra op_args <<<"$op"
read -ra mpirun_flags <<<"${MPIRUN_FLAGS:---bind-to none}"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
mpirun=(mpiexec -q "${mpirun_flags[@]}")
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
failures=0
results=()
pass() { results+=("PASS  $*"); }
fail() {
  results+=("FAIL  $*")
  failures=$((failures + 1))
}

# ---- the machine ------------------------------------------------------------------------------
echo "mpi-gpu-check: $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"
"${mpirun[@]}" -n 1 "$mpi_exe" --node-backend cuda --list-devices 2>&1 | sed 's/^/  /'
if ! "${mpirun[@]}" -n 1 "$mpi_exe" --node-backend cuda --list 2>"$work/err" |
  grep -q "device present"; then
  echo "mpi-gpu-check.sh: no CUDA node backend here: $(cat "$work/err")" >&2
  exit 2
fi
gpus="$("${mpirun[@]}" -n 1 "$mpi_exe" --node-backend cuda --list-devices 2>/dev/null |
  grep -c '^[* ] [0-9]*: ')"
echo "  $gpus CUDA device(s)"
((gpus >= 2)) || fail "2 or more GPUs: found $gpus (the 2-rank runs share one)"

# ---- 1. bit-exact ----------------------------------------------------------------------------
start=$(date +%s)
if "${mpirun[@]}" -n 2 "$cross_exe" --gtest_brief=1 --node-backend=cuda \
  "--gtest_filter=AllBackends/CrossBackend.MatchesReference/mpi_*" >"$work/suite" 2>&1; then
  pass "cross-backend suite, --node-backend=cuda, 2 ranks:" \
    "$(grep -o '[0-9]* tests\?[.,]' "$work/suite" | head -n 1) ($(($(date +%s) - start)) s)"
else
  fail "cross-backend suite, --node-backend=cuda, 2 ranks: $(tail -n 15 "$work/suite")"
fi
data="$(cd "$(dirname "${BASH_SOURCE[0]}")/../data" && pwd)"
for chain in "gray,gaussian,sobel" "gaussian,pool,open --se ellipse:15x15" \
  "sharpen,equalize,erode --iterations 3" "segment --adaptive"; do
  read -ra chain_args <<<"$chain"
  "${mpirun[@]}" -n 2 "$mpi_exe" "${chain_args[@]}" --node-backend cuda "$data/astronaut.png" \
    "$work/mpi.png" 2>"$work/err"
  "$serial_exe" "${chain_args[@]}" "$data/astronaut.png" "$work/serial.png"
  if cmp -s "$work/mpi.png" "$work/serial.png"; then
    pass "one image, $chain, 2 ranks x cuda: parfilter-serial's bytes"
  else
    fail "one image, $chain, 2 ranks x cuda: differs ($(cat "$work/err"))"
  fi
done

# ---- the batch's inputs ------------------------------------------------------------------------
((distinct > images)) && distinct=$images
mkdir -p "$work/bmp" "$work/distinct" "$work/in" "$work/expected"
row_bytes=$((width * 3))
for i in $(seq -w 1 "$distinct"); do
  {
    printf 'P6\n%d %d\n255\n' "$width" "$height"
    head -c $((row_bytes * height)) /dev/urandom
  } >"$work/bmp/img$i.ppm"
done
"$serial_exe" gaussian --format "$format" --out-dir "$work/distinct" "$work/bmp"/*.ppm \
  >/dev/null 2>&1
rm -rf "$work/bmp"
sources=("$work/distinct"/*."$format")
if [[ ${#sources[@]} -ne $distinct ]]; then
  echo "mpi-gpu-check.sh: generating the inputs failed" >&2
  exit 1
fi
"$serial_exe" "${op_args[@]}" --out-dir "$work/expected" "${sources[@]}" >/dev/null 2>&1
declare -A source_of  # input name -> the distinct image it links to
for ((i = 0; i < images; i++)); do
  name="$(printf 'img%05d.%s' "$i" "$format")"
  ln "${sources[i % distinct]}" "$work/in/$name"
  source_of[$name]="$(basename "${sources[i % distinct]}")"
done
inputs=("$work/in"/*."$format")
# cuda_batch <ranks> <out dir> <stderr file> [option...] -- <input...>: the batch on the CUDA
# node backend with this check's op and codec threads.
cuda_batch() {
  local ranks="$1" out="$2" err="$3"
  shift 3
  local options=()
  while [[ "$1" != -- ]]; do options+=("$1"); shift; done
  shift
  rm -rf "$out"
  "${mpirun[@]}" -n "$ranks" "$mpi_exe" "${op_args[@]}" --node-backend cuda --threads "$threads" \
    "${options[@]}" --out-dir "$out" "$@" 2>"$err"
}
# The batch's own time in seconds (its summary line), blank unless it wrote every image.
batch_seconds() {
  local summary='^batch: \([0-9]*\) image(s) on [0-9]* rank(s) in \([0-9.]*\) s: \1 written'
  sed -n "s/$summary, 0 failed\$/\\2/p" "$@"
}
batch() {  # batch <ranks> <out dir>: the whole batch on that many ranks, its time in seconds
  cuda_batch "$1" "$2" "$work/batch.err" --files-on "$files_on" -- "${inputs[@]}"
  batch_seconds "$work/batch.err"
}
# pair: two separate 1-rank jobs at once, half the batch each, on GPU 0 and GPU 1: the most
# that 2 ranks could reach on this host, whose cores, memory and clock the two share (the
# batch's own time of the slower one, in seconds).
pair() {
  local half=$((images / 2)) first
  cuda_batch 1 "$work/pair0" "$work/pair0.err" --device 0 -- "${inputs[@]:0:half}" &
  first=$!
  cuda_batch 1 "$work/pair1" "$work/pair1.err" --device 1 -- "${inputs[@]:half}"
  wait "$first"
  batch_seconds "$work/pair0.err" "$work/pair1.err" | sort -g | awk 'NR == 2 { print }'
}

# ---- 2. the batch: bit-exact, each rank on its own GPU ----------------------------------------
if command -v nvidia-smi >/dev/null 2>&1; then
  (for _ in $(seq 1 100); do
    nvidia-smi --query-compute-apps=pid,gpu_bus_id --format=csv,noheader 2>/dev/null
    sleep 0.2
  done) >"$work/smi" &
  smi=$!
fi
seconds="$(batch 2 "$work/out2")"
[[ -n "${smi:-}" ]] && kill "$smi" 2>/dev/null && wait "$smi" 2>/dev/null
if [[ -z "$seconds" ]]; then
  fail "batch on 2 ranks x cuda: $(cat "$work/batch.err")"
else
  differ=0
  for input in "${inputs[@]}"; do
    name="$(basename "$input")"
    cmp -s "$work/out2/$name" "$work/expected/${source_of[$name]}" || differ=1
  done
  if [[ $differ -eq 0 ]]; then
    pass "batch of $images on 2 ranks x cuda: parfilter-serial's bytes"
  else
    fail "batch of $images on 2 ranks x cuda: outputs differ from parfilter-serial's"
  fi
fi
if [[ -s "${work}/smi" ]]; then
  used="$(cut -d, -f2 "$work/smi" | sort -u | wc -l)"
  if ((used >= 2 || gpus < 2)); then
    pass "GPUs in use during the 2-rank batch: $used ($(cut -d, -f2 "$work/smi" | sort -u | tr '\n' ' '))"
  else
    fail "GPUs in use during the 2-rank batch: $used, expected 2 (local rank modulo devices)"
  fi
fi

# ---- 3. throughput: 1 rank x 1 GPU against 2 ranks x 2 GPUs, alternating ----------------------
one=()
two=()
both=()
for ((r = 1; r <= repeats; r++)); do
  one+=("$(batch 1 "$work/out1")")
  two+=("$(batch 2 "$work/out2")")
  ((gpus >= 2)) && both+=("$(pair)")
  echo "  repeat $r: 1 rank ${one[-1]:-failed} s, 2 ranks ${two[-1]:-failed} s," \
    "2 separate 1-rank jobs ${both[-1]:-not run} s"
done
median() { printf '%s\n' "$@" | sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
one_s="$(median "${one[@]}")"
two_s="$(median "${two[@]}")"
if [[ -z "$one_s" || -z "$two_s" ]]; then
  fail "throughput: a batch failed: $(cat "$work/batch.err")"
else
  speedup="$(awk -v a="$one_s" -v b="$two_s" 'BEGIN { printf "%.0f", 100 * a / b }')"
  table="$(awk -v n="$images" -v a="$one_s" -v b="$two_s" -v t="$threads" -v op="$op" \
    -v size="${width}x${height}" -v files="$files_on" -v format="$format" 'BEGIN {
    printf "%d %s images of %s, %s, --threads %d per rank, --files-on %s, median of runs:\n",
      n, toupper(format), size, op, t, files
    printf "| ranks x GPUs | batch (s) | images/s |\n| --- | ---: | ---: |\n"
    printf "| 1 x 1 | %.3f | %.2f |\n| 2 x 2 | %.3f | %.2f |\n", a, n / a, b, n / b
  }')"
  echo "$table"
  both_s="$(median "${both[@]}")"
  if [[ -n "$both_s" ]]; then
    awk -v n="$images" -v a="$one_s" -v b="$two_s" -v c="$both_s" 'BEGIN {
      printf "| 2 separate 1 x 1 jobs at once (the host'"'"'s ceiling) | %.3f | %.2f |\n",
        c, n / c
      printf "2 ranks reach %.0f%% of 1 rank; 2 separate jobs at once %.0f%%: MPI at %.0f%%",
        100 * a / b, 100 * a / c, 100 * c / b
      printf " of that\n"
    }'
  fi
  if ((speedup >= goal_percent)); then
    pass "throughput 2 ranks x 2 GPUs / 1 x 1: ${speedup}% (goal ${goal_percent}%)"
  else
    fail "throughput 2 ranks x 2 GPUs / 1 x 1: ${speedup}% (goal ${goal_percent}%)"
  fi
fi

echo
printf '%s\n' "${results[@]}"
if ((failures > 0)); then
  echo "mpi-gpu-check: $failures check(s) failed"
  exit 1
fi
echo "mpi-gpu-check: all checks passed"
