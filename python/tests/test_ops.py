"""Every op of the table, on every backend that runs here, at 8 and 16 bits: the bytes of the
serial command line on the same image, with the default parameters and with each parameter's
sample values."""

from __future__ import annotations

import numpy as np
import pytest

import parfilter
from conftest import BACKENDS, IMAGES, RUNS_16, run_cli


def cases() -> list[tuple[str, dict[str, object]]]:
    """(op, parameters): the defaults, then one case per sample value of each parameter."""
    out = []
    for op in parfilter.OPS:
        out.append((op["name"], {}))
        for name in op["params"]:
            p = parfilter._api.PARAMS[name]
            # A flag's sample is its other value.
            samples = ["true"] if p["kind"] == "flag" else p["samples"]
            for text in samples:
                params: dict[str, object] = {name: parfilter._api.value_of(p, text)}
                if p["needs"]:
                    params[p["needs"]] = True
                out.append((op["name"], params))
    return out


CASES = cases()


def same(result: object, expected: object) -> bool:
    if isinstance(expected, tuple):
        return isinstance(result, tuple) and same(result[0], expected[0]) and result[1] == expected[1]
    assert isinstance(result, np.ndarray)
    return result.dtype == expected.dtype and result.shape == expected.shape and \
        np.array_equal(result, expected)


@pytest.mark.parametrize("image", ["gray8_37x23", "rgb8_19x16", "gray16_37x23", "rgb16_19x16"])
@pytest.mark.parametrize("op,params", CASES, ids=[f"{o}-{'-'.join(f'{k}={v}' for k, v in p.items()) or 'defaults'}"
                                                  for o, p in CASES])
def test_every_backend_gives_the_command_lines_bytes(op, params, image, tmp_path):
    img = IMAGES[image]
    if op == "histogram" and params.get("per_channel") and img.ndim == 2:
        pytest.skip("--per-channel on a gray image is the gray histogram, covered by the defaults")
    expected = run_cli(op, img, params, tmp_path)
    for backend in BACKENDS:
        if img.dtype == np.uint16 and not RUNS_16[backend]:
            with pytest.raises(ValueError, match="--depth 8"):
                getattr(parfilter, op)(img, backend=backend, **params)
            continue
        result = getattr(parfilter, op)(img, backend=backend, **params)
        assert same(result, expected), f"{op} {params} on {backend}"


@pytest.mark.parametrize("image", ["gray12_41x17", "rgba8_9x5", "gray8_1x1", "gray16_1x7"])
@pytest.mark.parametrize("op", [o["name"] for o in parfilter.OPS])
def test_shapes_and_12_bit_data(op, image, tmp_path):
    img = IMAGES[image]
    expected = run_cli(op, img, {}, tmp_path)
    for backend in BACKENDS:
        if img.dtype == np.uint16 and not RUNS_16[backend]:
            continue
        assert same(getattr(parfilter, op)(img, backend=backend), expected), f"{op} on {backend}"


def test_chain_equals_the_steps_one_by_one():
    img = IMAGES["rgb16_19x16"]
    steps = parfilter.gray(img)
    steps = parfilter.gaussian(steps, sigma=2.0)
    steps = parfilter.otsu(steps)
    for backend in BACKENDS:
        if not RUNS_16[backend]:
            continue
        chained = parfilter.chain(img, ["gray", ("gaussian", {"sigma": 2.0}), "otsu"], backend=backend)
        assert same(chained, steps)
    assert same(parfilter.chain(img, "gray,sobel"), parfilter.sobel(parfilter.gray(img)))


def test_histogram_counts_every_pixel():
    img = IMAGES["rgb16_19x16"]
    counts = parfilter.histogram(img, per_channel=True)
    assert counts.shape == (3, 65536) and counts.dtype == np.uint64
    assert (counts.sum(axis=1) == 19 * 16).all()
    for c in range(3):
        assert np.array_equal(counts[c], np.bincount(img[:, :, c].ravel(), minlength=65536))
