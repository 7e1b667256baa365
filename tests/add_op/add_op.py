#!/usr/bin/env python3
"""The dummy op of scripts/check-add-op.sh, vmax3, as the files it touches.

  add_op.py list                  every file, its kind (new/edit), what must catch its omission
  add_op.py apply ROOT STASH      writes the op into the tree ROOT; STASH/orig/<path> keeps each
                                  edited file as it was, STASH/mod/<path> each file as the op has it

An edit is an insertion at an anchor that must occur exactly once, so that a tree the anchors no
longer fit fails loudly here rather than quietly testing less.
"""
import pathlib
import shutil
import sys

HERE = pathlib.Path(__file__).resolve().parent

# (path, kind, catch): catch is "build" (the scratch build fails; an optional ninja target
# after a colon, to fail fast where the change is in every file's headers) or "test:<name>"
# (that check of scripts/check-add-op.sh fails).
FILES = [
    ("common/include/parfilter/op_set.hpp", "edit", "build:spec/op_set.cpp.o"),
    ("common/spec/op_set.cpp", "edit", "build"),
    ("common/spec/reference.cpp", "edit", "build"),
    ("docs/FILTERS.md", "edit", "test:docs"),
    ("common/kernels/ops/vmax3.cpp", "new", "build"),
    ("backend_cuda/src/ops/vmax3.cu", "new", "build"),
    ("backend_opencl/kernels/vmax3.cl", "new", "test:opencl"),
    ("backend_opencl/src/ops/vmax3.cpp", "new", "build"),
]

NEW = {
    "common/kernels/ops/vmax3.cpp": "new/vmax3_cpu.cpp",
    "backend_cuda/src/ops/vmax3.cu": "new/vmax3_cuda.cu",
    "backend_opencl/kernels/vmax3.cl": "new/vmax3.cl",
    "backend_opencl/src/ops/vmax3.cpp": "new/vmax3_opencl.cpp",
}

REFERENCE_METHOD = """\
  /// vmax3 (the dummy op of scripts/check-add-op.sh): the max of each sample and those above
  /// and below it.
  Image vmax3(const Image& in) const {
    return same_shape(in, [&](RowRange rows, const Image& out) {
      const In<Sample> src = in_view(in);
      const Out<Sample> dst = out_view(out);
      for (int y = rows.begin; y < rows.end; ++y) {
        const Sample* up = src.row(std::max(y - 1, 0));
        const Sample* mid = src.row(y);
        const Sample* down = src.row(std::min(y + 1, src.height() - 1));
        for (std::ptrdiff_t i = 0; i < src.row_samples(); ++i) {
          dst.row(y)[i] = std::max({up[i], mid[i], down[i]});
        }
      }
    });
  }

"""

# path -> [(anchor, text, where)]: where is "before", "after" or "replace".
EDITS = {
    "common/include/parfilter/op_set.hpp": [
        ("  pool,\n};", "  pool,\n  vmax3,\n};", "replace"),
        ("Op::pool};", "Op::pool, Op::vmax3};", "replace"),
    ],
    "common/spec/op_set.cpp": [
        ("     OpTraits{.halves_size = true, .reach = RowReach::stride}},\n",
         '    {Op::vmax3, "vmax3", "max of each sample and those above and below", kNoParams,\n'
         "     OpTraits{.reach = RowReach::radius, .radius = 1}},\n", "after"),
    ],
    "common/spec/reference.cpp": [
        ("  Image pool(const Image& in) const {\n", REFERENCE_METHOD, "before"),
        ("    case Op::pool:\n      result.image = ops.pool(input);\n",
         "    case Op::vmax3:\n      result.image = ops.vmax3(input);\n      break;\n", "before"),
    ],
    "docs/FILTERS.md": [
        ("| `pool` | 2x2 | c → c (alpha pooled too) | – | default |\n",
         "| `vmax3` | 1x3 | c → c (alpha too) | – | default, scalar |\n", "after"),
        ("## Shared host functions\n",
         "## vmax3\n\nout(x, y, c) = max of in(x, y', c) over y' in {y − 1, y, y + 1} inside the"
         " image, every channel (alpha too).\n\n", "before"),
    ],
}


def edited(path: str, text: str) -> str:
    for anchor, insert, where in EDITS[path]:
        count = text.count(anchor)
        if count != 1:
            sys.exit(f"add_op.py: {path}: the anchor {anchor!r} occurs {count} times, not once")
        replacement = {"before": insert + anchor, "after": anchor + insert, "replace": insert}
        text = text.replace(anchor, replacement[where])
    return text


def apply(root: pathlib.Path, stash: pathlib.Path) -> None:
    assert set(EDITS) | set(NEW) == {path for path, _, _ in FILES}
    for path, kind, _ in FILES:
        target = root / path
        mod = stash / "mod" / path
        mod.parent.mkdir(parents=True, exist_ok=True)
        if kind == "new":
            if target.exists():
                sys.exit(f"add_op.py: {path} exists already")
            shutil.copyfile(HERE / NEW[path], mod)
        else:
            orig = stash / "orig" / path
            orig.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(target, orig)
            mod.write_text(edited(path, target.read_text(encoding="utf-8")), encoding="utf-8")
        shutil.copyfile(mod, target)


def main() -> None:
    if sys.argv[1:] == ["list"]:
        for path, kind, catch in FILES:
            print(f"{path}\t{kind}\t{catch}")
    elif len(sys.argv) == 4 and sys.argv[1] == "apply":
        apply(pathlib.Path(sys.argv[2]), pathlib.Path(sys.argv[3]))
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main()
