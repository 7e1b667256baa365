#!/usr/bin/env bash
# parfilter-mpi across hosts: a simulated cluster of network namespaces (netns_lib.sh), MPI
# between them over TCP only, mpirun starting each host's daemon through an rsh agent that
# enters the namespace. Checks, with ranks split over 2 and 3 hosts (uneven ranks per host):
#
#  1. the cross-backend suite's mpi cases (synthetic shapes) are bit-exact: all of them on
#     2 hosts x 1 rank, a subset (1, 5 and 31 rows: empty blocks, halos taller than blocks,
#     ordinary blocks) on 3 hosts with 2 + 1 + 1 ranks;
#  2. parfilter-mpi on one image (3 + 1 and 2 + 1 + 1 ranks) writes parfilter-serial's bytes;
#  3. a batch over 2 hosts x 2 ranks writes parfilter-serial's bytes, with its summary line;
#  4. failures on one host end every rank within 30 s, with a non-zero exit code and one
#     error line: a rank killed (SIGKILL) on the second host during a batch ("the job was
#     aborted"); an input that does not exist in a batch (reported, the batch goes on); one
#     image whose input exists on the second host but not on rank 0's (and, the other way
#     round, that only rank 0 needs it);
#  5. no shared file system: a batch whose inputs exist only on rank 0's host succeeds with
#     --files-on root (the default), its outputs on rank 0's side only, parfilter-serial's
#     bytes; with --files-on every-rank the second host's images fail, each line naming the
#     rank and host;
#  6. node backends: one image and a batch with --node-backend serial, and the cross-backend
#     suite's 1-, 5- and 31-row shapes with it on 2 hosts.
#
# docs/MPI.md, "Running across hosts", describes the harness.
#
#   netns_cluster.sh <parfilter-mpi> <parfilter-serial> <test_cross_backend_mpi> <data dir>
#                    <mpiexec>
#
# Exit code: 0 passed, 1 failed, 77 skipped (not root, no ip, namespaces not allowed, no Open
# MPI), with the reason on one line.
set -uo pipefail

if [[ $# -ne 5 ]]; then
  echo "usage: netns_cluster.sh <parfilter-mpi> <parfilter-serial> <test_cross_backend_mpi>" \
    "<data dir> <mpiexec>" >&2
  exit 2
fi
mpi_exe="$1"
serial_exe="$2"
cross_exe="$3"
data="$4"
mpiexec="$5"
readonly time_bound_s=30
readonly suite_bound_s=120

# shellcheck source-path=SCRIPTDIR source=netns_lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/netns_lib.sh"
# ctest's TIMEOUT (240 s) kills with SIGKILL, which would leave the namespaces behind: every
# run ends by this deadline, and the test with it.
NETNS_DEADLINE=$(($(date +%s) + 200))

for exe in "$mpi_exe" "$serial_exe" "$cross_exe"; do
  [[ -x "$exe" ]] || { echo "netns_cluster.sh: not an executable: $exe" >&2; exit 1; }
done
netns_check_prereqs "$mpiexec" || { echo "SKIP: $NETNS_SKIP_REASON"; exit 77; }
netns_cluster_up 3
case $? in
  0) ;;
  77) echo "SKIP: $NETNS_SKIP_REASON"; exit 77 ;;
  *) echo "FAIL: setting up the namespaces: $NETNS_SKIP_REASON" >&2; exit 1 ;;
esac
work="$NETNS_WORK"  # removed with the namespaces, whatever the exit path
h0="${NETNS_HOSTS[0]}"
h1="${NETNS_HOSTS[1]}"
h2="${NETNS_HOSTS[2]}"
netns_hostfile "$work/hosts-1-1" 1 1
netns_hostfile "$work/hosts-3-1" 3 1
netns_hostfile "$work/hosts-2-2" 2 2
netns_hostfile "$work/hosts-2-1-1" 2 1 1
echo "cluster: $h0 $h1 $h2 on $NETNS_SUBNET (bridge $NETNS_BRIDGE), work $work"

