"""The functions of the parfilter package, one per op, built from the op table of the C++ core
(the table that also drives the command line, its validation and --help)."""

from __future__ import annotations

import inspect
import os
from typing import Any, Callable

from . import _parfilter

OPS: list[dict[str, Any]] = _parfilter.op_table()
PARAMS: dict[str, dict[str, Any]] = {p["name"]: p for p in _parfilter.param_table()}
_BUILT: list[str] = _parfilter.backend_names()
#: The backend an op runs on unless told: OpenMP where it was built, else serial.
DEFAULT_BACKEND = "openmp" if "openmp" in _BUILT else "serial"

_PYTHON_TYPES = {"flag": bool, "integer": int, "real": float, "word": str}
_IMAGE_DOC = "img : numpy.ndarray of uint8 or uint16, shape (H, W), (H, W, 1), (H, W, 3) or (H, W, 4)"


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


def _text(name: str, value: Any) -> str:
    """A parameter value spelled as the command line takes it; TypeError for a wrong type."""
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


def _check_host_array(img: Any) -> None:
    if hasattr(img, "__cuda_array_interface__"):
        raise TypeError("a GPU array: this build filters host (NumPy) arrays only")


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
        lines += [f"{name} : {_PYTHON_TYPES[p['kind']].__name__}, default {shown}",
                  f"    {p['help']} (the command line's {p['option']}{choices})."]
    lines += ["variant : str, optional", "    The backend's variant; parfilter.variants(op, backend).",
              "backend : str", "    Where it runs: parfilter.backends().",
              "threads : int, optional", "    Worker threads (None: every core).",
              "", "Returns", "-------"]
    kind, what = returns_doc(op)
    lines += [kind, f"    {what[:1].upper()}{what[1:]}."]
    return "\n".join(lines)


def _signature(op: dict[str, Any]) -> inspect.Signature:
    kw = inspect.Parameter.KEYWORD_ONLY
    params = [inspect.Parameter("img", inspect.Parameter.POSITIONAL_ONLY)]
    for name in op["params"]:
        p = PARAMS[name]
        params.append(inspect.Parameter(name, kw, default=_default(p), annotation=_PYTHON_TYPES[p["kind"]]))
    params += [inspect.Parameter("variant", kw, default=None, annotation="str | None"),
               inspect.Parameter("backend", kw, default=DEFAULT_BACKEND, annotation=str),
               inspect.Parameter("threads", kw, default=None, annotation="int | None")]
    return inspect.Signature(params)


def make_op_function(op: dict[str, Any]) -> Callable[..., Any]:
    """The Python function of one op, with the op table's signature and docstring."""
    name, allowed = op["name"], list(op["params"])
    signature = _signature(op)

    def run_op(img: Any, /, **kwargs: Any) -> Any:
        bound = signature.bind(img, **kwargs)  # TypeError for an unknown or misplaced argument
        bound.apply_defaults()
        given = {k: v for k, v in kwargs.items() if k in allowed or k == "variant"}
        _check_host_array(img)
        values = _step_values(name, given, allowed)
        return _parfilter.run([(name, values)], img, bound.arguments["backend"],
                              _threads(bound.arguments["threads"]))

    run_op.__name__ = run_op.__qualname__ = name
    run_op.__signature__ = signature  # type: ignore[attr-defined]
    run_op.__doc__ = _doc(op)
    run_op.__module__ = "parfilter"
    return run_op


def chain(img: Any, steps: Any, *, backend: str = DEFAULT_BACKEND, threads: int | None = None) -> Any:
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
    _check_host_array(img)
    return _parfilter.run(native, img, backend, _threads(threads))


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
    _check_host_array(img)
    _parfilter.imwrite(os.fspath(path), img, compression, png_level, jpeg_quality)
