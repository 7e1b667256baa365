#!/usr/bin/env bash
# parfilter-mpi's command line under mpirun: results equal parfilter-serial's, with the
# ranks' CPU kernels or a node backend (serial; opencl where a device is present), and in a
# batch whichever ranks open the files (--files-on); only rank 0 prints; a failure (unreadable
# input, unwritable output, bad usage, a corrupt image in a batch, a failed write on the root,
# a killed rank) ends every rank within a time bound, with the right exit code, one message
# and no partial output.
#
#   test_mpi_cli.sh <parfilter-mpi> <parfilter-serial> <data dir> <mpiexec> [mpiexec flag...]
set -uo pipefail

readonly time_bound_s=30
readonly batch_bound_s=120  # up to the first image, however slow the build (ASan: 20-30 s)
# shellcheck source=mpi_cli_lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/mpi_cli_lib.sh"

# ---- results equal the serial backend's, at rank counts from 1 to more than the rows -------
"$serial_exe" pool "$data/astronaut.png" "$work/half.png"  # 256x256
cp "$work/half.png" "$work/4x4.png"
for _ in 1 2 3 4 5 6; do  # an output may not overwrite its input: through another file
  "$serial_exe" pool "$work/4x4.png" "$work/smaller.png" && mv "$work/smaller.png" "$work/4x4.png"
done
"$serial_exe" pool "$work/4x4.png" "$work/2x2.png"
"$serial_exe" pool "$work/2x2.png" "$work/1x1.png"

check_ops() {  # check_ops <ranks> <input> <op>...
  local ranks="$1" input="$2" op
  shift 2
  for op in "$@"; do
    read -ra op_args <<<"$op"
    run_mpi "$ranks" "${op_args[@]}" "$input" "$work/mpi.png"
    expect_rc 0 "$op on $input, $ranks ranks"
    "$serial_exe" "${op_args[@]}" "$input" "$work/serial.png"
    same_file "$work/mpi.png" "$work/serial.png" "$op on $input, $ranks ranks"
  done
}
check_ops 3 "$data/astronaut.png" "sobel" "equalize" "gaussian --border reflect101"
for ranks in 2 5; do
  for input in "$data/horse.png" "$work/4x4.png" "$work/1x1.png"; do
    check_ops "$ranks" "$input" "gaussian --border constant:9" "open --se ellipse:9x9" \
      "segment --adaptive --window 15"
  done
done
run_mpi 3 otsu --print-threshold "$data/coins.png" "$work/mpi.png"
[[ "$(cat "$work/stdout")" == "$("$serial_exe" otsu --print-threshold "$data/coins.png" "$work/serial.png")" ]] ||
  fail "otsu --print-threshold: '$(cat "$work/stdout")' printed, once, by rank 0 only"
run_mpi 3 histogram "$data/astronaut.png" "$work/mpi.csv"
"$serial_exe" histogram "$data/astronaut.png" "$work/serial.csv"
same_file "$work/mpi.csv" "$work/serial.csv" "histogram csv"

# ---- in strips (--strip-rows, or an image over --max-memory): the same bytes, and a truncated
# input read by the root alone ends every rank with one line and no output ------------------
for ranks in 2 3; do
  for op in "gaussian,sobel" "equalize,erode --se ellipse:7x5" "pool,segment --adaptive --window 9" \
    "sharpen,otsu --print-threshold"; do
    read -ra op_args <<<"$op"
    run_mpi "$ranks" "${op_args[@]}" --strip-rows 5 "$data/astronaut.png" "$work/mpi.png"
    expect_rc 0 "$op in strips, $ranks ranks"
    "$serial_exe" "${op_args[@]}" "$data/astronaut.png" "$work/serial.png" >"$work/serial.out"
    same_file "$work/mpi.png" "$work/serial.png" "$op in strips, $ranks ranks"
    same_file "$work/stdout" "$work/serial.out" "$op in strips, $ranks ranks: stdout"
  done
