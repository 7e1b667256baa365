#!/usr/bin/env bash
# The Python module on a GPU machine, one step at a time so that a crash names its step: the
# import alone, with CuPy imported first and last, each backend created and run on a small
# array, then the pytest suite with CuPy's DLPack cases. Every step runs under faulthandler
# (a segfault prints the Python stack) and a time limit.
#
#   scripts/gpu-python-check.sh BUILD_DIR      (after scripts/gpu-check.sh's build)
set -uo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${1:?usage: $0 BUILD_DIR}"
export PYTHONPATH="$build/python:$root/python${PYTHONPATH:+:$PYTHONPATH}"
[[ -d "$root/.pydeps" ]] && export PYTHONPATH="$PYTHONPATH:$root/.pydeps"
limit="${STEP_TIMEOUT:-40}"
failed=0

check() {
  local name="$1"
  shift
  echo "== $name"
  timeout -k 5 "$limit" python3 -X faulthandler -c "$1" 2>&1 | tail -n 30
  local rc=${PIPESTATUS[0]}
  echo "-- exit $rc"
  [[ $rc -eq 0 ]] || failed=1
}

check "import parfilter" "import parfilter; print(parfilter.DEFAULT_BACKEND)"
# The backends' probes, with the OpenCL drivers one at a time (the loader reads the ICD files
# of OCL_ICD_VENDORS): a probe that hangs or crashes names its driver.
listing="import parfilter; print([(b['name'], b['available']) for b in parfilter.backends()])"
no_icd="$(mktemp -d)"
OCL_ICD_VENDORS="$no_icd" check "backends(), no OpenCL driver" "$listing"
for icd in /etc/OpenCL/vendors/*.icd; do
  one_icd="$(mktemp -d)"
  cp "$icd" "$one_icd/"
  OCL_ICD_VENDORS="$one_icd" check "backends(), OpenCL driver $(basename "$icd") alone" "$listing"
done
check "backends(), every driver" "$listing"
check "parfilter, then cupy" "import parfilter, cupy; print(cupy.__version__)"
check "cupy, then parfilter" "import cupy, parfilter; print('both imported')"
for backend in serial openmp cuda opencl; do
  check "$backend: gaussian at 8 and 16 bits" "
import numpy as np, parfilter
for dtype in (np.uint8, np.uint16):
    x = (np.arange(64 * 48 * 3) % 251).astype(dtype).reshape(48, 64, 3)
    y = parfilter.gaussian(x, backend='$backend')
    assert np.array_equal(y, parfilter.gaussian(x, backend='serial')), dtype
print('$backend matches serial')"
done
echo "== pytest"
timeout -k 5 "$((limit * 5))" python3 -X faulthandler -m pytest -q -p no:cacheprovider "$root/python/tests" 2>&1 | tail -25
rc=${PIPESTATUS[0]}
echo "-- exit $rc"
[[ $rc -eq 0 ]] || failed=1
exit $failed
