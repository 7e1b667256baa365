#!/usr/bin/env bash
# Device memory for an image larger than the GPU's memory (issue 44's measure): makes a Deflate
# BigTIFF of 8-bit gray samples with SCALE times the first GPU's memory in pixels
# (bench/memory/big_tiff.c), runs gaussian on it with each backend, and reports time, the
# host's peak RSS, the GPU's peak memory in use (nvidia-smi, sampled every 0.2 s, less what was
# in use before) and whether every backend's output has the same bytes as the first one's.
#
#   scripts/bench-device-memory.sh BUILD_DIR [BACKEND...]     (default: cuda opencl)
#
# SCALE (default 1.1), WIDTH (65536) and WORK_DIR (a temporary dir, removed) may be set;
# libtiff's headers come from .deps/ when the system has none.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="$(cd "${1:?usage: $0 BUILD_DIR [BACKEND...]}" && pwd)"
shift
backends=("$@")
[[ ${#backends[@]} -gt 0 ]] || backends=(cuda opencl)
scale="${SCALE:-1.1}"
width="${WIDTH:-65536}"
rows_per_strip=64
sample_seconds=0.2
work="${WORK_DIR:-$(mktemp -d)}"
[[ -n "${WORK_DIR:-}" ]] || trap 'rm -rf "$work"' EXIT

deps="$root/.deps/usr"
cc -O2 -Wall -Wextra -Werror -I"$deps/include" -I"$deps/include/x86_64-linux-gnu" \
  "$root/bench/memory/big_tiff.c" -o "$work/big_tiff" -L"$deps/lib/x86_64-linux-gnu" -ltiff -lz

gpu_mib="$(nvidia-smi --query-gpu=memory.total --format=csv,noheader,nounits | head -n 1)"
gpu_name="$(nvidia-smi --query-gpu=name --format=csv,noheader | head -n 1)"
height="$(awk -v m="$gpu_mib" -v s="$scale" -v w="$width" -v r="$rows_per_strip" \
  'BEGIN { h = m * 1048576 * s / w; printf "%d", (int(h / r) + 1) * r }')"
"$work/big_tiff" "$work/in.tif" "$width" "$height" "$rows_per_strip"
image_gib="$(awk -v w="$width" -v h="$height" 'BEGIN { printf "%.1f", w * h / 2^30 }')"
echo "gpu: $gpu_name, $((gpu_mib / 1024)) GiB; image: ${width}x${height} 8-bit gray," \
  "$image_gib GiB of samples, file $(du -h "$work/in.tif" | cut -f1)"

gpu_used_mib() { nvidia-smi --query-gpu=memory.used --format=csv,noheader,nounits | head -n 1; }

printf '%-8s %10s %14s %16s %10s %s\n' backend seconds "host RSS MiB" "GPU peak MiB" output same
first=""
for backend in "${backends[@]}"; do
  exe="$build/backend_$backend/parfilter-$backend"
  out="$work/out-$backend.tif"
  baseline="$(gpu_used_mib)"
  peak_file="$work/peak-$backend"
  echo "$baseline" >"$peak_file"
  ( peak="$baseline"
    while :; do
      used="$(gpu_used_mib)"
      ((used > peak)) && { peak="$used"; echo "$peak" >"$peak_file"; }
      sleep "$sample_seconds"
    done ) &
  sampler=$!
  rc=0
  /usr/bin/time -f "%e %M" -o "$work/time-$backend" "$exe" gaussian "$work/in.tif" "$out" \
    --quiet || rc=$?
  kill "$sampler" 2>/dev/null || true
  wait "$sampler" 2>/dev/null || true
  read -r seconds rss_kib <"$work/time-$backend"
  same="-"
  if [[ $rc -ne 0 ]]; then
    same="failed ($rc)"
  elif [[ -z "$first" ]]; then
    first="$out"
  else
    cmp -s "$first" "$out" && same="yes" || same="NO"
  fi
  size="$( [[ -f "$out" ]] && du -h "$out" | cut -f1 || echo -)"
  printf '%-8s %10s %14s %16s %10s %s\n' "$backend" "$seconds" "$((rss_kib / 1024))" \
    "$(($(cat "$peak_file") - baseline))" "$size" "$same"
  [[ "$out" == "$first" ]] || rm -f "$out"
done
