"""parfilter: one set of image filters, bit-exact on every backend, on NumPy arrays.

Each op is a function, generated from the same op table as the command line::

    import parfilter
    img = parfilter.imread("scan16.tif")              # uint16 (H, W)
    blurred = parfilter.gaussian(img, sigma=2.0)        # OpenMP unless backend= says otherwise
    binary, t = parfilter.otsu(img, backend="opencl")
    counts = parfilter.histogram(img)                   # 65536 uint64 counts

docs/FILTERS.md specifies what each op computes, at 8 and 16 bits.
"""

from __future__ import annotations

from . import _api, _parfilter
from ._api import DEFAULT_BACKEND, OPS, backends, chain, imread, imwrite, variants

__version__: str = _parfilter.__version__

for _op in OPS:
    globals()[_op["name"]] = _api.make_op_function(_op)

__all__ = ["DEFAULT_BACKEND", "OPS", "backends", "chain", "imread", "imwrite", "variants",
           *[op["name"] for op in OPS]]
