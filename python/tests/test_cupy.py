"""CuPy arrays through DLPack on the CUDA backend: filtered on the GPU, results left there as
CuPy arrays, equal to the host's bytes, ordered on the caller's stream. Runs on a machine with
a CUDA device and CuPy (the GPU machine); skipped elsewhere."""

from __future__ import annotations

import numpy as np
import pytest

import parfilter
from conftest import BACKENDS, IMAGES

cupy = pytest.importorskip("cupy")
if "cuda" not in BACKENDS:
    pytest.skip("no CUDA device for the cuda backend", allow_module_level=True)

DEVICE_IMAGES = ["gray8_37x23", "rgb8_19x16", "rgba8_9x5", "gray8_1x1", "gray16_37x23", "rgb16_19x16",
                 "gray16_1x7"]


@pytest.mark.parametrize("image", DEVICE_IMAGES)
@pytest.mark.parametrize("op", [o["name"] for o in parfilter.OPS])
def test_every_op_on_a_cupy_array_equals_the_host(op, image):
    img = IMAGES[image]
    expected = getattr(parfilter, op)(img, backend="serial")
    got = getattr(parfilter, op)(cupy.asarray(img))
    if isinstance(expected, tuple):
        assert isinstance(got[0], cupy.ndarray) and got[1] == expected[1]
        got, expected = got[0], expected[0]
    if op == "histogram":
        assert np.array_equal(got, expected)  # counts come back to the host
        return
    assert isinstance(got, cupy.ndarray) and got.device.id == 0
    assert got.dtype == expected.dtype and np.array_equal(cupy.asnumpy(got), expected)


def test_a_chain_stays_on_the_gpu():
    img = IMAGES["rgb8_19x16"]
    steps = ["gray", ("gaussian", {"sigma": 2.0}), "sobel"]
    got = parfilter.chain(cupy.asarray(img), steps)
    assert isinstance(got, cupy.ndarray)
    assert np.array_equal(cupy.asnumpy(got), parfilter.chain(img, steps, backend="serial"))


def test_work_is_ordered_on_the_callers_stream():
    img = IMAGES["gray8_37x23"]
    expected = parfilter.gaussian(parfilter.erode(img), backend="serial")
    with cupy.cuda.Stream(non_blocking=True) as stream:
        x = cupy.asarray(img) + 0  # queued on the stream, not yet done when the op is queued
        y = parfilter.gaussian(parfilter.erode(x))
        z = y.copy()  # the caller's next work sees the result
    stream.synchronize()
    assert np.array_equal(cupy.asnumpy(z), expected)


def test_strided_rows_at_either_depth_in_place_and_other_layouts_refused():
    img = IMAGES["rgb8_19x16"]
    x = cupy.asarray(img)
    assert np.array_equal(cupy.asnumpy(parfilter.sobel(x[::2])), parfilter.sobel(img[::2], backend="serial"))
    with pytest.raises(ValueError, match="packed pixels"):
        parfilter.sobel(x[:, ::2])
    deep = IMAGES["rgb16_19x16"]
    got = parfilter.gaussian(cupy.asarray(deep)[::2])
    assert got.dtype == np.uint16
    assert np.array_equal(cupy.asnumpy(got), parfilter.gaussian(deep[::2], backend="serial"))
    with pytest.raises(ValueError, match="host arrays"):
        parfilter.sobel(x, backend="openmp")
