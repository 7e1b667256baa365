#!/usr/bin/env python3
"""File-to-file batches of light and heavy ops: every device backend against parfilter-openmp.

  bench_batch_ops.py --inputs DIR [--build-dir DIR] [--out FILE] [--formats bmp,png]
                     [--backends openmp,cuda,opencl] [--repeats N] [--batch N]

Each cell is the wall time of one `parfilter-<backend> <op> [options] --out-dir TMP IN...`
process over the batch (process start and exit included), the median of --repeats runs after
one warm-up run, with the batch's own summary line kept beside it. The inputs are the first
--batch files of each format in --inputs (bench_e2e.py makes them: OUT/inputs/<W>x<H>/).
The ops: gaussian (light: the codecs dominate), segment --adaptive --window 31 and
erode --se ellipse:15x15 (heavy on the CPU), and a 4-op chain of heavy steps. A last row
times each backend on a 16x16 image: the process's own floor (start, device set-up, exit).
Standard library only.
"""
import argparse
import os
import pathlib
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

CASES = (
    ("gaussian", ["gaussian"]),
    ("segment --adaptive --window 31", ["segment", "--adaptive", "--window", "31"]),
    ("erode --se ellipse:15x15", ["erode", "--se", "ellipse:15x15"]),
    ("gaussian,erode,dilate,segment (ellipse:15x15, adaptive 31)",
     ["gaussian,erode,dilate,segment", "--se", "ellipse:15x15", "--adaptive", "--window", "31"]),
)
BASELINE = "openmp"


def find_executable(build_dir, backend):
    for candidate in (build_dir / f"backend_{backend}" / f"parfilter-{backend}",
                      build_dir / "bin" / f"parfilter-{backend}"):
        if candidate.is_file() and os.access(candidate, os.X_OK):
            return candidate
    return None


def time_batch(executable, args, inputs, scratch):
    """One run's wall seconds and the batch's summary line (or the error)."""
    out_dir = scratch / "out"
    shutil.rmtree(out_dir, ignore_errors=True)
    start = time.perf_counter()
    done = subprocess.run([str(executable), *args, "--out-dir", str(out_dir), *map(str, inputs)],
                          capture_output=True, text=True, check=False)
    wall = time.perf_counter() - start
    lines = [line for line in done.stderr.splitlines() if line.strip()]
    summary = next((line for line in reversed(lines) if "batch:" in line), "")
    if done.returncode != 0:
        raise RuntimeError(lines[-1] if lines else f"exit code {done.returncode}")
    return wall, summary


def median_batch(executable, args, inputs, scratch, repeats):
    time_batch(executable, args, inputs, scratch)  # warm-up: page cache, kernel cache
    runs = [time_batch(executable, args, inputs, scratch) for _ in range(repeats)]
    walls = [wall for wall, _ in runs]
    return statistics.median(walls), runs[walls.index(sorted(walls)[len(walls) // 2])][1]


def table_row(fmt, label, backends, walls):
    """Wall ms per backend, then how many times faster than the baseline each other one is."""
    base = walls.get(BASELINE)
    cells = [f"{walls[b] * 1e3:.0f}" if walls[b] else "-" for b in backends]
    ratios = [f"{base / walls[b]:.2f}x" if base and walls[b] else "-"
              for b in backends if b != BASELINE]
    return f"| {fmt} | {label} | " + " | ".join(cells + ratios) + " |"


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--inputs", required=True, type=pathlib.Path)
    parser.add_argument("--build-dir", type=pathlib.Path,
                        default=pathlib.Path(os.environ.get("BENCH_BUILD_DIR", "build")))
    parser.add_argument("--out", type=pathlib.Path, help="Markdown file (default: stdout only)")
    parser.add_argument("--formats", default="bmp,png")
    parser.add_argument("--backends", default="openmp,cuda,opencl")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--batch", type=int, default=16)
    options = parser.parse_args()

    backends = [b for b in options.backends.split(",") if b]
    executables = {b: find_executable(options.build_dir, b) for b in backends}
    lines = [f"## File-to-file batches by op ({os.cpu_count()} CPUs; wall ms, median of "
             f"{options.repeats} after a warm-up; process start included)", "",
             "| format | op | " + " | ".join(backends) + " | " +
             " | ".join(f"{BASELINE} / {b}" for b in backends if b != BASELINE) + " |",
             "|---|---|" + "---|" * (2 * len(backends) - (BASELINE in backends))]
    notes = []
    with tempfile.TemporaryDirectory(prefix="bench-batch-ops-") as scratch_name:
        scratch = pathlib.Path(scratch_name)
        for fmt in options.formats.split(","):
            inputs = sorted(options.inputs.glob(f"*.{fmt}"))[:options.batch]
            if not inputs:
                notes.append(f"- {fmt}: no inputs in {options.inputs}")
                continue
            for label, args in CASES:
                walls = {}
                for backend in backends:
                    if executables[backend] is None:
                        walls[backend] = None
                        continue
                    try:
                        wall, summary = median_batch(executables[backend], args, inputs,
                                                     scratch, options.repeats)
                        walls[backend] = wall
                        notes.append(f"- {fmt} {label} {backend}: {summary}")
                    except RuntimeError as error:
                        walls[backend] = None
                        notes.append(f"- {fmt} {label} {backend}: failed: {error}")
                    print(f"bench-batch-ops: {fmt} {label} {backend}: "
                          f"{walls[backend] and round(walls[backend] * 1e3)} ms", file=sys.stderr)
                lines.append(table_row(fmt.upper(), label, backends, walls))
        tiny = scratch / "tiny.pgm"  # PNM needs no codec library to write by hand
        tiny.write_bytes(b"P5 16 16 255\n" + bytes(range(256)))
        floors = {}
        for backend in backends:
            try:
                floors[backend] = executables[backend] and median_batch(
                    executables[backend], ["gaussian"], [tiny], scratch, options.repeats)[0]
            except RuntimeError as error:
                floors[backend] = None
                notes.append(f"- 16x16 {backend}: failed: {error}")
        lines.append(table_row("16x16 PGM", "gaussian (the process floor)", backends, floors))
    text = "\n".join(lines + ["", f"Up to {options.batch} images per batch from "
                                   f"{options.inputs}.", ""] + notes) + "\n"
    print(text)
    if options.out:
        options.out.write_text(text)


if __name__ == "__main__":
    main()