failures=0
fail() {
  echo "FAIL: $*" >&2
  failures=$((failures + 1))
}
ok() { echo "ok: $*"; }

# run_mpi <hostfile> <ranks> <args...>: parfilter-mpi across the hosts; sets rc and seconds,
# leaves stdout and stderr in files.
run_mpi() {
  local hostfile="$1" ranks="$2" start
  shift 2
  start=$(date +%s%N)
  netns_mpirun "$time_bound_s" "$hostfile" "$ranks" "$mpi_exe" "$@" \
    >"$work/stdout" 2>"$work/stderr"
  rc=$?
  seconds=$(( ($(date +%s%N) - start) / 1000000000 ))
  if [[ $rc -eq 124 || $rc -eq 137 && $seconds -ge $time_bound_s ]]; then
    fail "parfilter-mpi $* on $ranks ranks ($(basename "$hostfile")):" \
      "did not end in ${time_bound_s} s"
  fi
}

# no_leftovers <what>: nothing runs in any namespace any more (every rank and daemon ended),
# within the time bound.
no_leftovers() {
  local i left=""
  for ((i = 0; i < time_bound_s * 10; i++)); do
    left="$(for n in 0 1 2; do netns_pids "$n"; done)"
    [[ -z "$left" ]] && return 0
    sleep 0.1
  done
  fail "$1: still running ${time_bound_s} s later:" \
    "$(for p in $left; do printf '%s(%s) ' "$p" "$(cat "/proc/$p/comm" 2>/dev/null)"; done)"
}

# Lines of stderr other than a batch's progress lines and summary, and mpirun's own warning
# when its rsh launcher loses the race to put the agent in its process group (the agent
# already exec'd: EACCES; harmless, and now and then on a loaded machine).
error_lines() {
  grep -v -e '^\[[0-9]*/[0-9]*\] .* (rank [0-9]*)$' -e '^batch: ' \
    -e '^\[[^]]*\] plm:rsh: Warning: setpgid([0-9]*,[0-9]*) failed in parent' "$work/stderr"
}

# expect_one_error <what> <pattern>: stderr has exactly one error line, "parfilter-mpi: "
# and matching the pattern.
expect_one_error() {
  local lines
  lines="$(error_lines | wc -l)"
  if [[ $lines -ne 1 ]]; then
    fail "$1: $lines error lines, expected 1: $(cat "$work/stderr")"
  elif ! error_lines | grep -q "^parfilter-mpi: .*$2"; then
    fail "$1: the error does not match '$2': $(error_lines)"
  fi
}

# ---- 0. the cluster works, the ranks land where the hostfile says ----------------------------
# shellcheck disable=SC2016  # expanded by each rank
netns_mpirun "$time_bound_s" "$work/hosts-3-1" 4 \
  sh -c 'echo "$OMPI_COMM_WORLD_RANK $(ip netns identify)"' >"$work/stdout" 2>"$work/stderr"
rc=$?
if [[ $rc -ne 0 ]]; then
  echo "FAIL: mpirun across the namespaces does not run (exit $rc):" \
    "$(head -c 2000 "$work/stderr")" >&2
  exit 1
fi
placement="$(sort -n "$work/stdout" | tr '\n' ' ')"
[[ "$placement" == "0 $h0 1 $h0 2 $h0 3 $h1 " ]] ||
  fail "placement with 3 + 1 slots: '$placement', expected ranks 0-2 on $h0 and 3 on $h1"
ok "mpirun over TCP across the namespaces, ranks placed by slots ($placement)"

