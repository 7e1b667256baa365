"""A structuring element given as a mask array: the named element with that mask, so the
command line's bytes with the equivalent --se; any other mask is refused."""

from __future__ import annotations

import numpy as np
import pytest

import parfilter
from parfilter import _parfilter
from conftest import BACKENDS, IMAGES, run_cli

MORPHOLOGY = [op["name"] for op in parfilter.OPS if op["morphology"]]
NAMED = ["rect:3x3", "rect:5x3", "cross:3x3", "cross:7x5", "ellipse:5x5", "ellipse:9x7"]


@pytest.mark.parametrize("op", MORPHOLOGY)
@pytest.mark.parametrize("se", NAMED)
def test_a_mask_gives_the_command_lines_bytes_for_its_element(op, se, tmp_path):
    img = IMAGES["rgb8_19x16"]
    mask = _parfilter.se_mask(se)
    expected = run_cli(op, img, {"se": se}, tmp_path)
    for given in (mask, mask.astype(bool)):
        assert np.array_equal(getattr(parfilter, op)(img, se=given), expected), f"{op} {se}"


@pytest.mark.parametrize("backend", BACKENDS)
def test_every_backend_takes_a_mask(backend):
    mask = _parfilter.se_mask("cross:5x5")
    for name in ("gray8_37x23", "rgb16_19x16"):
        img = IMAGES[name]
        if img.dtype == np.uint16 and not next(b for b in parfilter.backends()
                                               if b["name"] == backend)["runs_16_bit"]:
            continue
        assert np.array_equal(parfilter.erode(img, se=mask, backend=backend),
                              parfilter.erode(img, se="cross:5x5", backend=backend))
    step = ("dilate", {"se": mask, "iterations": 2})
    assert np.array_equal(parfilter.chain(IMAGES["gray8_37x23"], [step], backend=backend),
                          parfilter.dilate(IMAGES["gray8_37x23"], se="cross:5x5", iterations=2,
                                           backend=backend))


def test_other_masks_are_refused():
    img = IMAGES["gray8_37x23"]
    ring = np.ones((5, 5), np.uint8)
    ring[2, 2] = 0
    with pytest.raises(ValueError, match="none of the op set's elements"):
        parfilter.erode(img, se=ring)
    with pytest.raises(ValueError, match="odd sides"):
        parfilter.erode(img, se=np.ones((4, 3), np.uint8))
    with pytest.raises(ValueError, match="0 and 1"):
        parfilter.erode(img, se=np.full((3, 3), 255, np.uint8))
    with pytest.raises(TypeError, match="2-D uint8 or bool"):
        parfilter.erode(img, se=np.ones((3, 3), np.float32))
    with pytest.raises(TypeError, match="2-D uint8 or bool"):
        parfilter.erode(img, se=np.ones((3, 3, 1), np.uint8))
