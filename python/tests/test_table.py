"""The package is the op table's: a function per op, with its parameters, docs and stubs."""

from __future__ import annotations

import inspect
from pathlib import Path

import parfilter


def test_every_op_is_a_function_with_the_tables_parameters():
    for op in parfilter.OPS:
        fn = getattr(parfilter, op["name"])
        params = list(inspect.signature(fn).parameters)
        assert params == ["img", *op["params"], "variant", "backend", "threads"]
        assert op["summary"][1:] in fn.__doc__
        for name in op["params"]:
            assert parfilter._api.PARAMS[name]["option"] in fn.__doc__


def test_the_stubs_list_every_op():
    stubs = (Path(parfilter.__file__).parent / "__init__.pyi").read_text()
    for op in parfilter.OPS:
        assert f"def {op['name']}(img: Image, /, *," in stubs


def test_backends_lists_the_build():
    names = [b["name"] for b in parfilter.backends()]
    assert names[0] == "serial"
    serial = parfilter.backends()[0]
    assert serial["available"] and serial["runs_16_bit"] and serial["devices"]
    assert parfilter.DEFAULT_BACKEND in names
    assert parfilter.variants("gaussian", "serial")
