#!/usr/bin/env bash
# Checks docs/ARCHITECTURE.md's "Adding an op": a copy of the working tree (tracked and untracked,
# not ignored) gets a dummy op, vmax3 (a 1x3 vertical max: a one-row halo, its own CUDA and
# OpenCL kernels at 8 and 16 bits), written into exactly the files tests/add_op/add_op.py lists.
# A scratch build (Release, warnings as errors, every backend this machine has; CUDA is only
# compiled without a GPU) must pass the op's tests on every built backend, bit for bit against
# the reference; then, one file at a time, the tree without that file's change must fail: the
# build, or the named test. Prints each file's result; exits non-zero on anything unexpected.
#
#   scripts/check-add-op.sh        (KEEP_SCRATCH=1 keeps the scratch dir for a look)
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
add_op="$root/tests/add_op/add_op.py"
jobs="$(nproc)"
start=$SECONDS

scratch="$(mktemp -d "${TMPDIR:-/tmp}/check-add-op.XXXXXX")"
cleanup() {
  if [[ "${KEEP_SCRATCH:-0}" == 1 ]]; then
    echo "check-add-op: scratch kept in $scratch"
  else
    rm -rf "$scratch"
  fi
}
trap cleanup EXIT
src="$scratch/src"
build="$scratch/build"
stash="$scratch/stash"
log="$scratch/log"
mkdir -p "$src" "$stash"

# 1. The working tree as it is, uncommitted changes included (files deleted but still tracked
# are left out).
(cd "$root" && git ls-files -z -co --exclude-standard |
  python3 -c 'import os, sys; sys.stdout.write("".join(p + "\0" for p in sys.stdin.read().split("\0") if p and os.path.isfile(p)))' |
  tar --null -T - -cf -) | tar -xf - -C "$src"

# 2. The dummy op in exactly its files.
python3 "$add_op" apply "$src" "$stash"
mapfile -t entries < <(python3 "$add_op" list)
echo "check-add-op: vmax3 written into ${#entries[@]} files"

# 3. A scratch build of what runs the op: no Python module, no OpenCV oracle, one benchmark
# (bench_cpu.cpp reads the op table), CUDA as PTX alone (compiled, never run without a GPU).
# shellcheck source-path=SCRIPTDIR source=lib/checks.sh
source "$root/scripts/lib/checks.sh"
configure_args=(-S "$src" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release
  -DPARFILTER_WARNINGS_AS_ERRORS=ON -DPARFILTER_WITH_PYTHON=OFF
  -DPARFILTER_WITH_OPENCV_ORACLE=OFF -DPARFILTER_BUILD_BENCH=ON
  "-DPARFILTER_SHARED_DIR=$scratch/no-shared")
backends=()
for backend in pthread openmp mpi cuda opencl; do
  if toolchain_present "$backend"; then
    backends+=("$backend")
    configure_args+=("-DPARFILTER_WITH_${backend^^}=ON")
  else
    configure_args+=("-DPARFILTER_WITH_${backend^^}=OFF")
  fi
done
has() { [[ " ${backends[*]} " == *" $1 "* ]]; }
if has cuda; then
  configure_args+=(-DCMAKE_CUDA_ARCHITECTURES=90-virtual)
  command -v nvcc >/dev/null 2>&1 || export PATH="/usr/local/cuda/bin:$PATH"
fi
echo "check-add-op: backends serial ${backends[*]}"
cmake "${configure_args[@]}" >"$log" 2>&1 || {
  cat "$log"
  echo "check-add-op: the scratch tree with vmax3 does not configure" >&2
  exit 1
}

targets=(test_cpu_ops test_docs_ops test_slice_safety test_cross_backend test_cross_backend_16
  parfilter-serial parfilter-bench-cpu)
has mpi && targets+=(test_cross_backend_mpi test_cross_backend_16_mpi)
has cuda && targets+=(parfilter_cuda)
has opencl && targets+=(parfilter-opencl)