done
"$serial_exe" gray --depth 16 "$data/coins.png" "$work/deep.tif"
run_mpi 3 gaussian,dilate --strip-rows 6 "$work/deep.tif" "$work/mpi16.tif"
expect_rc 0 "16 bits in strips"
"$serial_exe" gaussian,dilate "$work/deep.tif" "$work/serial16.tif"
same_file "$work/mpi16.tif" "$work/serial16.tif" "16 bits in strips"
"$serial_exe" gray --compression none "$data/astronaut.png" "$work/gray.tif"
head -c "$(($(stat -c %s "$work/gray.tif") / 2))" "$work/gray.tif" >"$work/truncated.tif"
rm -f "$work/out.png"
run_mpi 3 gaussian --strip-rows 4 "$work/truncated.tif" "$work/out.png"
expect_rc 2 "a truncated input in strips"
expect_one_error "a truncated input in strips" "truncated.tif"
[[ ! -e "$work/out.png" ]] || fail "a truncated input in strips: an output was written"
[[ -z "$(find "$work" -name '.out.png.tmp.*')" ]] || fail "a truncated input: a temporary was left"

# ---- --timing: rank 0 prints each stage once ----------------------------------------------
run_mpi 3 gaussian --timing "$data/camera.png" "$work/mpi.png"
expect_rc 0 "--timing"
for stage in read scatter "compute (slowest rank)" gather write; do
  [[ $(grep -c ": $stage [0-9.]* ms" "$work/stderr") -eq 1 ]] || fail "--timing: no single '$stage' line"
done

# ---- failures: every rank stops, one message, the right exit code, no output ---------------
rm -f "$work/out.png"
run_mpi 3 gaussian "$work/missing.png" "$work/out.png"
expect_rc 2 "unreadable input"
expect_one_error "unreadable input" "missing.png"
[[ ! -e "$work/out.png" ]] || fail "unreadable input: an output was written"

run_mpi 3 gaussian --se rect:3x3 "$data/camera.png" "$work/out.png"
expect_rc 2 "bad usage"
expect_one_error "bad usage" "--se does not apply"

# An output nobody may create files in is found before the load: bad usage, exit 2.
run_mpi 3 gaussian "$data/camera.png" "/proc/parfilter-mpi-test.png"
expect_rc 2 "unwritable output"
expect_one_error "unwritable output" "parfilter-mpi-test.png"

# ---- batch: a corrupt image is reported and skipped, the others are written ----------------
head -c 300 "$data/camera.png" >"$work/corrupt.png"
inputs=("$data/astronaut.png" "$work/corrupt.png" "$data/camera.png" "$data/coins.png"
  "$data/horse.png" "$data/text.png")
run_mpi 4 erode --se rect:5x5 --out-dir "$work/batch" "${inputs[@]}"
expect_rc 2 "batch with a corrupt image"
[[ $(grep -c '^parfilter-mpi: ' "$work/stderr") -eq 1 ]] || fail "batch: not one error line: $(cat "$work/stderr")"
grep -q "^parfilter-mpi: .*corrupt.png" "$work/stderr" || fail "batch: the error does not name corrupt.png"
grep -q "^batch: 6 image(s) on 4 rank(s) .*: 5 written, 1 failed" "$work/stderr" || fail "batch: no summary"
[[ $(grep -c '^\[[1-6]/6\] .* (rank [0-3])$' "$work/stderr") -eq 6 ]] || fail "batch: not 6 progress lines"
[[ ! -e "$work/batch/corrupt.png" ]] || fail "batch: corrupt.png has an output"
for name in astronaut camera coins horse text; do
  "$serial_exe" erode --se rect:5x5 "$data/$name.png" "$work/serial.png"
  same_file "$work/batch/$name.png" "$work/serial.png" "batch $name"
done
run_mpi 2 gaussian --out-dir "$work/batch2" "$data/camera.png" "$data/coins.png"
expect_rc 0 "good batch"

