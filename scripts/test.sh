#!/usr/bin/env bash
# Installs what is missing, builds every backend this machine supports and the Python module (in
# a virtual environment, scripts/python-env.sh) and runs the test suite: ctest, pytest among it.
#
#   scripts/test.sh             build dir: build/ (or $BUILD_DIR)
#   scripts/test.sh [CMAKE_ARG...] [-- CTEST_ARG...]
#                               extra configure arguments (they override the defaults below)
#                               and ctest arguments, e.g. scripts/asan.sh's sanitizer build
#
# Under CI=true every optional backend whose toolchain is on this machine and whose
# backend_<name>/ exists is forced ON, so that a missing dependency fails configure loudly
# instead of being skipped; CMake also turns warnings into errors then.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build_dir="${BUILD_DIR:-$root/build}"
jobs="$(nproc)"

"$root/scripts/install-deps.sh" build test backends python

extra_cmake_args=()
extra_ctest_args=()
while [[ $# -gt 0 && "$1" != "--" ]]; do
  extra_cmake_args+=("$1")
  shift
done
[[ $# -gt 0 ]] && shift  # the "--"
extra_ctest_args=("$@")

# shellcheck source-path=SCRIPTDIR source=lib/checks.sh
source "$root/scripts/lib/checks.sh"

configure_args=(-S "$root" -B "$build_dir")
if [[ ! -f "$build_dir/CMakeCache.txt" ]]; then
  configure_args+=(-G Ninja)  # an existing build dir keeps its generator
fi
if [[ "${CI:-}" == "true" ]]; then
  # CMake defaults this from $CI on a first configure; say it again for a reused build dir.
  configure_args+=(-DPARFILTER_WARNINGS_AS_ERRORS=ON)
  for backend in pthread openmp mpi cuda opencl; do
    if [[ -f "$root/backend_$backend/CMakeLists.txt" ]] && toolchain_present "$backend"; then
      configure_args+=("-DPARFILTER_WITH_${backend^^}=ON")
    fi
  done
  if pkg-config --exists opencv4 2>/dev/null; then
    configure_args+=(-DPARFILTER_WITH_OPENCV_ORACLE=ON)
  fi
fi

# The Python module, unless a caller turned it off (scripts/asan.sh: a module under ASan would
# need the sanitizer preloaded into the interpreter).
python_wanted=1
for arg in "${extra_cmake_args[@]}"; do
  [[ "$arg" == "-DPARFILTER_WITH_PYTHON=OFF" ]] && python_wanted=0
done
if [[ "$python_wanted" == 1 ]]; then
  configure_args+=("-DPython_EXECUTABLE=$("$root/scripts/python-env.sh" "$build_dir/python-venv")")
  [[ "${CI:-}" == "true" ]] && configure_args+=(-DPARFILTER_WITH_PYTHON=ON)
fi

configure_args+=("${extra_cmake_args[@]}")

echo "test.sh: cmake ${configure_args[*]}"
cmake "${configure_args[@]}"
cmake --build "$build_dir" -j "$jobs"
ctest --test-dir "$build_dir" --output-on-failure -j "$jobs" "${extra_ctest_args[@]}"