# build [TARGET...]: the scratch build, its output in $log.
build() {
  local wanted=("$@")
  [[ $# -gt 0 ]] || wanted=("${targets[@]}")
  cmake --build "$build" -j "$jobs" --target "${wanted[@]}" >"$log" 2>&1
}
# first_error: where the last build stopped, in one line.
first_error() {
  local failed error
  failed="$(grep -m1 '^FAILED: ' "$log" | sed 's/^FAILED: //; s/ .*//' || true)"
  error="$(grep -m1 -E ': (fatal )?error: |undefined reference|CMake Error' "$log" |
    sed "s|$src/||g" | cut -c1-160 || true)"
  echo "${failed##*/}: ${error:-see the build log}"
}

mpi_run() {
  OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 \
    mpirun -np 3 --oversubscribe --bind-to none -q "$@"
}
# check NAME: one of the op's checks; its output in $log. Each gtest check must run cases
# (uncoloured: mpirun hands gtest a terminal).
check() {
  local bin="$build/tests"
  export GTEST_COLOR=no
  case "$1" in
    cpu_ops) "$bin/test_cpu_ops" ;;
    docs) "$bin/test_docs_ops" ;;
    slice_safety) "$bin/test_slice_safety" ;;
    cross) "$bin/test_cross_backend" --gtest_filter='*_vmax3_*' ;;
    cross_16) "$bin/test_cross_backend_16" --gtest_filter='*_vmax3' ;;
    opencl) "$bin/test_cross_backend" --gtest_filter='*opencl_vmax3_*' ;;
    mpi) mpi_run "$bin/mpi/test_cross_backend_mpi" \
      --gtest_filter='AllBackends/CrossBackend.MatchesReference/mpi_vmax3_*' ;;
    mpi_16) mpi_run "$bin/mpi/test_cross_backend_16_mpi" \
      --gtest_filter='All/CrossBackend16.*/mpi_vmax3' ;;
    cli) "$build/backend_serial/parfilter-serial" --list | grep -q '^vmax3 ' &&
      "$build/backend_serial/parfilter-serial" vmax3 --help | grep -q vmax3 ;;
    *) return 2 ;;
  esac >"$log" 2>&1 || return 1
  if grep -q '^\[==========\]' "$log" && ! grep -qE '^\[  PASSED  \] [1-9]' "$log"; then
    echo "no test ran" >>"$log"
    return 1
  fi
}
# passed: the cases a gtest check ran, for the summary.
passed() { grep -oE '^\[  PASSED  \] [0-9]+' "$log" | grep -oE '[0-9]+$' || echo "-"; }

unexpected=0
echo "check-add-op: building (log: $log)"
if ! build; then
  tail -40 "$log"
  echo "check-add-op: FAIL: the build with vmax3 in exactly these files fails: $(first_error)"
  exit 1
fi
echo "check-add-op: built with vmax3 ($((SECONDS - start)) s); its checks:"
checks=(cpu_ops docs slice_safety cli cross cross_16)
has mpi && checks+=(mpi mpi_16)
for name in "${checks[@]}"; do
  if check "$name"; then
    printf '  %-13s passed (%s cases)\n' "$name" "$(passed)"
  else
    tail -30 "$log"
    printf '  %-13s FAILED\n' "$name"
    unexpected=1
  fi
done
[[ "$unexpected" == 0 ]] || {
  echo "check-add-op: FAIL: vmax3 in exactly the listed files does not pass its checks"
  exit 1
}

# 4. Each file left out in turn. The checks that run come first, while the build is whole; the
# ones a compile catches follow, each restored file recompiling once; a change that every
# file's headers carry (op_set.hpp) comes last and builds one object, so that nothing rebuilds
# after it.
omit() {
  local path="$1" kind="$2"
  if [[ "$kind" == new ]]; then rm "$src/$path"; else cp "$stash/orig/$path" "$src/$path"; fi
}
restore() { cp "$stash/mod/$1" "$src/$1"; }
ordered=()
for pass in test build build:; do
  for entry in "${entries[@]}"; do
    IFS=$'\t' read -r path kind catch <<<"$entry"
    case "$pass:$catch" in
      test:test:*) ordered+=("$entry") ;;
      build:build) ordered+=("$entry") ;;
      build::build:*) ordered+=("$entry") ;;
    esac
  done
done
[[ "${#ordered[@]}" == "${#entries[@]}" ]] || {
  echo "check-add-op: an entry of add_op.py list has an unknown catch" >&2
  exit 1
}

echo "check-add-op: each file without its change:"
for entry in "${ordered[@]}"; do
  IFS=$'\t' read -r path kind catch <<<"$entry"
  omit "$path" "$kind"
  result=""
  case "$catch" in
    test:*)
      name="${catch#test:}"
      if ! build; then
        result="the build fails ($(first_error)), before test $name"
      elif ! check "$name"; then
        result="test $name fails: $(grep -m1 -A1 -E 'Failure$' "$log" | tail -1 | cut -c1-140)"
      fi
      ;;
    build)
      build || result="the build fails: $(first_error)"
      ;;
    build:*)
      object="$(ninja -C "$build" -t targets all | grep -oE "^[^:]*${catch#build:}" | head -1)"
      if [[ -z "$object" ]]; then
        result=""
      else
        build "$object" || result="the build fails: $(first_error)"
      fi
      ;;
  esac
  restore "$path"
  if [[ -n "$result" ]]; then
    printf '  %-40s without it: %s\n' "$path" "$result"
  else
    printf '  %-40s without it: NOTHING FAILS (unexpected)\n' "$path"
    unexpected=1
  fi
done

elapsed=$((SECONDS - start))
if [[ "$unexpected" != 0 ]]; then
  echo "check-add-op: FAIL: an omission nothing catches ($elapsed s)"
  exit 1
fi
echo "check-add-op: OK: vmax3 needs exactly these ${#entries[@]} files ($elapsed s)"