# ---- node backends (--node-backend): chains bit-exact, single image and batch -------------
nodes=(serial)
run_mpi 1 --node-backend opencl --list
[[ $rc -eq 0 ]] && grep -q "device present" "$work/stdout" && nodes+=(opencl)
# Slab pieces through the node, the CPU kernels between them (equalize), a pool on odd rows.
chains=("gaussian,pool,open --se ellipse:7x5" "sharpen,equalize,pool,erode --iterations 2")
for node in "${nodes[@]}"; do
  for chain in "${chains[@]}"; do
    read -ra op_args <<<"$chain"
    run_mpi 3 "${op_args[@]}" --node-backend "$node" "$data/coins.png" "$work/mpi.png"
    expect_rc 0 "--node-backend $node $chain"
    "$serial_exe" "${op_args[@]}" "$data/coins.png" "$work/serial.png"
    same_file "$work/mpi.png" "$work/serial.png" "--node-backend $node $chain"
  done
  rm -rf "$work/node-batch"
  run_mpi 3 open --se rect:5x3 --node-backend "$node" --out-dir "$work/node-batch" "${inputs[@]}"
  expect_rc 2 "--node-backend $node batch with a corrupt image"
  for name in astronaut camera coins horse text; do
    "$serial_exe" open --se rect:5x3 "$data/$name.png" "$work/serial.png"
    same_file "$work/node-batch/$name.png" "$work/serial.png" "--node-backend $node batch $name"
  done
done
# 16 bits through a node backend: only the root has the image, the ranks agree on its depth.
# Serial only: each rank's PoCL would build the 16-bit program, past the time limit under the
# sanitizers (the 16-bit suite runs over OpenCL by hand, docs/MPI.md).
"$serial_exe" gaussian --depth 16 "$data/coins.png" "$work/in16.tif"
run_mpi 3 gaussian,equalize,pool --node-backend serial "$work/in16.tif" "$work/mpi16.tif"
expect_rc 0 "--node-backend serial at 16 bits"
"$serial_exe" gaussian,equalize,pool "$work/in16.tif" "$work/serial16.tif"
same_file "$work/mpi16.tif" "$work/serial16.tif" "--node-backend serial at 16 bits"

run_mpi 2 gaussian --node-backend no-such "$data/camera.png" "$work/out.png"
expect_rc 2 "unknown node backend"
expect_one_error "unknown node backend" "--node-backend 'no-such': no such backend"
run_mpi 2 gaussian --device 0 "$data/camera.png" "$work/out.png"
expect_rc 2 "--device without a node backend that has devices"
expect_one_error "--device without a node backend" "--device does not apply"
"$serial_exe" gaussian --files-on root "$data/camera.png" "$work/out.png" 2>"$work/stderr"
rc=$?
expect_rc 2 "--files-on on parfilter-serial"
if [[ $(wc -l <"$work/stderr") -ne 1 ]] ||
  ! grep -q "^parfilter-serial: --files-on does not apply" "$work/stderr"; then
  fail "--files-on on parfilter-serial: $(cat "$work/stderr")"
fi

# ---- --files-on: root, every-rank and auto (the default) write the same bytes ----------------
# Which rank opened a file shows in its failure's line: "(rank r on host h)" where the rank
# opened its own (every-rank), nothing where the root opened it. auto on one node: every-rank.
for mode in root every-rank auto; do
  rm -rf "$work/files-$mode"
  mode_args=(--files-on "$mode")
  [[ $mode == auto ]] && mode_args=()
  run_mpi 3 gaussian,sobel "${mode_args[@]}" --out-dir "$work/files-$mode" "${inputs[@]}" \
    "$work/missing.png"
  expect_rc 2 "--files-on $mode batch with a corrupt and a missing image"
  [[ $(grep -c '^parfilter-mpi: ' "$work/stderr") -eq 2 ]] ||
    fail "--files-on $mode: not one line per failed image: $(cat "$work/stderr")"
  opened_by_rank="$(grep -c '^parfilter-mpi: .*missing\.png.* on host ' "$work/stderr")"
  [[ $mode == root && $opened_by_rank -ne 0 || $mode != root && $opened_by_rank -ne 1 ]] &&
    fail "--files-on $mode: the missing input's line names the wrong opener: $(cat "$work/stderr")"
