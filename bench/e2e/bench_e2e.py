#!/usr/bin/env python3
"""End-to-end benchmark, file to file: parfilter-<backend> gaussian next to OpenCV (cv2) and
libvips, on PNG, JPEG and BMP inputs, one image and a batch, with the load / compute / save split
(--timing), output sizes, peak RSS and the JPEG outputs' PSNR against the exact result.

  bench_e2e.py [--build-dir DIR] [--out DIR] [--size WxH] [--batch N] [--repeats N]
               [--formats png,jpg,bmp] [--backends serial,pthread,...] [--quick]
               [--no-cv2] [--no-vips] [--png-level L] [--jpeg-quality Q] [--cores N]

  --quick   512x288 images, a batch of 3, 1 repeat (what the tests and the demo use)

Writes OUT/results.csv, OUT/results.md and OUT/wall.png (OUT: out/bench-e2e/). The inputs are
generated once into OUT/inputs/<W>x<H>/ (from data/*.png and data/*.jpg: cv2.resize INTER_CUBIC
plus uniform noise in [-3, 3], fixed seed) and kept for the next run; every other file it
writes goes to a temporary folder under OUT that is removed at the end.

Every wall time is the median of --repeats runs after one warm-up run:
  parfilter  one process per run, timed from here (time.perf_counter around the process:
             process start and exit included); peak RSS from os.wait4's rusage of that process
             (its largest process, for mpirun: the largest of mpirun and its ranks); as many
             further runs with --timing give the load / compute / save split, stage medians
             (upload / download on GPU backends; MPI's read / scatter / compute (slowest rank)
             / gather / write go to load / upload / compute / download / save).
  cv2        a child interpreter (the first of this one, /usr/bin/python3 and python3 on PATH
             that imports cv2) times imread + GaussianBlur + imwrite itself (interpreter start
             and `import cv2` excluded; the child's own process wall is in the note column);
             peak RSS is the child's ru_maxrss (interpreter and cv2 included).
  vips       one `vips conv` process per run, timed as parfilter is.
  batch      parfilter --out-dir over the batch on all cores; cv2 and vips both ways (a pool
             of <cores> single-threaded workers, and one image at a time on all threads):
             the Markdown marks the faster, which the chart shows.

Standard library only in this process: the work that needs cv2 or matplotlib (making the
inputs, the cv2 peer, PSNR, the chart) runs in a child interpreter that has it (--child), so
that the python3 on PATH may lack both. A missing tool or a failing backend is reported in
the Markdown ("skipped: <why>") and never stops the run.
"""
# The modules next to this script (each standard library only, so that this process needs
# neither cv2 nor matplotlib):
#   options.py      the command line (parse_args) and the default build dir;
#   shared.py       the recipe's constants, the CSV columns, the run's Context, log(), rel();
#   processes.py    Proc (a process timed from outside), the --timing split, child interpreters;
#   inputs.py       the generated inputs, kept between runs;
#   contenders.py   parfilter's backends, libvips' mask and options: how each contender runs;
#   single.py       one image per contender, the process start alone, the PSNR column;
#   batch.py        the batch on all cores, peers both ways;
#   report.py       results.csv and results.md;
#   chart.py        wall.png (drawn in a child interpreter that has matplotlib);
#   children.py     the child interpreter's tasks that need cv2 (`bench_e2e.py --child`).
import datetime
import os
import shutil
import signal
import sys
import tempfile

from batch import bench_batch
from chart import draw_chart
from children import run_task
from contenders import find_backends, vips_mask
from inputs import make_inputs
from options import default_build_dir, parse_args
from processes import Proc, python_with
from report import write_csv, write_markdown
from shared import ROOT, SIGMA, Context, log, rel
from single import (add_psnr, bench_cv2_single, bench_parfilter_defaults,
                    bench_parfilter_single, bench_start, bench_vips_single)


def make_context(a):
    """The run's Context from the options: sizes, repeats, formats, the folders."""
    ctx = Context(a)
    ctx.started = datetime.datetime.now(datetime.timezone.utc)
    ctx.load_start = " ".join(f"{v:.2f}" for v in os.getloadavg())
    ctx.cores, ctx.width, ctx.height = a.cores, a.width, a.height
    ctx.batch, ctx.repeats, ctx.warmup, ctx.formats = a.batch, a.repeats, a.warmup, a.formats
    ctx.png_level, ctx.jpeg_quality = a.png_level, a.jpeg_quality
    ctx.build_dir = os.path.abspath(a.build_dir or default_build_dir())
    ctx.out = os.path.abspath(a.out)
    ctx.inputs_dir = os.path.abspath(a.inputs or os.path.join(ctx.out, "inputs",
                                                              f"{a.width}x{a.height}"))
    return ctx


