#!/usr/bin/env bash
# The executables' error paths leak nothing: every case below (bad file, bad option, failed
# write, missing device) must end with its own exit code and no leak report. ctest runs it under
# valgrind in plain builds ($VALGRIND set) and directly in scripts/asan.sh's build, where
# LeakSanitizer checks each process at exit (exit 23 on a leak).
#
#   error_paths.sh WORK_DIR DATA_DIR SERIAL_EXE [OPENCL_EXE]
set -uo pipefail

work="$1"
data="$2"
serial="$3"
opencl="${4:-}"
leak_exit=99  # valgrind's exit code for a leak or a memory error, unlike any of ours
wrapper=()
if [[ -n "${VALGRIND:-}" ]]; then
  wrapper=("$VALGRIND" -q --leak-check=full --errors-for-leak-kinds=definite,indirect
    --error-exitcode="$leak_exit")
fi

rm -rf "$work" && mkdir -p "$work"
image="$data/coins.png"
head -c 1000 "$image" >"$work/truncated.png"
printf 'not an image at all' >"$work/garbage.png"
{ printf 'P5 70000 1 255\n'; head -c 70000 /dev/zero; } >"$work/wide.pgm"  # too wide for JPEG

failures=0
# expect <exit code> [ENV=value...] <executable> <arguments>...
expect() {
  local code="$1"
  shift
  local environment=()
  while [[ "$1" == *=* ]]; do
    environment+=("$1")
    shift
  done
  env "${environment[@]}" "${wrapper[@]}" "$@" >"$work/stdout" 2>"$work/stderr"
  local got=$?
  if [[ $got -eq $code ]]; then
    echo "ok (exit $got): ${environment[*]} $*"
  else
    echo "FAILED (exit $got, expected $code): ${environment[*]} $*"
    cat "$work/stderr"
    failures=$((failures + 1))
  fi
}

bad=2
runtime=1
expect "$bad" "$serial" gray "$work/missing.png" "$work/out.png"
expect "$bad" "$serial" gray "$work/garbage.png" "$work/out.png"
expect "$bad" "$serial" gray "$work/truncated.png" "$work/out.png"
expect "$bad" "$serial" gray --max-image-bytes 1000 "$image" "$work/out.png"
expect "$bad" "$serial" gray --no-such-option "$image" "$work/out.png"
expect "$bad" "$serial" gaussian --sigma -1 "$image" "$work/out.png"
expect "$bad" "$serial" erode --se star:3x3 "$image" "$work/out.png"
expect "$bad" "$serial" no-such-op "$image" "$work/out.png"
expect "$bad" "$serial" gray "$image" "$work/out.unknown"
expect "$bad" "$serial" gray "$image" "$work/no/such/dir/out.png"
expect "$bad" "$serial" gray "$image" /proc/parfilter-leak-check.png
expect "$runtime" "$serial" gray "$work/wide.pgm" "$work/wide.jpg"
expect "$bad" "$serial" sharpen --out-dir "$work/batch" "$image" "$work/garbage.png" "$work/truncated.png"
if [[ -n "$opencl" ]]; then
  # No OpenCL platform at all (the ICD loader finds no vendor), then no matching device.
  expect "$runtime" OCL_ICD_VENDORS="$work/no-vendors" "$opencl" gray "$image" "$work/out.png"
  if [[ -z "${VALGRIND:-}" ]]; then  # PoCL under valgrind takes minutes
    expect "$runtime" "$opencl" gray --device no-such-device "$image" "$work/out.png"
  fi
fi
[[ $failures -eq 0 ]] || { echo "$failures error path(s) failed or leaked"; exit 1; }
echo "every error path exits with its code and leaks nothing"
