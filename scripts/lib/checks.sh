# shellcheck shell=bash
# Checks of the arguments and the build that several scripts share; sourced, never run.

# require_executables <script> <hint> <file...>: exits 2, naming the first file that is not an
# executable and <hint> (how to build it), unless all are.
require_executables() {
  local script="$1" hint="$2"
  shift 2
  local exe
  for exe in "$@"; do
    [[ -x "$exe" ]] || { echo "$script: no $exe ($hint)" >&2; exit 2; }
  done
}

# require_width_multiple_of_4 <script> <width>: exits 2 unless an RGB row of <width> pixels is
# whole 4-byte words.
require_width_multiple_of_4() {
  if ((($2 * 3) % 4 != 0)); then
    echo "$1: --width must be a multiple of 4" >&2
    exit 2
  fi
}
