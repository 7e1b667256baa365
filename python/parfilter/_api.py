"""The functions of the parfilter package, one per op, built from the op table of the C++ core
(the table that also drives the command line, its validation and --help)."""

from __future__ import annotations

import os
from typing import Any, Callable

import numpy as np

from . import _parfilter

OPS: list[dict[str, Any]] = _parfilter.op_table()
PARAMS: dict[str, dict[str, Any]] = {p["name"]: p for p in _parfilter.param_table()}
_BUILT: list[str] = _parfilter.backend_names()
#: The backend an op runs on unless told: OpenMP where it was built, else serial.
DEFAULT_BACKEND = "openmp" if "openmp" in _BUILT else "serial"

_PYTHON_TYPES = {"flag": bool, "integer": int, "real": float, "word": str}
_IMAGE_DOC = "img : array of uint8 or uint16 (NumPy; CuPy or PyTorch on CUDA), shape (H, W), (H, W, 1), (H, W, 3) or (H, W, 4)"


def value_of(param: dict[str, Any], text: str) -> Any:
    """A parameter's value, spelled as the command line takes it, as a Python value."""
    kind = param["kind"]
    if kind == "flag":
        return text == "true"
    return _PYTHON_TYPES[kind](text)


def _default(param: dict[str, Any]) -> Any:
    """The parameter's default as a Python value; None where it depends on the image's depth."""
    if param["default"] != param["default_16"]:
        return None
    return value_of(param, param["default"])


#: Parameters that take another Python type besides their kind's, for the stubs and docs.
EXTRA_TYPES = {"se": "str | numpy.ndarray"}
_SE_SHAPES = ("rect", "cross", "ellipse")


def _se_text(mask: np.ndarray) -> str:
    """A structuring element given as a 0/1 mask (uint8 or bool, odd sides) as the name of the
    op set's element with that mask; ValueError for any other mask."""
    if mask.dtype not in (np.uint8, np.bool_) or mask.ndim != 2:
        raise TypeError(f"se: a 2-D uint8 or bool mask is expected, not {mask.dtype} {mask.shape}")
    height, width = mask.shape
    top = int(PARAMS["se"]["max"])
    if not (0 < width <= top and 0 < height <= top and width % 2 == 1 and height % 2 == 1):
        raise ValueError(f"se: a mask of odd sides from 1 to {top} is expected, not {mask.shape}")
    if mask.dtype == np.uint8 and not np.isin(mask, (0, 1)).all():
        raise ValueError("se: a mask of 0 and 1 is expected")
    for shape in _SE_SHAPES:
        text = f"{shape}:{width}x{height}"
        if np.array_equal(_parfilter.se_mask(text), mask.astype(np.uint8)):
            return text
    raise ValueError(f"se: this {width}x{height} mask is none of the op set's elements (rect, cross "
                     "or ellipse, as parfilter._parfilter.se_mask(name) gives them); every backend "
                     "runs those elements only")


def _text(name: str, value: Any) -> str:
    """A parameter value spelled as the command line takes it; TypeError for a wrong type."""
    if name == "se" and isinstance(value, np.ndarray):
        return _se_text(value)
    kind = PARAMS[name]["kind"]
    if kind == "flag":
        if not isinstance(value, bool):
            raise TypeError(f"{name}: True or False is expected, not {type(value).__name__}")
        return "true" if value else "false"
    if isinstance(value, bool) or not isinstance(value, (int, float, str)):
        raise TypeError(f"{name}: {kind} expected, not {type(value).__name__}")
    if kind == "integer" and not isinstance(value, int):
        raise TypeError(f"{name}: an integer is expected, not {type(value).__name__}")
    if kind == "real" and not isinstance(value, (int, float)):
        raise TypeError(f"{name}: a number is expected, not {type(value).__name__}")
    if kind == "word" and not isinstance(value, str):
        raise TypeError(f"{name}: a string is expected, not {type(value).__name__}")
    return repr(float(value)) if kind == "real" else str(value)


def _threads(threads: int | None) -> int:
    if threads is None:
        return 0
    if isinstance(threads, bool) or not isinstance(threads, int) or threads < 1:
        raise ValueError(f"threads={threads!r}: a positive integer or None (every core)")
    return threads


_DLPACK_CUDA = 2  # DLPack's device type of CUDA memory


def _on_gpu(img: Any) -> bool:
    """Whether `img` is an array in CUDA memory (CuPy, PyTorch, anything with DLPack)."""
    device = getattr(img, "__dlpack_device__", None)
    return device is not None and device()[0] == _DLPACK_CUDA


