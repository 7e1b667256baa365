#!/usr/bin/env bash
# The MPI batch across hosts against one host: the same batch of generated PNGs through
# `parfilter-mpi <op> --out-dir`, on 4 ranks,
#
#   shm: one host, shared memory between the ranks (--mca btl vader,self), plain mpirun;
#   tcp: 2 simulated hosts x 2 ranks (network namespaces joined by a bridge, made by
#        tests/mpi/netns_lib.sh as for the test test_mpi_netns), TCP only (--mca btl tcp,self);
#
# alternating, --repeats times each, for each way of opening the files (--files-on: root, the
# default, where rank 0 reads every input and writes every output and the bytes cross the
# network; every-rank, where each rank opens its own); it reports the median of the batch's own
# time (its summary line, without mpirun's start-up), the images per second of each and the
# ratio tcp / shm (the goal of "MPI across hosts": at least 80%). Both run on this machine's
# cores: the hosts are simulated, so this measures what TCP and the batch protocol across
# hosts cost, not a real network's bandwidth or a second machine's cores.
#
#   scripts/bench-mpi-netns.sh [--build-dir DIR] [--images N] [--width W] [--height H]
#                              [--op "OP [OPTION...]"] [--repeats N]
#                              [--files-on root|every-rank|both]
#
# Defaults: build dir build/ (or $BUILD_DIR; it needs backend_mpi/parfilter-mpi and
# backend_serial/parfilter-serial built), 16 images of 2048x1152 (random pixels, blurred once:
# about 4 MB each as PNG), op gaussian, 3 repeats, both ways of opening the files. Needs root and `ip netns` (as the test);
# everything it creates, images included, is removed when it ends.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build_dir="${BUILD_DIR:-$root/build}"
images=16
width=2048
height=1152
op="gaussian"
repeats=3
ranks=4
files_on="both"

usage() { awk 'NR > 1 && !/^#/ { exit } NR > 1 { sub(/^# ?/, ""); print }' "${BASH_SOURCE[0]}"; }
while [[ $# -gt 0 ]]; do
  case "$1" in
    --build-dir) build_dir="$2"; shift 2 ;;
    --images) images="$2"; shift 2 ;;
    --width) width="$2"; shift 2 ;;
    --height) height="$2"; shift 2 ;;
    --op) op="$2"; shift 2 ;;
    --repeats) repeats="$2"; shift 2 ;;
    --files-on) files_on="$2"; shift 2 ;;
    -h | --help) usage; exit 0 ;;
    *) echo "bench-mpi-netns.sh: unknown argument '$1' (see --help)" >&2; exit 2 ;;
  esac
done
case "$files_on" in
  root | every-rank) modes=("$files_on") ;;
  both) modes=(root every-rank) ;;
  *) echo "bench-mpi-netns.sh: --files-on takes root, every-rank or both" >&2; exit 2 ;;
esac
# shellcheck source-path=SCRIPTDIR source=lib/checks.sh
source "$root/scripts/lib/checks.sh"
require_width_multiple_of_4 bench-mpi-netns.sh "$width"
mpi_exe="$build_dir/backend_mpi/parfilter-mpi"
serial_exe="$build_dir/backend_serial/parfilter-serial"
require_executables bench-mpi-netns.sh \
  "cmake --build $build_dir --target parfilter-mpi parfilter-serial" "$mpi_exe" "$serial_exe"
read -ra op_args <<<"$op"

# shellcheck source-path=SCRIPTDIR source=../tests/mpi/netns_lib.sh
source "$root/tests/mpi/netns_lib.sh"
if ! netns_check_prereqs mpiexec; then
  echo "bench-mpi-netns.sh: cannot simulate hosts here: $NETNS_SKIP_REASON" >&2
  exit 1
fi
set +e
netns_cluster_up 2
up=$?
set -e
if [[ $up -ne 0 ]]; then
  echo "bench-mpi-netns.sh: cannot simulate hosts here: $NETNS_SKIP_REASON" >&2
  exit 1
