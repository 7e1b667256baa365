"""Arrays in and out: shapes, dtypes, strided views and the results' own memory."""

from __future__ import annotations

import numpy as np
import pytest

import parfilter
from conftest import BACKENDS, IMAGES, RUNS_16


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("depth", [8, 16])
def test_strided_views_equal_their_copies(backend, depth):
    if depth == 16 and not RUNS_16[backend]:
        pytest.skip(f"{backend} runs 8-bit images only")
    base = IMAGES["rgb8_19x16" if depth == 8 else "rgb16_19x16"]
    views = {
        "every other row": base[::2],
        "a crop": base[2:-3, 1:-4],
        "every other column": base[:, ::2],
        "flipped rows": base[::-1],
        "one channel of RGB": base[:, :, 1],
        "channels reversed": base[:, :, ::-1],
        "transposed": base.transpose(1, 0, 2),
    }
    for what, view in views.items():
        for op in ("gaussian", "sobel", "erode"):
            got = getattr(parfilter, op)(view, backend=backend)
            assert np.array_equal(got, getattr(parfilter, op)(np.ascontiguousarray(view),
                                                             backend=backend)), f"{op} of {what}"


def test_inputs_are_read_in_place_where_the_backends_can():
    from parfilter import _parfilter
    rgb8, rgb16 = IMAGES["rgb8_19x16"], IMAGES["rgb16_19x16"]
    # 8 bits: packed pixels at any row stride; 16 bits: packed rows (the 16-bit entry takes an
    # image, whose rows have no padding).
    for array in (rgb8, rgb8[::2], rgb8[2:-3, 1:-4], IMAGES["gray8_37x23"], rgb16, rgb16[3:9],
                  IMAGES["gray16_37x23"]):
        assert _parfilter.reads_in_place(array), array.shape
    for array in (rgb8[:, ::2], rgb8[::-1], rgb16[::2], rgb16[2:-3, 1:-4], rgb16[:, :, ::-1]):
        assert not _parfilter.reads_in_place(array), array.shape


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_16_bit_array_read_in_place_is_left_as_it_was(backend):
    if not RUNS_16[backend]:
        pytest.skip(f"{backend} runs 8-bit images only")
    img = IMAGES["rgb16_19x16"].copy()
    img.flags.writeable = False  # the backends only read it
    for op in ("gaussian", "equalize", "erode", "gray"):
        got = getattr(parfilter, op)(img, backend=backend)
        assert np.array_equal(got, getattr(parfilter, op)(img.copy(order="F"), backend=backend))
        assert not np.shares_memory(got, img)
    assert np.array_equal(img, IMAGES["rgb16_19x16"])


def test_results_are_new_arrays_that_own_their_memory():
    img = IMAGES["gray8_37x23"].copy()
    out = parfilter.gaussian(img)
    assert out is not img and not np.shares_memory(out, img)
    assert out.flags.c_contiguous and out.flags.writeable
    out[0, 0] = 7  # writable, and the input is untouched
    assert np.array_equal(img, IMAGES["gray8_37x23"])
    del img
    assert int(out.sum()) > 0


@pytest.mark.parametrize("shape,result", [((23, 37), (23, 37)), ((23, 37, 1), (23, 37, 1)),
                                          ((23, 37, 3), (23, 37, 3)), ((23, 37, 4), (23, 37, 4))])
def test_shapes_are_kept(shape, result):
    img = np.zeros(shape, np.uint8)
    assert parfilter.sharpen(img).shape == result
    assert parfilter.gray(img).shape == (result if len(shape) == 3 and shape[2] == 1 else (23, 37))
    assert parfilter.pool(img).shape[:2] == (12, 19)


def test_depth_is_kept():
    assert parfilter.equalize(IMAGES["gray16_37x23"]).dtype == np.uint16
    assert parfilter.otsu(IMAGES["gray8_37x23"])[0].dtype == np.uint8
    binary, t = parfilter.otsu(IMAGES["gray16_37x23"])
    assert set(np.unique(binary)) <= {0, 65535} and 0 <= t <= 65535


@pytest.mark.parametrize("depth", [8, 16])
@pytest.mark.parametrize("ext", [".png", ".tif", ".pgm"])
def test_imread_gives_back_what_imwrite_saved(tmp_path, depth, ext):
    img = IMAGES["gray8_37x23" if depth == 8 else "gray16_37x23"]
    path = tmp_path / f"img{ext}"
    parfilter.imwrite(path, img)
    back = parfilter.imread(path)
    assert back.dtype == img.dtype and np.array_equal(back, img)
    if depth == 16:
        assert parfilter.imread(path, depth=8).dtype == np.uint8


def test_imwrite_takes_the_codecs_options(tmp_path):
    img = IMAGES["rgb16_19x16"]
    for compression in ("none", "lzw", "deflate", "packbits"):
        parfilter.imwrite(tmp_path / f"{compression}.tif", img, compression=compression)
        assert np.array_equal(parfilter.imread(tmp_path / f"{compression}.tif"), img)
    parfilter.imwrite(tmp_path / "a.png", IMAGES["rgb8_19x16"], png_level=9)
    parfilter.imwrite(tmp_path / "a.jpg", IMAGES["rgb8_19x16"], jpeg_quality=80)
    assert parfilter.imread(tmp_path / "a.jpg").shape == (16, 19, 3)