def _framework(img: Any) -> str:
    return type(img).__module__.split(".")[0]


def _caller_stream(img: Any) -> int:
    """The CUDA stream the array's library queues its work on now (0: the default stream)."""
    framework = _framework(img)
    if framework == "cupy":
        import cupy
        return int(cupy.cuda.get_current_stream().ptr)
    if framework == "torch":
        import torch
        return int(torch.cuda.current_stream(img.device).cuda_stream)
    return 0


def _dispatch(steps: list[tuple[str, dict[str, str]]], img: Any, backend: str | None,
              threads: int | None) -> Any:
    """Host arrays to `backend` (DEFAULT_BACKEND when None); GPU arrays to the GPU (cuda when
    None), ordered on the caller's stream, their results left there as arrays of the same
    library."""
    if _on_gpu(img):
        return _parfilter.run_on_device(steps, img, backend or "cuda", _threads(threads),
                                        _caller_stream(img), _framework(img))
    return _parfilter.run(steps, img, backend or DEFAULT_BACKEND, _threads(threads))


def _step_values(op: str, values: dict[str, Any], allowed: list[str]) -> dict[str, str]:
    """An op's given parameters (None: the default) as text, refusing names it does not take."""
    out: dict[str, str] = {}
    for name, value in values.items():
        if value is None:
            continue
        if name == "variant":
            if not isinstance(value, str):
                raise TypeError(f"variant: a string is expected, not {type(value).__name__}")
            out[name] = value
            continue
        if name not in allowed:
            raise TypeError(f"{op}() takes no parameter {name!r} (it takes {', '.join(allowed)})")
        out[name] = _text(name, value)
    return out


def returns_doc(op: dict[str, Any]) -> tuple[str, str]:
    """The op's result: its Python type and one line saying what it holds."""
    if op["histogram_result"]:
        return ("numpy.ndarray", "uint64 counts, (L,) or (C, L) with --per_channel; L = 256 or 65536")
    shape = "(H, W)" if op["gray_result"] else "the input's shape"
    if op["halves_size"]:
        shape = "ceil(H/2) x ceil(W/2), the input's channels"
    if op["threshold_result"]:
        return ("tuple[numpy.ndarray, int]", f"the image ({shape}, the input's dtype) and the threshold")
    return ("numpy.ndarray", f"{shape}, the input's dtype")


def _doc(op: dict[str, Any]) -> str:
    lines = [op["summary"][:1].upper() + op["summary"][1:] + ".", "", "Parameters", "----------",
             _IMAGE_DOC]
    for name in op["params"]:
        p = PARAMS[name]
        default = _default(p)
        shown = "by depth: " + p["default"] + " at 8 bits, " + p["default_16"] + " at 16" \
            if default is None else repr(default)
        choices = f"; {p['choices']}" if p["choices"] else ""
        lines += [f"{name} : {EXTRA_TYPES.get(name, _PYTHON_TYPES[p['kind']].__name__)}, "
                  f"default {shown}",
                  f"    {p['help']} (the command line's {p['option']}{choices})."]
        if name == "se":
            lines += ["    Or a 2-D 0/1 mask (uint8 or bool, odd sides) equal to one of those "
                      "elements'."]
    lines += ["variant : str, optional", "    The backend's variant; parfilter.variants(op, backend).",
              "backend : str, optional", "    Where it runs (parfilter.backends()); None: " +
              DEFAULT_BACKEND + " for host arrays, cuda for GPU arrays (CuPy, PyTorch), whose " +
              "results stay on the GPU.",
              "threads : int, optional", "    Worker threads (None: every core).",
              "", "Returns", "-------"]
    kind, what = returns_doc(op)
    lines += [kind, f"    {what[:1].upper()}{what[1:]}."]
    return "\n".join(lines)


#: Per op, the chain prepared for each backend named (None: the default) for calls with every
#: parameter at its default and threads=None, the usual call: it skips the parsing, lookups
#: and checks a call otherwise repeats.
_PREPARED: dict[str, dict[str | None, Any]] = {}


def _run_one(name: str, img: Any, values: dict[str, Any], variant: str | None, backend: str,
             threads: int | None) -> Any:
    """One op's call: the values that differ from the defaults, as text, to the core."""
    if variant is None and threads is None and type(img) is np.ndarray and \
            all(value is _DEFAULTS[key] for key, value in values.items()):
        prepared = _parfilter.prepare([(name, {})], backend or DEFAULT_BACKEND, 0)
        _PREPARED[name][backend] = prepared
        return prepared.run(img)
    texts = {}
    for key, value in values.items():
        default = _DEFAULTS[key]
        if value is None or (type(value) is type(default) and value == default):
            continue
        texts[key] = _text(key, value)
    if variant is not None:
        if not isinstance(variant, str):
            raise TypeError(f"variant: a string is expected, not {type(variant).__name__}")
        texts["variant"] = variant
    return _dispatch([(name, texts)], img, backend, threads)