# ---- 1. the cross-backend suite, bit-exact across hosts ----------------------------------------
cases="AllBackends/CrossBackend.MatchesReference/mpi"
synthetic="${cases}_*-*_astronaut_*:*_camera_*:*_horse_*"
# 7x1: one row, 3 of the 4 ranks empty; 67x5: 5 rows, halos (up to 25 rows) taller than the
# blocks, multi-hop exchanges across hosts; 33x31: ordinary blocks of 8 rows.
subset="${cases}_*_7x1_c1_*:${cases}_*_67x5_c3_*:${cases}_*_33x31_c4_*"
run_suite() {  # run_suite <hostfile> <ranks> <filter> <what> [suite option...]
  local start secs
  start=$(date +%s)
  netns_mpirun "$suite_bound_s" "$1" "$2" "$cross_exe" --gtest_brief=1 --gtest_color=no \
    "--gtest_filter=$3" "${@:5}" >"$work/stdout" 2>"$work/stderr"
  rc=$?
  secs=$(($(date +%s) - start))
  local passed
  passed="$(grep -o '\[  PASSED  \] [0-9]* tests' "$work/stdout")"
  if [[ $rc -ne 0 || -z "$passed" ]]; then
    fail "cross-backend suite, $4: exit $rc: $(tail -n 20 "$work/stdout" "$work/stderr")"
  else
    ok "cross-backend suite, $4: ${passed#\[  PASSED  \] } passed (${secs} s)"
  fi
}
run_suite "$work/hosts-1-1" 2 "$synthetic" "2 hosts x 1 rank, every synthetic shape"
run_suite "$work/hosts-2-1-1" 4 "$subset" "3 hosts with 2 + 1 + 1 ranks, 1-, 5- and 31-row shapes"

# ---- 2. one image across hosts: parfilter-serial's bytes ---------------------------------------
check_image() {  # check_image <hostfile> <ranks> <input> <op args...>
  local hostfile="$1" ranks="$2" input="$3" what
  shift 3
  what="$* on $(basename "$input"), $ranks ranks ($(basename "$hostfile"))"
  rm -f "$work/mpi.png" "$work/serial.png"
  run_mpi "$hostfile" "$ranks" "$@" "$input" "$work/mpi.png"
  [[ $rc -eq 0 ]] || { fail "$what: exit $rc: $(cat "$work/stderr")"; return; }
  "$serial_exe" "$@" "$input" "$work/serial.png"
  if cmp -s "$work/mpi.png" "$work/serial.png"; then ok "$what: same bytes as parfilter-serial"
  else fail "$what: output differs from parfilter-serial's"; fi
}
check_image "$work/hosts-3-1" 4 "$data/astronaut.png" gaussian
check_image "$work/hosts-3-1" 4 "$data/astronaut.png" open --se ellipse:9x9  # halo exchange
check_image "$work/hosts-3-1" 4 "$data/horse.png" equalize                   # a reduction
check_image "$work/hosts-2-1-1" 4 "$data/camera.png" segment --adaptive --window 15

# ---- 3. a batch across 2 hosts: parfilter-serial's bytes, the summary ---------------------------
names=(astronaut camera coins horse text)
inputs=()
for name in "${names[@]}"; do inputs+=("$data/$name.png"); done
inputs+=("$data/rocket.jpg")
run_mpi "$work/hosts-2-2" 4 erode --se rect:5x5 --out-dir "$work/batch" "${inputs[@]}"
if [[ $rc -ne 0 ]]; then
  fail "batch on 2 hosts x 2 ranks: exit $rc: $(cat "$work/stderr")"