def find_contenders(ctx, a):
    """Which peers and backends run here (ctx.cv2_py, use_cv2, vips, backends), their versions;
    what is missing goes to the Skipped list."""
    # cv2_py also makes the inputs and measures PSNR; --no-cv2 drops the peer alone.
    ctx.cv2_py = python_with(["cv2", "numpy"])
    ctx.use_cv2 = bool(ctx.cv2_py) and not a.no_cv2
    if a.no_cv2:
        ctx.skip("cv2: skipped: --no-cv2")
    elif not ctx.cv2_py:
        ctx.skip("cv2: skipped: no python3 here imports cv2 (Debian: python3-opencv)")
    ctx.vips = False
    if a.no_vips:
        ctx.skip("vips: skipped: --no-vips")
    elif not shutil.which("vips"):
        ctx.skip("vips: skipped: no `vips` command (Debian: libvips-tools)")
    else:
        ctx.vips = True
        ctx.versions["vips"] = Proc(["vips", "--version"]).out.strip()
    if shutil.which("mpirun"):
        ctx.versions["mpirun"] = (Proc(["mpirun", "--version"]).out.splitlines() or ["mpirun"])[0]
    wanted = [b.strip() for b in a.backends.split(",") if b.strip()]
    ctx.backends = find_backends(ctx, wanted)
    if not ctx.backends:
        ctx.skip(f"parfilter: skipped: no usable parfilter-* in {ctx.build_dir}")
    else:
        ctx.versions["parfilter"] = Proc([ctx.backends[0].exe, "--version"]).out.strip().split()[-1]
    git = Proc(["git", "-C", ROOT, "describe", "--always", "--dirty"])
    if git.rc == 0:
        ctx.versions["git"] = git.out.strip()
    log(f"backends: {', '.join(b.name for b in ctx.backends) or 'none'}; cv2: "
        f"{ctx.cv2_py or 'no'}; vips: {'yes' if ctx.vips else 'no'}; {ctx.cores} cores")


def bench_format(ctx, fmt, work):
    """Every measurement of one format: one image per contender (with PSNR), then the batch."""
    fwork = os.path.join(work, fmt)
    os.makedirs(fwork)
    src = os.path.join(ctx.inputs_dir, f"img_00.{fmt}")
    single = bench_parfilter_single(ctx, fmt, src, fwork)
    single += bench_parfilter_defaults(ctx, fmt, src, fwork)
    if ctx.use_cv2:
        single += bench_cv2_single(ctx, fmt, src, fwork)
    if ctx.vips:
        single += bench_vips_single(ctx, fmt, src, fwork)
        ctx.vips_na[fmt] = any(r["tool"] == "libvips" and r["wall_ms"] is None
                               for r in single)
    add_psnr(ctx, fmt, src, single, fwork)
    rows = single
    if ctx.batch > 0:
        inputs = [os.path.join(ctx.inputs_dir, f"img_{i:02d}.{fmt}")
                  for i in range(ctx.batch)]
        rows += bench_batch(ctx, fmt, inputs, fwork)
    shutil.rmtree(fwork, ignore_errors=True)  # keep the disk use to one format's outputs
    return rows


def main(argv):
    if argv[:1] == ["--child"]:
        return run_task(argv[1], argv[2])
    a = parse_args(argv, __doc__)
    ctx = make_context(a)
    os.makedirs(ctx.out, exist_ok=True)
    find_contenders(ctx, a)

    ctx.recipe = make_inputs(ctx)
    rows = bench_start(ctx)
    work = tempfile.mkdtemp(prefix="tmp-", dir=ctx.out)

    def on_term(signum, frame):
        raise SystemExit(128 + signum)
    signal.signal(signal.SIGTERM, on_term)
    try:
        ctx.mask = os.path.join(work, "mask.mat")
        ctx.weights = vips_mask(ctx.mask, SIGMA)
        for fmt in ctx.formats:
            rows += bench_format(ctx, fmt, work)
    finally:
        shutil.rmtree(work, ignore_errors=True)

    csv_path = os.path.join(ctx.out, "results.csv")
    md_path = os.path.join(ctx.out, "results.md")
    write_csv(csv_path, rows)
    chart = draw_chart(ctx, csv_path, os.path.join(ctx.out, "wall.png"), a.no_chart)
    write_markdown(ctx, rows, md_path, chart)
    log(f"results: {rel(csv_path)}, {rel(md_path)}" + (f", {rel(chart)}" if chart else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
