#!/usr/bin/env bash
# The end-to-end benchmark, file to file (bench/e2e/bench_e2e.py): parfilter-<backend> gaussian
# on PNG, JPEG and BMP inputs (one image at 1 thread and all cores, a batch on all cores) next
# to OpenCV (cv2 from Python) and libvips (`vips conv` with parfilter's exact kernel), with the
# load / compute / save split, output sizes, peak RSS and the JPEG outputs' PSNR. Writes
# OUT/results.csv, OUT/results.md and OUT/wall.png (OUT: out/bench-e2e/).
#
#   scripts/bench-e2e.sh [--quick] [--size WxH] [--batch N] [--repeats N] [--formats png,jpg,bmp]
#                        [--backends serial,pthread,...] [--no-cv2] [--no-vips] [--out DIR]
#                        [--build-dir DIR]        (every option: bench/e2e/bench_e2e.py --help)
#
#   --quick   512x288 images, a batch of 3, 1 repeat (seconds; what the tests and the demo use)
#   default   4096x2304 images, a batch of 16, 3 repeats (minutes on a 2-core VM)
#
# Build dir: $BENCH_BUILD_DIR, else build-demo/ or build/ (the first with a parfilter-*
# executable); it builds nothing (scripts/demo.sh does). Installs the missing Debian packages of
# `scripts/install-deps.sh bench` first (PARFILTER_SKIP_DEPS=1 skips that); a peer that is still
# missing is reported as skipped in results.md. Runs the script with /usr/bin/python3 where that
# one has cv2 (Debian's python3-opencv), else with the python3 on PATH (the script finds an
# interpreter with cv2 or matplotlib for its children itself). Run on a quiet machine.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
usage() { awk 'NR > 1 && !/^#/ { exit } NR > 1 { sub(/^# ?/, ""); print }' "${BASH_SOURCE[0]}"; }
for arg in "$@"; do
  if [[ "$arg" == -h || "$arg" == --help ]]; then
    usage
    exit 0
  fi
done

has_backend() {
  compgen -G "$1/backend_*/parfilter-*" >/dev/null
}
if [[ -n "${BENCH_BUILD_DIR:-}" ]]; then
  build_dir="$BENCH_BUILD_DIR"
else
  build_dir=""
  for candidate in "$root/build-demo" "$root/build"; do
    if has_backend "$candidate"; then
      build_dir="$candidate"
      break
    fi
  done
  if [[ -z "$build_dir" ]]; then
    echo "bench-e2e.sh: no parfilter build in build-demo/ or build/: build one first" \
      "(scripts/demo.sh) or set BENCH_BUILD_DIR" >&2
    exit 1
  fi
fi

# The peers are optional: a failed install leaves them missing, and the report says so.
"$root/scripts/install-deps.sh" bench ||
  echo "bench-e2e.sh: install-deps.sh bench failed; going on with what is installed" >&2

python=python3
if [[ -x /usr/bin/python3 ]] && /usr/bin/python3 -c "import cv2" 2>/dev/null; then
  python=/usr/bin/python3
fi
# --build-dir first: one given on the command line comes later and wins.
exec "$python" "$root/bench/e2e/bench_e2e.py" --build-dir "$build_dir" "$@"
