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
# tree, which is then not rebuilt); AB_CMAKE_ARGS adds configure options (the backends, say).
# .deps/ at the project root is used as on the GPU machine (gpu-check.sh).
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
base=""
rounds=3
out=""
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
out="${out:-$new_build/ab}"
mkdir -p "$out"

cmake_args=(-G Ninja -DCMAKE_BUILD_TYPE=Release -DPARFILTER_BUILD_TESTS=OFF
            -DPARFILTER_BUILD_BENCH=ON -DPARFILTER_WARNINGS_AS_ERRORS=OFF)
if [[ -d "$root/.deps/usr" ]]; then
  deps_pc="$root/.deps/usr/lib/x86_64-linux-gnu/pkgconfig"
  export PKG_CONFIG_PATH="$deps_pc${PKG_CONFIG_PATH:+:$PKG_CONFIG_PATH}"
  cmake_args+=(-DCMAKE_PREFIX_PATH="$root/.deps/usr")
fi
read -r -a extra <<<"${AB_CMAKE_ARGS:-}"
cmake_args+=(${extra[@]+"${extra[@]}"})
# configure_and_build <source> <build>: its output in $out/build-<name>.log.
configure_and_build() {
  local log
  log="$out/build-$(basename "$2").log"
  { cmake -S "$1" -B "$2" "${cmake_args[@]}" && cmake --build "$2" -j "$(nproc)"; } >"$log" 2>&1 ||
    { echo "bench-ab.sh: building $1 failed, see $log" >&2; exit 1; }
}
if [[ $build -eq 1 ]]; then
  configure_and_build "$base" "$root/build-ab-base"
  [[ $reuse_new -eq 1 ]] || configure_and_build "$root" "$new_build"
fi
declare -A bench_of=([base]="$root/build-ab-base/bench/parfilter-bench"
                     [new]="$new_build/bench/parfilter-bench")

for ((round = 1; round <= rounds; ++round)); do
  # Each side goes first in every other round: whatever the first run leaves behind (a warm
  # cache, a spinning pool, a busy page allocator) falls on both.
  order=(base new)
  ((round % 2 == 0)) && order=(new base)
  for side in "${order[@]}"; do
    log="$out/$side-$round.log"
    "${bench_of[$side]}" "$@" --no-table --machine "$side" --csv "$out/$side-$round.csv" \
      >/dev/null 2>"$log" ||
      { echo "bench-ab.sh: $side, round $round failed, see $log" >&2; exit 1; }
  done
done

python3 - "$out" "$rounds" <<'PY'
import csv, math, statistics, sys
out, rounds = sys.argv[1], int(sys.argv[2])
key_fields = ("section", "backend", "op", "variant", "width", "height", "channels", "se",
              "threads", "ranks", "batch")
times = {}
for side in ("base", "new"):
    for r in range(1, rounds + 1):
        with open(f"{out}/{side}-{r}.csv") as f:
            for row in csv.DictReader(f):
                if not row["median_ms"]:
                    continue
                key = tuple(row[k] for k in key_fields)
                times.setdefault(key, {}).setdefault(side, []).append(float(row["median_ms"]))
print(f"{'case':64} {'base ms':>9} {'new ms':>9} {'new/base':>8}")
ratios = []
for key, sides in times.items():
    if "base" not in sides or "new" not in sides:
        continue
    old, new = statistics.median(sides["base"]), statistics.median(sides["new"])
    ratio = new / old if old > 0 else math.nan
    if not math.isnan(ratio):
        ratios.append(ratio)
    k = dict(zip(key_fields, key))
    name = (f"{k['backend']} {k['op']} {k['variant']} {k['width']}x{k['height']}x{k['channels']}"
            f"{' se ' + k['se'] if k['se'] not in ('', '0') else ''} t{k['threads']}"
            f"{' batch ' + k['batch'] if k['batch'] not in ('', '0') else ''}")
    print(f"{name:64} {old:9.3f} {new:9.3f} {ratio:8.3f}")
if ratios:
    print(f"cases {len(ratios)}: new/base median {statistics.median(ratios):.3f}, "
          f"min {min(ratios):.3f}, max {max(ratios):.3f}")
PY