else
  grep -q '^batch: 6 image(s) on 4 rank(s) in [0-9.]* s: 6 written, 0 failed$' "$work/stderr" ||
    fail "batch: no summary 'batch: 6 image(s) on 4 rank(s) in S s: 6 written, 0 failed':" \
      "$(cat "$work/stderr")"
  [[ $(grep -c '^\[[1-6]/6\] .* (rank [0-3])$' "$work/stderr") -eq 6 ]] ||
    fail "batch: not 6 progress lines"
  [[ -z "$(error_lines)" ]] || fail "batch: error lines: $(error_lines)"
  differ=0
  for input in "${inputs[@]}"; do
    stem="$(basename "${input%.*}")"
    ext="${input##*.}"
    "$serial_exe" erode --se rect:5x5 "$input" "$work/serial.$ext"
    if ! cmp -s "$work/batch/$stem.$ext" "$work/serial.$ext"; then
      fail "batch: $stem.$ext differs from parfilter-serial's"
      differ=1
    fi
  done
  [[ $differ -eq 0 ]] && ok "batch of 6 on 2 hosts x 2 ranks: same bytes as parfilter-serial;" \
    "$(grep '^batch: ' "$work/stderr")"
fi
no_leftovers "batch"

# ---- 4a. a rank killed on the second host during a batch ---------------------------------------
# 16 images of 2048x1152 (one random BMP under 16 names), adaptive segmentation (about 0.6 s an
# image on one core): the batch runs for seconds; the kill comes once the first image is done.
netns_write_bmp "$work/big.bmp" 2048 1152
mkdir -p "$work/big"
big=()
for i in $(seq -w 1 16); do
  ln -s "$work/big.bmp" "$work/big/img$i.bmp"
  big+=("$work/big/img$i.bmp")
done
netns_mpirun_cmd "$work/hosts-2-2" 4
timeout -k 5 "$(netns_bound 60)" "${NETNS_MPIRUN[@]}" "$mpi_exe" segment --adaptive \
  --out-dir "$work/killed" "${big[@]}" >"$work/stdout" 2>"$work/stderr" &
job=$!
NETNS_CHILD=$job
victim=""
for ((i = 0; i < 300; i++)); do  # up to 30 s
  for pid in $(netns_pids 1); do
    [[ "$(cat "/proc/$pid/comm" 2>/dev/null)" == parfilter-mpi ]] && { victim="$pid"; break; }
  done
  [[ -n "$victim" ]] && grep -q '^\[1/16\]' "$work/stderr" && break
  victim=""
  kill -0 "$job" 2>/dev/null || break
  sleep 0.1
done
if [[ -z "$victim" ]]; then
  wait "$job"
  fail "killed rank: no parfilter-mpi on $h1 with a batch under way (exit $?):" \
    "$(cat "$work/stderr")"
else
  kill -9 "$victim"
  start=$(date +%s%N)
  wait "$job"
  rc=$?
  ms=$(( ($(date +%s%N) - start) / 1000000 ))
  if [[ $rc -eq 0 ]]; then
    fail "killed rank: exit code 0 (the batch went on without the rank?): $(cat "$work/stderr")"
  elif ((ms > time_bound_s * 1000)); then
    fail "killed rank: mpirun ended ${ms} ms after the kill (bound: ${time_bound_s} s)"
  else
    ok "killed rank (pid $victim on $h1, SIGKILL): every rank ended ${ms} ms later, exit code $rc"
  fi
  no_leftovers "killed rank"
  # Rank 0 says it when mpirun ends it (SIGTERM); the killed rank cannot speak, and mpirun -q
  # stays silent.
  expect_one_error "killed rank" "the job was aborted: a rank or host failed"
  [[ $(error_lines | wc -l) -eq 1 ]] && ok "killed rank: one error line: $(error_lines)"
fi

# ---- 4b. a batch with an input that does not exist: reported, the batch goes on ----------------
run_mpi "$work/hosts-2-2" 4 gaussian --out-dir "$work/missing" "$data/camera.png" \
  "$work/does-not-exist.png" "$data/coins.png"
if [[ $rc -ne 2 ]]; then
  fail "batch with a missing input: exit code $rc, expected 2: $(cat "$work/stderr")"
