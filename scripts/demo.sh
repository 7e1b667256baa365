#!/usr/bin/env bash
# Installs what is missing (the benchmarks' peers and chart library too), builds parfilter
# (Release, no tests), runs every built backend on every op over the images in data/ as one
# batch each, writes the results under out/<backend>/<op>/ and prints the load, compute and save
# time of each backend and op; then short runs of the benchmarks with their charts: the kernels
# against OpenCV and the bandwidth limit (scripts/bench-report.sh --quick, out/bench/) and file
# to file against OpenCV and libvips (scripts/bench-e2e.sh --quick, out/bench-e2e/).
#
#   scripts/demo.sh        build dir: build-demo/ (or $BUILD_DIR), outputs: out/ (or $OUT_DIR)
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build_dir="${BUILD_DIR:-$root/build-demo}"
out_dir="${OUT_DIR:-$root/out}"

"$root/scripts/install-deps.sh" build backends bench

configure_args=(-S "$root" -B "$build_dir" -DCMAKE_BUILD_TYPE=Release -DPARFILTER_BUILD_TESTS=OFF)
if [[ ! -f "$build_dir/CMakeCache.txt" ]]; then
  configure_args+=(-G Ninja)
fi
cmake "${configure_args[@]}"
cmake --build "$build_dir" -j "$(nproc)"

shopt -s nullglob
images=("$root"/data/*.png "$root"/data/*.jpg)
if [[ ${#images[@]} -eq 0 ]]; then
  echo "demo.sh: no images in $root/data" >&2
  exit 1
fi
# The backends' executables (not the benchmarks, which take other arguments).
mapfile -t executables < <(find "$build_dir" -type f -perm -u+x -name 'parfilter-*' \
  ! -name 'parfilter-bench*' | sort)
if [[ ${#executables[@]} -eq 0 ]]; then
  echo "demo.sh: no parfilter-* executable in $build_dir" >&2
  exit 1
fi

declare -A stage_ms  # "<backend> <op>" -> "load/compute/save" ms summed over all images
backends=()
ops=()
failures=0

# stage_totals: the load, compute and save ms of --timing lines on stdin, each summed.
stage_totals() {
  awk '/^timing: / { for (i = 1; i < NF; i++) if ($i == "load" || $i == "compute" || $i == "save") sum[$i] += $(i + 1) }
       END { printf "%.0f/%.1f/%.0f", sum["load"], sum["compute"], sum["save"] }'
}

for exe in "${executables[@]}"; do
  backend="$(basename "$exe")"
  backend="${backend#parfilter-}"
  listing="$("$exe" --list)"
  if ! grep -q "device present" <<<"$listing"; then
    echo "demo.sh: skipping $backend: $(head -n 1 <<<"$listing")"
    continue
  fi
  backends+=("$backend")
  # --list: a title line, a header line, then one op per line, its name first.
  mapfile -t ops < <(tail -n +3 <<<"$listing" | awk '{ print $1 }')
  for op in "${ops[@]}"; do
    dest="$out_dir/$backend/$op"
    rm -rf "$dest"
    echo "demo.sh: $backend $op -> ${dest#"$root"/}"
    if ! log="$("$exe" "$op" --timing --out-dir "$dest" "${images[@]}" 2>&1)"; then
      echo "$log" | grep -v '^timing: ' >&2 || true
      failures=$((failures + 1))
    fi
    stage_ms["$backend $op"]="$(stage_totals <<<"$log")"
    if [[ "$op" == histogram ]]; then  # the CSV above, and a chart to look at
      "$exe" histogram --per-channel --format png --out-dir "$dest" "${images[@]}" ||
        failures=$((failures + 1))
    fi
  done
done

echo
echo "Load / compute / save time in ms, each summed over the ${#images[@]} images of data/ in one"
echo "batch (--timing; the batch decodes and encodes on worker threads meanwhile):"
printf '%-10s' op
for backend in "${backends[@]}"; do printf ' %16s' "$backend"; done
echo
for op in "${ops[@]}"; do
  printf '%-10s' "$op"
  for backend in "${backends[@]}"; do printf ' %16s' "${stage_ms["$backend $op"]:--}"; done
  echo
done
echo
echo "Outputs are under ${out_dir}/<backend>/<op>/."

# A short run of the comparison benchmark (scripts/bench-report.sh --full for docs/RESULTS.md):
# every built backend against OpenCV and the memcpy limit, at 256x256 and 1024x1024.
if [[ -x "$build_dir/bench/parfilter-bench" ]]; then
  echo
  echo "demo.sh: a short benchmark (scripts/bench-report.sh --quick)"
  BENCH_BUILD_DIR="$build_dir" "$root/scripts/bench-report.sh" --quick --no-build \
    --out "$out_dir/bench" || failures=$((failures + 1))
else
  echo "demo.sh: no parfilter-bench in $build_dir (PARFILTER_BUILD_BENCH=OFF): no benchmark"
fi
echo
echo "demo.sh: file to file against OpenCV and libvips (scripts/bench-e2e.sh --quick)"
BENCH_BUILD_DIR="$build_dir" "$root/scripts/bench-e2e.sh" --quick --out "$out_dir/bench-e2e" ||
  failures=$((failures + 1))
if [[ -f "$out_dir/bench-e2e/results.md" ]]; then
  echo "demo.sh: the tables and chart are in ${out_dir}/bench-e2e/ (results.md, wall.png)"
fi
if [[ $failures -gt 0 ]]; then
  echo "demo.sh: $failures run(s) failed" >&2
  exit 1
fi
