# Sourced by the parfilter-mpi command-line tests: their arguments, a work directory, and the
# checks they share. The sourcing script sets time_bound_s (seconds one mpirun may take) first.
#
#   <test>.sh <parfilter-mpi> <parfilter-serial> <data dir> <mpiexec> [mpiexec flag...]
# shellcheck shell=bash

mpi_exe="$1"
serial_exe="$2"
data="$3"
shift 3
mpiexec=("$@")
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
failures=0

fail() {
  echo "FAIL: $*" >&2
  failures=$((failures + 1))
}

# run_mpi <ranks> <args...>: runs parfilter-mpi; sets rc, and leaves stdout/stderr in files.
run_mpi() {
  local ranks="$1"
  shift
  timeout "$time_bound_s" "${mpiexec[@]}" -n "$ranks" "$mpi_exe" "$@" \
    >"$work/stdout" 2>"$work/stderr"
  rc=$?
  if [[ $rc -eq 124 ]]; then fail "parfilter-mpi $* on $ranks ranks did not end in ${time_bound_s} s"; fi
}

expect_rc() {
  [[ $rc -eq $1 ]] || fail "$2: exit code $rc, expected $1 (stderr: $(cat "$work/stderr"))"
}

# expect_one_error <what> <pattern>: stderr is exactly one "parfilter-mpi: " line matching.
expect_one_error() {
  local lines
  lines="$(wc -l <"$work/stderr")"
  [[ $lines -eq 1 ]] || fail "$1: $lines stderr lines, expected 1: $(cat "$work/stderr")"
  grep -q "^parfilter-mpi: .*$2" "$work/stderr" || fail "$1: no error matching '$2'"
}

same_file() {
  cmp -s "$1" "$2" || fail "$3: $1 differs from $2"
}

# no_output_left <what> <output>: neither the output nor its temporary exists.
no_output_left() {
  [[ ! -e "$2" ]] || fail "$1: an output was written"
  [[ -z "$(find "$(dirname "$2")" -name ".$(basename "$2").tmp.*")" ]] || fail "$1: a temporary was left"
}

# finish <what passed>: the exit code and last line of the test.
finish() {
  if [[ $failures -ne 0 ]]; then
    echo "$failures failure(s)" >&2
    exit 1
  fi
  echo "$1"
}