_DEFAULTS = {name: _default(p) for name, p in PARAMS.items()}


def make_op_function(op: dict[str, Any]) -> Callable[..., Any]:
    """The Python function of one op: a real def with the op table's keyword parameters and
    defaults (generated source, so that a call costs what a hand-written one does), and its
    docstring."""
    name, params = op["name"], list(op["params"])
    keywords = "".join(f"{p}=_defaults[{p!r}], " for p in params)
    values = ", ".join(f"{p!r}: {p}" for p in params)
    # A NumPy array with every parameter left at its default (the very objects) takes the
    # chain prepared by the first such call; anything else the general path.
    plain = "".join(f" and {p} is _defaults[{p!r}]" for p in params)
    source = (f"def {name}(img, /, *, {keywords}variant=None, backend=None, threads=None):\n"
              f"    if variant is None and threads is None and type(img) is _ndarray{plain}:\n"
              f"        prepared = _prepared.get(backend)\n"
              f"        if prepared is not None:\n"
              f"            return prepared.run(img)\n"
              f"    return _run({name!r}, img, {{{values}}}, variant, backend, threads)\n")
    _PREPARED[name] = {}
    namespace = {"_defaults": _DEFAULTS, "_run": _run_one, "_ndarray": np.ndarray,
                 "_prepared": _PREPARED[name]}
    exec(source, namespace)  # noqa: S102 - the source is built from the op table alone
    fn = namespace[name]
    fn.__annotations__ = {p: EXTRA_TYPES.get(p, _PYTHON_TYPES[PARAMS[p]["kind"]]) for p in params}
    fn.__annotations__.update(variant="str | None", backend="str | None", threads="int | None")
    fn.__doc__ = _doc(op)
    fn.__module__ = "parfilter"
    return fn


def chain(img: Any, steps: Any, *, backend: str | None = None, threads: int | None = None) -> Any:
    """Runs ops in order, each on the previous one's result, in one call (intermediate images
    stay inside the backend, on the device for a GPU backend).

    steps: "gray,gaussian" or a list of op names and (name, {param: value}) pairs, e.g.
    ["gray", ("gaussian", {"sigma": 2.0}), ("otsu", {})]. Only the last step may be histogram.
    Returns what the last op returns.
    """
    if isinstance(steps, str):
        steps = [s.strip() for s in steps.split(",")]
    by_name = {op["name"]: op for op in OPS}
    native = []
    for step in steps:
        name, values = (step, {}) if isinstance(step, str) else step
        if name not in by_name:
            raise ValueError(f"unknown op {name!r}; parfilter.OPS lists them")
        native.append((name, _step_values(name, dict(values), list(by_name[name]["params"]))))
    return _dispatch(native, img, backend, threads)


def backends() -> list[dict[str, Any]]:
    """Every backend this build has: name, whether it runs here (available, reason), its
    devices (one per line, the one it uses marked) and whether threads sets its workers."""
    return _parfilter.backends()


def variants(op: str, backend: str = DEFAULT_BACKEND) -> list[str]:
    """The variants `backend` offers for `op`, its default first."""
    return _parfilter.variants(op, backend)


def imread(path: str | os.PathLike[str], depth: int | None = None) -> Any:
    """Loads BMP, PNG, JPEG, TGA, PNM or TIFF with parfilter's codecs: a (H, W) array for gray,
    (H, W, 3) or (H, W, 4) for colour, uint16 for 16-bit files. depth=8 or 16 converts as the
    command line's --depth does. OSError for an unreadable or corrupt file."""
    return _parfilter.imread(os.fspath(path), depth)


def imwrite(path: str | os.PathLike[str], img: Any, *, compression: str | None = None,
            png_level: int | None = None, jpeg_quality: int | None = None) -> None:
    """Saves an array, its format from the extension (.png .bmp .jpg .tga .pgm/.ppm .tif),
    atomically, as the command line saves. compression: TIFF's (none, lzw, deflate, packbits;
    default deflate); png_level 0 to 9 (default 1); jpeg_quality 1 to 100 (default 95)."""
    if _on_gpu(img):
        raise TypeError("a GPU array: imwrite takes host (NumPy) arrays; copy it to the host first")
    _parfilter.imwrite(os.fspath(path), img, compression, png_level, jpeg_quality)
