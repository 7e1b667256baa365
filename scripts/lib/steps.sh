# shellcheck shell=bash
# The steps of gpu-check.sh and gpu-check-opencl.sh; sourced, never run.

# Each step runs under a time limit (STEP_TIMEOUT seconds, default 900) into a log, and leaves a
# PASS or FAIL line in `summary`; `failed` becomes 1 once one fails (both read by the script).
# shellcheck disable=SC2034
summary=()
failed=0
# run_step <name> <log file> <note> <command...>: runs the command, its output appended to the
# log, and records its line (the time taken, then <note>). Returns the command's exit code.
run_step() {
  local name="$1" log="$2" note="$3"
  shift 3
  local start=$SECONDS
  timeout "${STEP_TIMEOUT:-900}" "$@" >>"$log" 2>&1
  local rc=$?
  if [[ $rc -eq 0 ]]; then
    summary+=("PASS  $name ($((SECONDS - start)) s$note)")
  else
    summary+=("FAIL  $name (exit $rc, $((SECONDS - start)) s$note)")
    failed=1
  fi
  return $rc
}
