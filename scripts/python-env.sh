#!/usr/bin/env bash
# Creates (or reuses) the virtual environment the Python module is built and tested in, with
# nanobind, scikit-build-core, NumPy and pytest from PyPI (OpenCV's wheel too, the pytest
# oracle), and prints its python's path. Never touches the system Python.
#
#   scripts/python-env.sh [VENV_DIR]     default: $PARFILTER_VENV, else build/python-venv
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
venv="${1:-${PARFILTER_VENV:-$root/build/python-venv}}"
python="${PYTHON:-python3}"
packages=(nanobind scikit-build-core numpy pytest opencv-python-headless)

if [[ ! -x "$venv/bin/python" ]]; then
  "$python" -m venv "$venv" >&2
fi
# Quiet when everything is there already; one pip call otherwise.
if ! "$venv/bin/python" -c 'import nanobind, scikit_build_core, numpy, pytest, cv2' 2>/dev/null; then
  "$venv/bin/python" -m pip install --quiet --disable-pip-version-check "${packages[@]}" >&2
fi
echo "$venv/bin/python"
