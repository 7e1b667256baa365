#!/usr/bin/env bash
# The MPI backend's scaling benchmark (docs/MPI.md records its numbers):
#
#  1. strong scaling: gaussian, erode 15x15 and adaptive segment on a generated 7680x4320 RGB
#     image, at each rank count: end to end (scatter + compute + gather, as the root sees it)
#     and compute only (the slowest rank), with the parallel efficiency of each,
#     E(N) = T(1) / (N * T(N));
#  2. batch scaling: 64 generated PNGs of uneven sizes through `parfilter-mpi <op> --out-dir`
#     at each rank count (the batch's own time, without mpirun's start-up), with efficiency.
#
#   scripts/bench-mpi.sh [--ranks "1 2 4 8 16"] [--threads T] [--repeats N] [--images N]
#                        [--batch-op OP] [--width W --height H] [--bind core|none] [--out DIR]
#
# --bind core (default) pins each rank to its cores when they fit; none leaves placement to
# the OS (better on a machine others are using).
# Writes DIR/bench-mpi.csv and DIR/bench-mpi.md (DIR: <build dir>/bench-mpi) and prints the
# tables. Build dir: build-bench-mpi/ (or $BENCH_BUILD_DIR), a Release build of only what the
# benchmark needs. Run as root, it sets Open MPI's run-as-root variables. Run it on a quiet
# machine: other load shows up as missing speedup. Rank counts above the core count are
# oversubscribed (their efficiency says so).
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build_dir="${BENCH_BUILD_DIR:-$root/build-bench-mpi}"
ranks_list="1 2"
threads=1
repeats=3
images=64
batch_op="gaussian"
width=7680
height=4320
out_dir=""
bind="core"

usage() { awk 'NR > 1 && !/^#/ { exit } NR > 1 { sub(/^# ?/, ""); print }' "${BASH_SOURCE[0]}"; }
while [[ $# -gt 0 ]]; do
  case "$1" in
    --ranks) ranks_list="$2"; shift 2 ;;
    --threads) threads="$2"; shift 2 ;;
    --repeats) repeats="$2"; shift 2 ;;
    --images) images="$2"; shift 2 ;;
    --batch-op) batch_op="$2"; shift 2 ;;
    --width) width="$2"; shift 2 ;;
    --height) height="$2"; shift 2 ;;
    --out) out_dir="$2"; shift 2 ;;
    --bind) bind="$2"; shift 2 ;;
    -h | --help) usage; exit 0 ;;
    *) echo "bench-mpi.sh: unknown argument '$1' (see --help)" >&2; exit 2 ;;
  esac
done
out_dir="${out_dir:-$build_dir/bench-mpi}"
mkdir -p "$out_dir"

configure_args=(-S "$root" -B "$build_dir" -DCMAKE_BUILD_TYPE=Release
  -DPARFILTER_BUILD_TESTS=OFF -DPARFILTER_BUILD_BENCH=ON -DPARFILTER_WITH_MPI=ON
  -DPARFILTER_WITH_CUDA=OFF -DPARFILTER_WITH_OPENCL=OFF)
if [[ ! -f "$build_dir/CMakeCache.txt" ]] && command -v ninja >/dev/null 2>&1; then
  configure_args+=(-G Ninja)
fi
cmake "${configure_args[@]}" >/dev/null
cmake --build "$build_dir" -j "$(nproc)" --target parfilter-mpi parfilter-bench-mpi >/dev/null
mpi_exe="$build_dir/backend_mpi/parfilter-mpi"
bench_exe="$build_dir/bench/mpi/parfilter-bench-mpi"

export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
cores="$(nproc)"
# mpirun_n <ranks> <command...>: one core per rank (pinned) when they fit; more ranks or
# threads than cores: oversubscribed and unpinned.
mpirun_n() {
  local ranks="$1"
  shift
  local flags=(-q -n "$ranks")
  if ((ranks * threads > cores)); then
    flags+=(--oversubscribe --bind-to none)
  elif [[ "$bind" == none ]]; then
    flags+=(--bind-to none)
  elif ((threads > 1)); then
    flags+=(--map-by "slot:PE=$threads" --bind-to core)
  else
    flags+=(--bind-to core)
  fi
  mpirun "${flags[@]}" "$@"
}