done
for name in astronaut camera coins horse text; do
  "$serial_exe" gaussian,sobel "$data/$name.png" "$work/serial.png"
  for mode in root every-rank auto; do
    same_file "$work/files-$mode/$name.png" "$work/serial.png" "--files-on $mode $name"
  done
done
# A failed write on the root (over the file-size limit of the ranks, not of mpirun's daemons):
# the job's one line, the others written, no partial or temporary file left. TCP between the
# ranks: shared memory's backing files would meet the limit first.
rm -rf "$work/limited" && mkdir "$work/limited"
timeout "$time_bound_s" "${mpiexec[@]}" -n 3 --mca btl tcp,self bash -c \
  "ulimit -f 100; exec '$mpi_exe' gaussian --out-dir '$work/limited' '$data/astronaut.png' \
   '$data/camera.png' '$data/coins.png'" >"$work/stdout" 2>"$work/stderr"
rc=$?
expect_rc 1 "a write over the file-size limit"
if [[ $(grep -c '^parfilter-mpi: ' "$work/stderr") -ne 1 ]] ||
  ! grep -q '^parfilter-mpi: .*limited/astronaut.png: .*file too large' "$work/stderr"; then
  fail "a write over the file-size limit: not one line naming astronaut.png: $(cat "$work/stderr")"
fi
left="$(cd "$work/limited" && find . -mindepth 1 | sort | tr '\n' ' ')"
[[ "$left" == "./camera.png ./coins.png " ]] || fail "a write over the file-size limit: left $left"

# ---- a rank killed during a batch: every rank ends, one line, non-zero ----------------------
{
  printf 'P6\n2048 1152\n255\n'
  head -c $((2048 * 1152 * 3)) /dev/urandom
} >"$work/big.ppm"
# Long enough that the ranks left cannot finish it while mpirun ends them (SIGCONT, then SIGTERM a
# second later): a batch of 12 (2.2 s on 3 ranks) once did, and said its summary after the
# line. The kill comes after the first image, so the length costs nothing where the test passes.
big_count=48
big=()
for ((i = 1; i <= big_count; ++i)); do
  ln -s "$work/big.ppm" "$work/big$i.ppm"
  big+=("$work/big$i.ppm")
done
: >"$work/stderr"
# The batch itself may be slow (a sanitizer build on 2 loaded cores takes 20 s or more for its
# first image); the bound that matters starts at the kill.
timeout "$batch_bound_s" "${mpiexec[@]}" -n 3 "$mpi_exe" segment --adaptive --format png \
  --out-dir "$work/killed" "${big[@]}" >"$work/stdout" 2>"$work/stderr" &
job=$!
victim=""
while kill -0 "$job" 2>/dev/null; do  # rank 2, once the first image is done
  if grep -q "^\[1/$big_count\]" "$work/stderr"; then
    for pid in $(pgrep -f "^$mpi_exe segment --adaptive"); do
      grep -qzx 'OMPI_COMM_WORLD_RANK=2' "/proc/$pid/environ" 2>/dev/null && victim="$pid"
    done
  fi
  [[ -n "$victim" ]] && break
  sleep 0.1
done
if [[ -z "$victim" ]]; then
  wait "$job"
  fail "killed rank: no batch under way to kill (exit $?): $(cat "$work/stderr")"
else
  kill -9 "$victim"
  for ((tenths = 0; tenths < 10 * time_bound_s; ++tenths)); do
    kill -0 "$job" 2>/dev/null || break
    sleep 0.1
  done
  if kill -0 "$job" 2>/dev/null; then
    fail "killed rank: the other ranks did not end within ${time_bound_s} s of the kill"
    kill "$job" 2>/dev/null
  fi
  wait "$job"
  rc=$?
  [[ $rc -ne 0 && $rc -ne 124 ]] || fail "killed rank: exit code $rc"
  if [[ $(grep -vc -e "^\[[0-9]*/$big_count\] " "$work/stderr") -ne 1 ]] ||
    ! grep -q '^parfilter-mpi: the job was aborted: a rank or host failed' "$work/stderr"; then
    fail "killed rank: not one line saying the job was aborted: $(cat "$work/stderr")"
  fi
fi

finish "parfilter-mpi command line: all checks passed"