else
  expect_one_error "batch with a missing input" "does-not-exist.png"
  grep -q '^batch: 3 image(s) on 4 rank(s) in [0-9.]* s: 2 written, 1 failed$' "$work/stderr" ||
    fail "batch with a missing input: no summary '2 written, 1 failed': $(cat "$work/stderr")"
  [[ -f "$work/missing/camera.png" && -f "$work/missing/coins.png" ]] ||
    fail "batch with a missing input: the other images were not written"
  [[ ! -e "$work/missing/does-not-exist.png" ]] ||
    fail "batch with a missing input: it has an output"
  ok "batch with a missing input: exit 2, one line ($(error_lines)), the others written"
fi
no_leftovers "batch with a missing input"

# ---- 4c. one image whose input is missing on rank 0's host --------------------------------------
# NETNS_WORK/view is per host: view-h1 is what host 1 sees there. Rank 0 runs on host 0.
cp "$data/camera.png" "$work/view-h1/only-on-h1.png"
run_mpi "$work/hosts-3-1" 4 gaussian "$work/view/only-on-h1.png" "$work/from-h1.png"
if [[ $rc -ne 2 ]]; then
  fail "input missing on rank 0's host: exit code $rc, expected 2: $(cat "$work/stderr")"
else
  expect_one_error "input missing on rank 0's host" "only-on-h1.png"
  [[ ! -e "$work/from-h1.png" ]] || fail "input missing on rank 0's host: an output was written"
  ok "input missing on rank 0's host: exit 2, one line: $(error_lines)"
fi
no_leftovers "input missing on rank 0's host"
# ... and an input only rank 0's host has is enough: rank 0 reads it and writes the output.
cp "$data/camera.png" "$work/view-h0/only-on-h0.png"
run_mpi "$work/hosts-3-1" 4 gaussian "$work/view/only-on-h0.png" "$work/view/out.png"
"$serial_exe" gaussian "$data/camera.png" "$work/serial.png"
if [[ $rc -ne 0 ]]; then
  fail "input only on rank 0's host: exit $rc: $(cat "$work/stderr")"
elif ! cmp -s "$work/view-h0/out.png" "$work/serial.png" || [[ -e "$work/view-h1/out.png" ]]; then
  fail "input only on rank 0's host: the output is not rank 0's host's alone, or differs"
else
  ok "input only on rank 0's host: written there, same bytes as parfilter-serial"
fi

# ---- 5. no shared file system: the inputs exist only on rank 0's host ---------------------------
# 12 images (the data images under several names): more than rank 0's own window takes at
# the start, so that host 1's ranks get some.
local_inputs=()
for i in $(seq -w 1 12); do
  name="${names[$((10#$i % ${#names[@]}))]}"
  cp "$data/$name.png" "$work/view-h0/$name-$i.png"
  local_inputs+=("$work/view/$name-$i.png")
done
# --files-on root (the default): rank 0 reads and writes every file, the others get and give
# bytes; every image is written, on rank 0's side only.
run_mpi "$work/hosts-2-2" 4 gaussian --out-dir "$work/view/unshared" "${local_inputs[@]}"
if [[ $rc -ne 0 ]]; then
  fail "batch without a shared file system (root): exit $rc: $(cat "$work/stderr")"
else
  differ=0
  for input in "${local_inputs[@]}"; do
    file="$(basename "$input")"
    "$serial_exe" gaussian "$data/${file%-*}.png" "$work/serial.png"
    cmp -s "$work/view-h0/unshared/$file" "$work/serial.png" || differ=1
  done
  ranks_used="$(sed -n 's/^\[[0-9]*\/12\] .* (rank \([0-9]*\))$/\1/p' "$work/stderr" |
    sort -u | tr '\n' ' ')"
  if [[ $differ -ne 0 ]]; then
    fail "batch without a shared file system (root): outputs missing or not parfilter-serial's"
  elif [[ -e "$work/view-h1/unshared" ]]; then
    fail "batch without a shared file system (root): host 1 has outputs: $(ls "$work/view-h1/unshared")"
  elif [[ "$ranks_used" != *2* && "$ranks_used" != *3* ]]; then
    fail "batch without a shared file system (root): host 1's ranks computed nothing ($ranks_used)"
  else
    ok "batch without a shared file system, --files-on root: every image written on rank 0's" \
      "host only, same bytes as parfilter-serial, ranks $ranks_used computed;" \
      "$(grep '^batch: ' "$work/stderr")"
  fi
