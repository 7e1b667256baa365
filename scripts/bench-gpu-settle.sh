#!/usr/bin/env bash
# An experiment for the GPU machine: does parfilter-bench's idle time between contenders (20 ms
# by default, so that OpenMP's and OpenCV's spinning workers leave the cores to the next
# contender) change the GPU backends' times? Runs the CUDA and OpenCL backends alone (nothing
# that spins) on gray and gaussian at 256, 1024 and 4096 RGBA, once with --settle-ms 20 and
# once with --settle-ms 0, and prints the medians side by side. (Before commit 9f3840e the
# idle time followed every run, not every contender; docs/RESULTS.md has both experiments.)
#
#   scripts/bench-gpu-settle.sh [--out DIR] [--no-build]
#
# Build dir: build-bench-report/ (or $BENCH_BUILD_DIR), built by scripts/bench-report.sh.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build_dir="${BENCH_BUILD_DIR:-$root/build-bench-report}"
out_dir="$build_dir/gpu-settle"
build=1
while [[ $# -gt 0 ]]; do
  case "$1" in
    --out) out_dir="$2"; shift 2 ;;
    --no-build) build=0; shift ;;
    -h | --help) awk 'NR > 1 && !/^#/ { exit } NR > 1 { sub(/^# ?/, ""); print }' "$0"; exit 0 ;;
    *) echo "bench-gpu-settle.sh: unknown argument '$1' (see --help)" >&2; exit 2 ;;
  esac
done
# Through bench-report.sh also with --no-build: it registers the NVIDIA OpenCL driver where a
# fresh GPU machine has not.
report_args=(--build-only --out "$out_dir")
[[ $build -eq 0 ]] && report_args+=(--no-build)
BENCH_BUILD_DIR="$build_dir" "$root/scripts/bench-report.sh" "${report_args[@]}"
mkdir -p "$out_dir"
for settle in 20 0; do
  echo "bench-gpu-settle: --settle-ms $settle" >&2
  "$build_dir/bench/parfilter-bench" --backends cuda,opencl --ops gray,gaussian \
    --sizes 256,1024,4096 --channels 4 --threads 1 --warmup 3 --repeats 15 --budget-ms 0 \
    --no-peers --settle-ms "$settle" --section "settle-$settle" --machine "$(hostname)" \
    --csv "$out_dir/settle-$settle.csv" --no-table >"$out_dir/settle-$settle.log"
done
python3 - "$out_dir/settle-20.csv" "$out_dir/settle-0.csv" <<'PY'
import csv
import sys

def rows(path):
    with open(path, newline="") as f:
        return {(r["backend"], r["op"], r["width"]): r for r in csv.DictReader(f)
                if r["backend"] in ("cuda", "opencl")}

idle, busy = rows(sys.argv[1]), rows(sys.argv[2])
cols = {"upload_ms": "upload", "compute_ms": "kernel", "download_ms": "download",
        "median_ms": "end to end"}
print("median ms, --settle-ms 20 > 0")
print(f"{'backend':8} {'op':9} {'size':>5}  " + "  ".join(f"{c:>17}" for c in cols.values()))
for key in sorted(idle, key=lambda k: (k[0], k[1], int(k[2]))):
    if key not in busy:
        continue
    cells = [f"{float(idle[key][c] or 0):8.4f}>{float(busy[key][c] or 0):8.4f}" for c in cols]
    print(f"{key[0]:8} {key[1]:9} {key[2]:>5}  " + "  ".join(cells))
PY
echo "bench-gpu-settle: CSVs and logs in $out_dir" >&2
