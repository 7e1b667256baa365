#!/usr/bin/env python3
"""File to file, two builds side by side: parfilter-<backend> of a baseline build against the
same executable of the current build, with parfilter-openmp of the current build beside them.

  bench_ab_files.py --new BUILD --old BUILD --inputs DIR [--backend cuda] [--repeats 5]
                    [--device-only] [--out FILE]

The inputs are DIR/img_*.{bmp,jpg,png} (bench_e2e.py makes them). Cases: a batch of the first
16 images per format (gaussian; for BMP also the heavy ops and a chain), and one image per
format. --device-only adds the current build with --device-only as a fourth contender (its
batches never run images on the CPU while the device starts); each batch's summary line, which
counts those images, is kept beside its times. Each round runs every contender once, in reverse order every other round, after
one warm-up round; each cell is the median wall time in ms, process start and exit included.
Standard library only.
"""
import argparse
import pathlib
import shutil
import statistics
import subprocess
import tempfile
import time

BATCH = 16
FORMATS = ("bmp", "jpg", "png")
CASES = (("gaussian", ["gaussian"]),
         ("segment --adaptive --window 31", ["segment", "--adaptive", "--window", "31"]),
         ("erode --se ellipse:15x15", ["erode", "--se", "ellipse:15x15"]),
         ("gaussian,erode,dilate,segment", ["gaussian,erode,dilate,segment"]))


def run(executable, args):
    start = time.perf_counter()
    done = subprocess.run([str(executable), *args], capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise SystemExit(f"{executable} {' '.join(args[:3])}: {done.stderr.strip()[-300:]}")
    summary = next((line for line in reversed(done.stderr.splitlines()) if "batch:" in line), "")
    return (time.perf_counter() - start) * 1000, summary


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--new", required=True, type=pathlib.Path)
    p.add_argument("--old", required=True, type=pathlib.Path)
    p.add_argument("--inputs", required=True, type=pathlib.Path)
    p.add_argument("--backend", default="cuda")
    p.add_argument("--repeats", type=int, default=5)
    p.add_argument("--device-only", action="store_true")
    p.add_argument("--out", type=pathlib.Path)
    a = p.parse_args()
    exe = f"backend_{a.backend}/parfilter-{a.backend}"
    contenders = [("openmp", a.new / "backend_openmp/parfilter-openmp"),
                  (f"{a.backend}-old", a.old / exe), (f"{a.backend}-new", a.new / exe)]
    options = {c: [] for c, _ in contenders}
    if a.device_only:
        contenders.append((f"{a.backend}-new-device-only", a.new / exe))
        options[contenders[-1][0]] = ["--device-only"]
    lines = []
    with tempfile.TemporaryDirectory() as scratch:
        for fmt in FORMATS:
            files = sorted(str(f) for f in a.inputs.glob(f"img_*.{fmt}"))[:BATCH]
            if not files:
                continue
            for name, args in CASES:
                for kind in ("batch", "single"):
                    if (name != "gaussian" and (fmt != "bmp" or kind == "single")):
                        continue
                    times = {c: [] for c, _ in contenders}
                    summaries = {}
                    for r in range(a.repeats + 1):
                        for c, executable in (contenders if r % 2 == 0 else contenders[::-1]):
                            out = pathlib.Path(scratch) / c
                            shutil.rmtree(out, ignore_errors=True)
                            out.mkdir()
                            extra = (["--out-dir", str(out), *files] if kind == "batch"
                                     else [files[0], str(out / f"out.{fmt}")])
                            ms, summaries[c] = run(executable, [*args, *options[c], *extra])
                            if r > 0:
                                times[c].append(ms)
                    row = f"{kind:6} {fmt:4} {name:30} " + "  ".join(
                        f"{c} {statistics.median(v):7.1f} ({min(v):.0f}-{max(v):.0f})"
                        for c, v in times.items())
                    print(row, flush=True)
                    lines.append(row)
                    lines += [f"    {c}: {line}" for c, line in summaries.items() if line]
    if a.out:
        a.out.write_text("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
