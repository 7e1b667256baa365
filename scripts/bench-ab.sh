#!/usr/bin/env bash
# A/B benchmark of two source trees: the current one against a baseline (a `git archive` of an
# earlier commit, say), both built alike (Release, benchmarks on, tests off), parfilter-bench run
# on each in turn for --rounds rounds, so that a drifting machine affects both. Prints, per case,
# the median over rounds of each side's median and new/old; the raw CSVs go to --out.
#
#   scripts/bench-ab.sh --base DIR [--rounds N] [--out DIR] [--no-build] [--new-build DIR]
#                       [-- <parfilter-bench args>]
#
# Build dirs: build-ab-base/ and build-ab-new/ (or --new-build, an existing build of the current
# tree, which is then not rebuilt); AB_CMAKE_ARGS adds configure options (the backends, say). .deps/ at the project root is used as on the GPU machine (gpu-check.sh).
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
base=""
rounds=3
out="$root/build-ab-new/ab"
build=1
new_build="$root/build-ab-new"
reuse_new=0
while [[ $# -gt 0 ]]; do
  case "$1" in
    --base) base="$(cd "$2" && pwd)"; shift 2 ;;
    --rounds) rounds="$2"; shift 2 ;;
    --out) out="$2"; shift 2 ;;
    --no-build) build=0; shift ;;
    --new-build) new_build="$(cd "$2" && pwd)"; reuse_new=1; shift 2 ;;
    --) shift; break ;;
    -h | --help) awk 'NR > 1 && !/^#/ { exit } NR > 1 { sub(/^# ?/, ""); print }' "$0"; exit 0 ;;
    *) echo "bench-ab.sh: unknown argument '$1' (see --help)" >&2; exit 2 ;;
  esac
done
[[ -n "$base" ]] || { echo "bench-ab.sh: --base DIR is required" >&2; exit 2; }
mkdir -p "$out"

cmake_args=(-G Ninja -DCMAKE_BUILD_TYPE=Release -DPARFILTER_BUILD_TESTS=OFF
            -DPARFILTER_BUILD_BENCH=ON -DPARFILTER_WARNINGS_AS_ERRORS=OFF)
if [[ -d "$root/.deps/usr" ]]; then
  export PKG_CONFIG_PATH="$root/.deps/usr/lib/x86_64-linux-gnu/pkgconfig${PKG_CONFIG_PATH:+:$PKG_CONFIG_PATH}"
  cmake_args+=(-DCMAKE_PREFIX_PATH="$root/.deps/usr")
fi
read -r -a extra <<<"${AB_CMAKE_ARGS:-}"
if [[ $build -eq 1 ]]; then
  cmake -S "$base" -B "$root/build-ab-base" "${cmake_args[@]}" "${extra[@]}" >/dev/null
  cmake --build "$root/build-ab-base" -j "$(nproc)" >/dev/null
  if [[ $reuse_new -eq 0 ]]; then
    cmake -S "$root" -B "$new_build" "${cmake_args[@]}" "${extra[@]}" >/dev/null
    cmake --build "$new_build" -j "$(nproc)" >/dev/null
  fi
fi
declare -A bench_of=([base]="$root/build-ab-base/bench/parfilter-bench"
                     [new]="$new_build/bench/parfilter-bench")

for ((round = 1; round <= rounds; ++round)); do
  # Each side goes first in every other round: whatever the first run leaves behind (a warm
  # cache, a spinning pool, a busy page allocator) falls on both.
  order=(base new)
  ((round % 2 == 0)) && order=(new base)
  for side in "${order[@]}"; do
    "${bench_of[$side]}" "$@" --no-table --machine "$side" \
      --csv "$out/$side-$round.csv" >/dev/null 2>"$out/$side-$round.log"
  done
done

python3 - "$out" "$rounds" <<'PY'
import csv, statistics, sys
out, rounds = sys.argv[1], int(sys.argv[2])
key_fields = ("backend", "op", "variant", "width", "height", "channels", "se", "threads", "batch")
times = {}
for side in ("base", "new"):
    for r in range(1, rounds + 1):
        with open(f"{out}/{side}-{r}.csv") as f:
            for row in csv.DictReader(f):
                key = tuple(row[k] for k in key_fields)
                times.setdefault(key, {}).setdefault(side, []).append(float(row["median_ms"]))
print(f"{'case':58} {'base ms':>9} {'new ms':>9} {'new/base':>8}")
ratios = []
for key, sides in times.items():
    if "base" not in sides or "new" not in sides:
        continue
    old, new = statistics.median(sides["base"]), statistics.median(sides["new"])
    ratio = new / old if old > 0 else float("nan")
    ratios.append(ratio)
    name = f"{key[0]} {key[1]} {key[2]} {key[3]}x{key[4]}x{key[5]} t{key[7]}"
    print(f"{name:58} {old:9.3f} {new:9.3f} {ratio:8.3f}")
if ratios:
    print(f"cases {len(ratios)}: new/base median {statistics.median(ratios):.3f}, "
          f"min {min(ratios):.3f}, max {max(ratios):.3f}")
PY
