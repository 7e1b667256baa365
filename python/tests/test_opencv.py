"""The ops where OpenCV is exact, against cv2 at 8 and 16 bits (docs/FILTERS.md says which)."""

from __future__ import annotations

import numpy as np
import pytest

import parfilter
from conftest import BACKENDS, IMAGES, RUNS_16

cv2 = pytest.importorskip("cv2")


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("image", ["rgb8_19x16", "rgb16_19x16"])
def test_gray_is_cvtColor(backend, image):
    img = IMAGES[image]
    if img.dtype == np.uint16 and not RUNS_16[backend]:
        pytest.skip(f"{backend} runs 8-bit images only")
    assert np.array_equal(parfilter.gray(img, backend=backend), cv2.cvtColor(img, cv2.COLOR_RGB2GRAY))


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("image", ["gray8_37x23", "gray16_37x23", "rgb8_19x16"])
@pytest.mark.parametrize("op", ["erode", "dilate"])
def test_rect_morphology_is_cv2s(backend, image, op):
    img = IMAGES[image]
    if img.dtype == np.uint16 and not RUNS_16[backend]:
        pytest.skip(f"{backend} runs 8-bit images only")
    kernel = cv2.getStructuringElement(cv2.MORPH_RECT, (5, 3))
    expected = getattr(cv2, op)(img, kernel)  # outside pixels ignored, as the spec's
    assert np.array_equal(getattr(parfilter, op)(img, se="rect:5x3", backend=backend), expected)
