"""The command line: parse_args (the defaults, --quick, the checks) and the default build dir."""
import argparse
import glob
import os
import re

from shared import (DEFAULT_BATCH, DEFAULT_REPEATS, DEFAULT_SIZE, FORMATS, JPEG_QUALITY,
                    PNG_LEVEL, QUICK_BATCH, QUICK_REPEATS, QUICK_SIZE, ROOT)


def default_build_dir():
    env = os.environ.get("BENCH_BUILD_DIR")
    if env:
        return env
    for name in ("build-demo", "build"):
        d = os.path.join(ROOT, name)
        if glob.glob(os.path.join(d, "backend_*", "parfilter-*")):
            return d
    return os.path.join(ROOT, "build")


def parse_args(argv, doc):
    """The options; `doc` (the entry script's docstring) is the help's description and epilog."""
    p = argparse.ArgumentParser(description=doc.splitlines()[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter,
                                epilog="\n".join(doc.splitlines()[1:]))
    p.add_argument("--build-dir", default=None,
                   help="CMake build dir ($BENCH_BUILD_DIR, else build-demo/ or build/)")
    p.add_argument("--out", default=os.path.join(ROOT, "out", "bench-e2e"))
    p.add_argument("--inputs", default=None, help="inputs work dir (OUT/inputs/<W>x<H>)")
    p.add_argument("--size", default=None, help=f"WxH (default {DEFAULT_SIZE})")
    p.add_argument("--batch", type=int, default=None, help=f"images (default {DEFAULT_BATCH})")
    p.add_argument("--repeats", type=int, default=None, help=f"(default {DEFAULT_REPEATS})")
    p.add_argument("--warmup", type=int, default=1)
    p.add_argument("--formats", default=",".join(FORMATS))
    p.add_argument("--backends", default="", help="parfilter backends (default: all found)")
    p.add_argument("--cores", type=int, default=len(os.sched_getaffinity(0)),
                   help="\"all cores\" (default: the CPUs this process may use)")
    p.add_argument("--png-level", type=int, default=PNG_LEVEL)
    p.add_argument("--jpeg-quality", type=int, default=JPEG_QUALITY)
    p.add_argument("--quick", action="store_true",
                   help=f"{QUICK_SIZE}, batch {QUICK_BATCH}, {QUICK_REPEATS} repeat")
    p.add_argument("--no-cv2", action="store_true")
    p.add_argument("--no-vips", action="store_true")
    p.add_argument("--no-chart", action="store_true")
    a = p.parse_args(argv)
    a.size = a.size or (QUICK_SIZE if a.quick else DEFAULT_SIZE)
    a.batch = a.batch if a.batch is not None else QUICK_BATCH if a.quick else DEFAULT_BATCH
    a.repeats = a.repeats if a.repeats is not None else QUICK_REPEATS if a.quick else \
        DEFAULT_REPEATS
    m = re.fullmatch(r"(\d+)x(\d+)", a.size)
    if not m or min(int(m.group(1)), int(m.group(2))) < 1:
        p.error(f"--size: WxH expected, got {a.size!r}")
    a.width, a.height = int(m.group(1)), int(m.group(2))
    a.formats = [f.strip().lower().replace("jpeg", "jpg") for f in a.formats.split(",")
                 if f.strip()]
    if not a.formats or any(f not in FORMATS for f in a.formats):
        p.error(f"--formats: a list of {', '.join(FORMATS)}")
    if a.repeats < 1 or a.batch < 0 or a.warmup < 0 or a.cores < 1:
        p.error("--repeats and --cores must be >= 1, --batch and --warmup >= 0")
    if not 0 <= a.png_level <= 9 or not 1 <= a.jpeg_quality <= 100:
        p.error("--png-level 0-9, --jpeg-quality 1-100")
    return a