fi
no_leftovers "batch without a shared file system (root)"

# --files-on every-rank: whichever images the ranks of host 1 (ranks 2 and 3) get fail there,
# one line each naming the rank and host; the others are written. Which ranks get which images
# varies from run to run: the check is consistency.
run_mpi "$work/hosts-2-2" 4 gaussian --files-on every-rank --out-dir "$work/unshared" \
  "${local_inputs[@]}"
summary="$(grep '^batch: ' "$work/stderr")"
failed="$(sed -n 's/^batch: .* \([0-9]*\) failed$/\1/p' <<<"$summary")"
if [[ -z "$failed" ]]; then
  fail "batch without a shared file system (every-rank): no summary (exit $rc): $(cat "$work/stderr")"
else
  expected_rc=$((failed > 0 ? 2 : 0))
  [[ $rc -eq $expected_rc ]] ||
    fail "batch without a shared file system (every-rank): exit $rc with $failed failed"
  [[ $(error_lines | wc -l) -eq $failed ]] ||
    fail "batch without a shared file system (every-rank): $(error_lines | wc -l) error lines" \
      "for $failed failures: $(cat "$work/stderr")"
  while read -r line; do
    [[ "$line" =~ \(rank\ [23]\ on\ host\ [^\)]*\)$ ]] ||
      fail "batch without a shared file system (every-rank): not host 1's rank: $line"
  done < <(error_lines)
  ok "batch without a shared file system, --files-on every-rank: $summary (exit $rc; each" \
    "failure names rank 2 or 3: $(error_lines | head -n 1))"
fi
no_leftovers "batch without a shared file system (every-rank)"

# ---- 6. node backends across hosts ----------------------------------------------------------------
run_mpi "$work/hosts-3-1" 4 gaussian,pool,open --se ellipse:9x9 --node-backend serial \
  "$data/astronaut.png" "$work/mpi.png"
"$serial_exe" gaussian,pool,open --se ellipse:9x9 "$data/astronaut.png" "$work/serial.png"
if [[ $rc -eq 0 ]] && cmp -s "$work/mpi.png" "$work/serial.png"; then
  ok "one image with --node-backend serial, 3 + 1 ranks: same bytes as parfilter-serial"
else
  fail "one image with --node-backend serial: exit $rc or bytes differ: $(cat "$work/stderr")"
fi
run_mpi "$work/hosts-2-2" 4 sobel --node-backend serial --out-dir "$work/node" "${inputs[@]}"
differ=0
for input in "${inputs[@]}"; do
  stem="$(basename "${input%.*}")"
  ext="${input##*.}"
  "$serial_exe" sobel "$input" "$work/serial.$ext"
  cmp -s "$work/node/$stem.$ext" "$work/serial.$ext" || differ=1
done
if [[ $rc -ne 0 || $differ -ne 0 ]]; then
  fail "batch with --node-backend serial on 2 hosts x 2 ranks: exit $rc or bytes differ:" \
    "$(cat "$work/stderr")"
else
  ok "batch with --node-backend serial on 2 hosts x 2 ranks: same bytes as parfilter-serial"
fi
run_suite "$work/hosts-1-1" 2 "$subset" \
  "--node-backend=serial, 2 hosts x 1 rank, 1-, 5- and 31-row shapes" --node-backend=serial

if [[ $failures -gt 0 ]]; then
  echo "$failures check(s) failed" >&2
  exit 1
fi
echo "parfilter-mpi across namespace hosts: all checks passed"
