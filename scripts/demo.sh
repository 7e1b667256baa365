#!/usr/bin/env bash
# Installs what is missing, builds parfilter (Release, no tests), runs every built backend on
# every op over the images in data/, writes the results under out/<backend>/<op>/ and prints
# the compute time of each backend and op; then runs a short version of the comparison
# benchmark (scripts/bench-report.sh --quick: results under out/bench/) and prints its tables.
#
#   scripts/demo.sh        build dir: build-demo/ (or $BUILD_DIR), outputs: out/ (or $OUT_DIR)
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build_dir="${BUILD_DIR:-$root/build-demo}"
out_dir="${OUT_DIR:-$root/out}"

"$root/scripts/install-deps.sh" build backends

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

declare -A compute_ms  # "<backend> <op>" -> total compute ms over all images
backends=()
ops=()
failures=0

# compute_total: sums the "compute <ms> ms" values of --timing lines on stdin.
compute_total() {
  awk '/^timing: / { for (i = 1; i < NF; i++) if ($i == "compute") sum += $(i + 1) }
       END { printf "%.1f", sum }'
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
    compute_ms["$backend $op"]="$(compute_total <<<"$log")"
    if [[ "$op" == histogram ]]; then  # the CSV above, and a chart to look at
      "$exe" histogram --per-channel --format png --out-dir "$dest" "${images[@]}" ||
        failures=$((failures + 1))
    fi
  done
done

echo
echo "Compute time in ms, summed over ${#images[@]} images of data/ (--timing):"
printf '%-10s' op
for backend in "${backends[@]}"; do printf ' %12s' "$backend"; done
echo
for op in "${ops[@]}"; do
  printf '%-10s' "$op"
  for backend in "${backends[@]}"; do printf ' %12s' "${compute_ms["$backend $op"]:--}"; done
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
if [[ $failures -gt 0 ]]; then
  echo "demo.sh: $failures run(s) failed" >&2
  exit 1
fi
