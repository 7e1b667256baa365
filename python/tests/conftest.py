"""Shared fixtures: the backends that run here, generated test images and the command line."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import numpy as np
import pytest

import parfilter

#: Backends that run here and inside Python (cuda where a GPU is present).
RUNNING = [b for b in parfilter.backends() if b["available"]]
BACKENDS = [b["name"] for b in RUNNING]
RUNS_16 = {b["name"]: b["runs_16_bit"] for b in RUNNING}


def make_image(shape: tuple[int, ...], depth: int, seed: int) -> np.ndarray:
    """Content in every bit of the depth (16 bits: not 8-bit data times 257)."""
    rng = np.random.default_rng(seed)
    dtype = np.uint8 if depth == 8 else np.uint16
    return rng.integers(0, 1 << depth, size=shape, dtype=dtype)


def twelve_bit(shape: tuple[int, ...], seed: int) -> np.ndarray:
    """A camera's 12-bit data in 16-bit samples: a ramp with noise, 0..4095."""
    rng = np.random.default_rng(seed)
    ramp = np.linspace(0, 4095, shape[1])[None, :] * np.ones(shape[:2])[:, :]
    noisy = ramp + rng.normal(0, 60, shape[:2])
    img = np.clip(noisy, 0, 4095).astype(np.uint16)
    return img if len(shape) == 2 else np.repeat(img[:, :, None], shape[2], axis=2)


#: (id, array): gray and colour at both depths, 12-bit data, odd and tiny shapes.
IMAGES = {
    "gray8_37x23": make_image((23, 37), 8, 1),
    "rgb8_19x16": make_image((16, 19, 3), 8, 2),
    "rgba8_9x5": make_image((5, 9, 4), 8, 3),
    "gray16_37x23": make_image((23, 37), 16, 4),
    "rgb16_19x16": make_image((16, 19, 3), 16, 5),
    "gray12_41x17": twelve_bit((17, 41), 6),
    "gray8_1x1": make_image((1, 1), 8, 7),
    "gray16_1x7": make_image((1, 7), 16, 8),
}


def cli(backend: str) -> str:
    """The command line of a backend, as ctest names it (PARFILTER_CLI_<name>)."""
    path = os.environ.get(f"PARFILTER_CLI_{backend}")
    if not path:
        pytest.skip(f"PARFILTER_CLI_{backend} is not set (run through ctest)")
    return path


def option_args(op: str, params: dict[str, object]) -> list[str]:
    """Python keyword arguments as the command line's options."""
    args: list[str] = []
    for name, value in params.items():
        if name == "variant":
            args += ["--variant", str(value)]
            continue
        option = parfilter._api.PARAMS[name]["option"]
        if isinstance(value, bool):
            args += [option] if value else []
        else:
            args += [option, str(value)]
    return args


def run_cli(op: str, img: np.ndarray, params: dict[str, object], tmp: Path) -> object:
    """The serial command line's result for the same image and parameters, read back."""
    src = tmp / "in.png"
    parfilter.imwrite(src, img)
    info = next(o for o in parfilter.OPS if o["name"] == op)
    out = tmp / ("out.csv" if info["histogram_result"] else "out.png")
    extra = ["--print-threshold"] if info["threshold_result"] else []
    done = subprocess.run([cli("serial"), op, *option_args(op, params), *extra, str(src), str(out)],
                          capture_output=True, text=True, check=True)
    if info["histogram_result"]:
        table = np.loadtxt(out, delimiter=",", skiprows=1, dtype=np.uint64, ndmin=2)
        counts = table[:, 1:].T
        return counts[0] if counts.shape[0] == 1 else counts
    result = parfilter.imread(out)
    if img.ndim == 3 and img.shape[2] == 1 and result.ndim == 2:
        result = result[:, :, None]
    if info["threshold_result"]:
        return result, int(done.stdout.strip())
    return result