csv="$out_dir/bench-mpi.csv"
md="$out_dir/bench-mpi.md"
raw="$out_dir/scaling-raw.csv"
: >"$raw"
echo "bench-mpi: strong scaling, ${width}x${height} RGB, $threads thread(s) per rank, ranks: $ranks_list" >&2
for ranks in $ranks_list; do
  mpirun_n "$ranks" "$bench_exe" scaling --width "$width" --height "$height" --threads "$threads" \
    --repeats "$repeats" --ops gaussian,erode-15x15,segment-adaptive >>"$raw"
done

echo "bench-mpi: batch of $images images ($batch_op)" >&2
images_dir="$out_dir/batch-in"
if [[ ! -d "$images_dir" || $(find "$images_dir" -name '*.png' | wc -l) -ne $images ]]; then
  rm -rf "$images_dir"
  mpirun_n "$(( cores < images ? cores : images ))" "$bench_exe" images --count "$images" --out "$images_dir"
fi
batch_raw="$out_dir/batch-raw.csv"
: >"$batch_raw"
for ranks in $ranks_list; do
  rm -rf "$out_dir/batch-out"
  summary="$(mpirun_n "$ranks" "$mpi_exe" "$batch_op" --threads "$threads" --out-dir "$out_dir/batch-out" \
    "$images_dir"/*.png 2>&1 >/dev/null | grep '^batch: ')"
  seconds="$(sed -n 's/.* in \([0-9.]*\) s:.*/\1/p' <<<"$summary")"
  echo "batch,$ranks,$threads,$(awk -v s="$seconds" 'BEGIN { printf "%.3f", s * 1000 }')" >>"$batch_raw"
done

# CSV and markdown, with the efficiencies against the 1-rank (first) row of each op.
awk -F, -v csv="$csv" -v md="$md" '
  FNR == 1 { file++ }
  file == 1 {
    op = $1; n = $2
    if (!(op in t1)) { t1[op] = $4; c1[op] = $6; n1[op] = n; order[++ops] = op }
    rows[op] = rows[op] sprintf("%s,%d,%d,%.3f,%.3f,%.3f,%.3f,%.3f,%.3f\n", op, n, $3, $4, $5, $6,
        $7, t1[op] * n1[op] / (n * $4), c1[op] * n1[op] / (n * $6))
    line[op] = line[op] sprintf("| %s | %d | %.1f | %.1f | %.1f | %.1f | %.0f%% | %.0f%% |\n", op, n,
        $4, $5, $6, $7, 100 * t1[op] * n1[op] / (n * $4), 100 * c1[op] * n1[op] / (n * $6))
  }
  file == 2 {
    if (b1 == "") { b1 = $4; bn = $2 }
    brows = brows sprintf("batch,%d,%d,%.3f,,,,%.3f,\n", $2, $3, $4, b1 * bn / ($2 * $4))
    bline = bline sprintf("| %d | %.2f | %.0f%% |\n", $2, $4 / 1000, 100 * b1 * bn / ($2 * $4))
  }
  END {
    print "kind,ranks,threads,end_to_end_ms,scatter_ms,compute_ms,gather_ms,end_to_end_efficiency,compute_efficiency" > csv
    for (i = 1; i <= ops; i++) printf "%s", rows[order[i]] > csv
    printf "%s", brows > csv
    print "| op | ranks | end to end (ms) | scatter (ms) | compute (ms) | gather (ms) | E end to end | E compute |" > md
    print "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |" > md
    for (i = 1; i <= ops; i++) printf "%s", line[order[i]] > md
    print "" > md
    print "| batch ranks | time (s) | efficiency |" > md
    print "| ---: | ---: | ---: |" > md
    printf "%s", bline > md
  }' "$raw" "$batch_raw"
cat "$md"
echo "bench-mpi: wrote $csv and $md" >&2
