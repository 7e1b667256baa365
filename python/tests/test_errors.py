"""Bad input raises TypeError, ValueError or OSError with one line, never crashes."""

from __future__ import annotations

import numpy as np
import pytest

import parfilter
from conftest import IMAGES

GRAY = IMAGES["gray8_37x23"]


@pytest.mark.parametrize("img", [np.zeros((4, 4), np.float32), np.zeros((4, 4), np.int16),
                                 np.zeros((4, 4), bool), [[1, 2], [3, 4]]])
def test_a_bad_dtype_is_a_type_error(img):
    with pytest.raises(TypeError):
        parfilter.gaussian(img)


@pytest.mark.parametrize("shape", [(4,), (4, 4, 2), (4, 4, 5), (2, 2, 2, 2), (0, 4), (4, 0, 3)])
def test_a_bad_shape_is_a_value_error(shape):
    with pytest.raises(ValueError, match="shape"):
        parfilter.sobel(np.zeros(shape, np.uint8))


@pytest.mark.parametrize("kwargs,message", [
    ({"sigma": 0.0}, "--sigma"), ({"sigma": 1e9}, "--sigma"), ({"border": "mirror"}, "--border"),
    ({"border": "constant:300"}, "constant:300"), ({"variant": "nope"}, "nope"),
    ({"backend": "nope"}, "not in this build"), ({"backend": "mpi"}, "mpirun|not in this build"),
    ({"threads": 0}, "threads")])
def test_a_bad_parameter_is_a_value_error_naming_it(kwargs, message):
    with pytest.raises(ValueError, match=message):
        parfilter.gaussian(GRAY, **kwargs)


def test_a_16_bit_constant_border_takes_16_bit_levels():
    parfilter.gaussian(IMAGES["gray16_37x23"], border="constant:65535")


@pytest.mark.parametrize("call", [
    lambda: parfilter.gaussian(GRAY, sigma="2"), lambda: parfilter.gaussian(GRAY, se="rect:3x3"),
    lambda: parfilter.erode(GRAY, iterations=1.5), lambda: parfilter.segment(GRAY, adaptive=1),
    lambda: parfilter.gaussian(GRAY, 2.0), lambda: parfilter.gaussian()])
def test_a_wrong_argument_is_a_type_error(call):
    with pytest.raises(TypeError):
        call()


def test_a_chain_refuses_what_the_command_line_refuses():
    with pytest.raises(ValueError, match="histogram"):
        parfilter.chain(GRAY, "histogram,gaussian")
    with pytest.raises(ValueError, match="unknown op"):
        parfilter.chain(GRAY, "gray,blur")
    with pytest.raises(TypeError, match="takes no parameter"):
        parfilter.chain(GRAY, [("gaussian", {"se": "rect:3x3"})])


def test_files_that_cannot_be_read_are_os_errors(tmp_path):
    with pytest.raises(OSError, match="missing.png"):
        parfilter.imread(tmp_path / "missing.png")
    bad = tmp_path / "bad.tif"
    bad.write_bytes(b"II*\x00" + b"\xff" * 60)
    with pytest.raises(OSError, match="bad.tif"):
        parfilter.imread(bad)
    with pytest.raises(OSError):
        parfilter.imwrite(tmp_path / "no-such-dir" / "a.png", GRAY)
    with pytest.raises(OSError, match="extension"):
        parfilter.imwrite(tmp_path / "a.xyz", GRAY)


def test_a_16_bit_image_into_an_8_bit_format_names_depth_8(tmp_path):
    with pytest.raises(ValueError, match="--depth 8"):
        parfilter.imwrite(tmp_path / "a.jpg", IMAGES["gray16_37x23"])
    assert not (tmp_path / "a.jpg").exists()