fi
work="$NETNS_WORK"
netns_hostfile "$work/hosts" $((ranks / 2)) $((ranks / 2))

echo "bench-mpi-netns: $images images of ${width}x${height}, '$op', $ranks ranks," \
  "$repeats repeats; $(nproc) cores here, load average $(cut -d' ' -f1-3 /proc/loadavg)" >&2
mkdir -p "$work/bmp" "$work/in"
for i in $(seq -w 1 "$images"); do netns_write_bmp "$work/bmp/img$i.bmp" "$width" "$height"; done
"$serial_exe" gaussian --format png --out-dir "$work/in" "$work/bmp"/*.bmp >/dev/null 2>&1
rm -rf "$work/bmp"
inputs=("$work/in"/*.png)
if [[ ${#inputs[@]} -ne $images ]]; then
  echo "bench-mpi-netns.sh: generating the inputs failed" >&2
  exit 1
fi

# batch_seconds <stderr file>: the batch's own time, from its summary line; fails unless every
# image was written.
batch_seconds() {
  local summary
  summary="$(grep '^batch: ' "$1" || true)"
  if [[ "$summary" != *": $images written, 0 failed" ]]; then
    echo "bench-mpi-netns.sh: the batch failed: $(cat "$1")" >&2
    exit 1
  fi
  sed -n 's/.* in \([0-9.]*\) s:.*/\1/p' <<<"$summary"
}

median() { printf '%s\n' "$@" | sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
encoded_mb="$(du -cm "${inputs[@]}" | tail -n 1 | cut -f1)"
rows=()
for mode in "${modes[@]}"; do
  shm=()
  tcp=()
  for ((r = 1; r <= repeats; r++)); do
    rm -rf "$work/out-shm"
    OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 TMPDIR="$work/session-mpirun" \
      timeout 300 mpiexec -n "$ranks" --oversubscribe --bind-to none -q --mca pml ob1 \
      --mca btl vader,self --mca mpi_yield_when_idle 1 \
      "$mpi_exe" "${op_args[@]}" --files-on "$mode" --out-dir "$work/out-shm" "${inputs[@]}" \
      2>"$work/shm.err" || true
    shm+=("$(batch_seconds "$work/shm.err")")

    rm -rf "$work/out-tcp"
    netns_mpirun 300 "$work/hosts" "$ranks" "$mpi_exe" "${op_args[@]}" --files-on "$mode" \
      --out-dir "$work/out-tcp" "${inputs[@]}" 2>"$work/tcp.err" || true
    tcp+=("$(batch_seconds "$work/tcp.err")")
    echo "  $mode, repeat $r: shm ${shm[-1]} s, tcp ${tcp[-1]} s" >&2
  done
  # The same bytes either way.
  for input in "${inputs[@]}"; do
    name="$(basename "$input")"
    cmp -s "$work/out-shm/$name" "$work/out-tcp/$name" ||
      { echo "bench-mpi-netns.sh: $name differs between shm and tcp" >&2; exit 1; }
  done
  rows+=("$mode $(median "${shm[@]}") $(median "${tcp[@]}")")
done

printf '%s\n' "${rows[@]}" | awk -v n="$images" -v op="$op" -v size="${width}x${height}" \
  -v ranks="$ranks" -v mb="$encoded_mb" '
  NR == 1 {
    printf "%d ranks, %d PNGs of %s (%d MB encoded), %s; batch time: median\n\n", ranks, n, \
           size, mb, op
    printf "| --files-on | shm: 1 host, vader (s, images/s) | tcp: 2 hosts x %d (s, images/s) |", \
           ranks / 2
    printf " tcp / shm |\n| --- | ---: | ---: | ---: |\n"
  }
  { printf "| %s | %.3f, %.2f | %.3f, %.2f | %.0f%% |\n", $1, $2, n / $2, $3, n / $3, 100 * $2 / $3 }
  END { printf "\ngoal: tcp / shm at least 80%%\n" }'
