#!/usr/bin/env bash
# Installs the Debian packages parfilter needs, only those that are missing, so that a second
# run is fast and needs no network. Runs apt-get directly as root, through sudo otherwise.
#
#   scripts/install-deps.sh [PURPOSE...]    PURPOSE: build, test, backends (default: all three),
#                                           fuzz, bench
#
# PARFILTER_SKIP_DEPS=1 skips the whole step (a machine managed some other way).
set -euo pipefail

# One list per purpose. A new backend adds its packages to backends (or a list of its own).
build_packages=(cmake ninja-build g++ pkg-config libstb-dev libcli11-dev help2man libhwy-dev)
build_packages+=(libspng-dev zlib1g-dev libjpeg62-turbo-dev)  # the fast PNG and JPEG codecs
build_packages+=(libtiff-dev)                                  # TIFF
test_packages=(libgtest-dev libopencv-dev)  # OpenCV is the optional oracle of the tests
test_packages+=(valgrind)                    # leak and uninitialized-read checks (label leaks)
test_packages+=(iproute2)                    # the MPI tests' network-namespace hosts
fuzz_packages=(clang-14 libclang-rt-14-dev)  # libFuzzer for scripts/fuzz.sh
# The Python module builds in a virtual environment (scripts/python-env.sh): venv and headers.
python_packages=(python3-venv python3-dev)
bench_packages=(python3-matplotlib python3-opencv libvips-tools)  # charts; end-to-end peers
# MPI: OpenMPI; OpenCL: the ICD loader, headers, C++ bindings and PoCL (runs kernels on the CPU).
backends_packages=(libopenmpi-dev openmpi-bin ocl-icd-opencl-dev opencl-headers opencl-clhpp-headers
                   pocl-opencl-icd clinfo)

usage() {
  echo "usage: $0 [build|test|backends|python|fuzz|bench]..." >&2
  exit 2
}

if [[ "${PARFILTER_SKIP_DEPS:-0}" == "1" ]]; then
  echo "install-deps: skipped (PARFILTER_SKIP_DEPS=1)"
  exit 0
fi

purposes=("$@")
if [[ ${#purposes[@]} -eq 0 ]]; then
  purposes=(build test backends)
fi

wanted=()
for purpose in "${purposes[@]}"; do
  case "$purpose" in
    build) wanted+=("${build_packages[@]}") ;;
    test) wanted+=("${test_packages[@]}") ;;
    backends) wanted+=("${backends_packages[@]}") ;;
    python) wanted+=("${python_packages[@]}") ;;
    fuzz) wanted+=("${fuzz_packages[@]}") ;;
    bench) wanted+=("${bench_packages[@]}") ;;
    *) usage ;;
  esac
done

if ! command -v dpkg-query >/dev/null 2>&1; then
  echo "install-deps: not a Debian system (no dpkg-query); install these yourself: ${wanted[*]}" >&2
  exit 0
fi

is_installed() {
  dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q "install ok installed"
}

missing=()
for package in "${wanted[@]}"; do
  if ! is_installed "$package"; then
    missing+=("$package")
  fi
done

if [[ ${#missing[@]} -eq 0 ]]; then
  echo "install-deps: all ${#wanted[@]} packages present"
  exit 0
fi

as_root=()
if [[ "$(id -u)" -ne 0 ]]; then
  if ! command -v sudo >/dev/null 2>&1; then
    echo "install-deps: missing ${missing[*]}, and not root and no sudo to install them" >&2
    exit 1
  fi
  as_root=(sudo)
fi

echo "install-deps: installing ${missing[*]}"
"${as_root[@]}" env DEBIAN_FRONTEND=noninteractive apt-get update -q
"${as_root[@]}" env DEBIAN_FRONTEND=noninteractive \
  apt-get install -y -q --no-install-recommends "${missing[@]}"
