"""Ops release the GIL: four Python threads at once give the results of one after another."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pytest

import parfilter
from conftest import BACKENDS, IMAGES, RUNS_16


@pytest.mark.parametrize("backend", BACKENDS)
def test_four_threads_at_once(backend):
    images = [IMAGES["rgb8_19x16"], IMAGES["gray8_37x23"]]
    if RUNS_16[backend]:
        images += [IMAGES["rgb16_19x16"], IMAGES["gray12_41x17"]]
    jobs = [(op, img) for op in ("gaussian", "erode", "equalize", "sobel") for img in images] * 4
    expected = [getattr(parfilter, op)(img, backend=backend) for op, img in jobs]
    with ThreadPoolExecutor(max_workers=4) as pool:
        got = list(pool.map(lambda job: getattr(parfilter, job[0])(job[1], backend=backend,
                                                                  threads=2), jobs))
    assert all(np.array_equal(g, e) for g, e in zip(got, expected))
