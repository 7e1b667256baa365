# shellcheck shell=bash
# Checks of arguments, builds and the machine that several scripts share; sourced, never run.

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

# toolchain_present <backend>: whether the backend's compiler or library is installed. grep
# reads all of ldconfig's output: grep -q would stop early, and ldconfig's SIGPIPE, under
# pipefail, would make OpenCL look absent.
toolchain_present() {
  case "$1" in
    pthread) [[ -e /usr/include/pthread.h ]] ;;
    openmp) echo 'int main() { return 0; }' |
      "${CXX:-g++}" -fopenmp -x c++ - -o /dev/null >/dev/null 2>&1 ;;
    mpi) command -v mpicxx >/dev/null 2>&1 ;;
    cuda) command -v nvcc >/dev/null 2>&1 || [[ -x /usr/local/cuda/bin/nvcc ]] ;;
    opencl) [[ -e /usr/include/CL/cl.h ]] && ldconfig -p 2>/dev/null | grep 'libOpenCL\.so' >/dev/null ;;
    *) return 1 ;;
  esac
}
