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
import argparse
import concurrent.futures
import csv
import datetime
import glob
import hashlib
import json
import math
import os
import platform
import random
import re
import resource
import shutil
import signal
import statistics
import struct
import subprocess
import sys
import tempfile
import threading
import time
import zlib

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
DEFAULT_SIZE = "4096x2304"
QUICK_SIZE = "512x288"
DEFAULT_BATCH = 16
QUICK_BATCH = 3
DEFAULT_REPEATS = 3
QUICK_REPEATS = 1
SEED = 20240601
NOISE = 3  # uniform integer noise in [-NOISE, NOISE]
SIGMA = 1.5
KSIZE = 5
PNG_LEVEL = 1  # parfilter's defaults (--png-level, --jpeg-quality)
JPEG_QUALITY = 95
FORMATS = ("png", "jpg", "bmp")
GPU_BACKENDS = ("cuda", "opencl")
ORDER = ("serial", "pthread", "openmp", "mpi", "cuda", "opencl")
TIMEOUT_S = 1800
MS = 1e3
CSV_COLUMNS = ("tool", "backend", "format", "mode", "threads", "wall_ms", "load_ms",
               "compute_ms", "save_ms", "upload_ms", "download_ms", "out_bytes", "peak_rss_kb",
               "psnr", "note")
# --timing stage names (common/src/cli_jobs.cpp, backend_mpi/mpi_driver.cpp) -> CSV columns.
STAGES = {"load": "load_ms", "read": "load_ms", "compute": "compute_ms",
          "compute (slowest rank)": "compute_ms", "save": "save_ms", "write": "save_ms",
          "upload": "upload_ms", "scatter": "upload_ms", "download": "download_ms",
          "gather": "download_ms", "build": "build_ms"}
TIMING_LINE = re.compile(r"^timing: (?P<input>.+): (?P<stage>[a-z][a-z ()]*?) "
                         r"(?P<ms>[0-9.]+) ms(?: \(median of \d+ runs\))?$")


# ============================================================================================
# Children: the parts that need cv2 / numpy / matplotlib, run by an interpreter that has them.
# ============================================================================================
def child_gen(job):
    """Makes job['count'] inputs of width x height from the sources: cv2.resize INTER_CUBIC of
    source i % len(sources) (read as 3-channel colour), plus integer noise in [-NOISE, NOISE]
    (numpy default_rng(seed + i)), clipped; saved as PNG (cv2's default parameters), JPEG
    (quality 95) and BMP."""
    import cv2
    import numpy as np
    width, height = job["width"], job["height"]
    for i in range(job["count"]):
        src = cv2.imread(job["sources"][i % len(job["sources"])], cv2.IMREAD_COLOR)
        img = cv2.resize(src, (width, height), interpolation=cv2.INTER_CUBIC)
        rng = np.random.default_rng(job["seed"] + i)
        noise = rng.integers(-NOISE, NOISE + 1, size=img.shape, dtype=np.int16)
        img = np.clip(img.astype(np.int16) + noise, 0, 255).astype(np.uint8)
        for fmt in job["formats"]:
            path = os.path.join(job["out_dir"], f"img_{i:02d}.{fmt}")
            params = [cv2.IMWRITE_JPEG_QUALITY, JPEG_QUALITY] if fmt == "jpg" else []
            if not cv2.imwrite(path, img, params):
                raise SystemExit(f"cv2.imwrite failed: {path}")
    return {"cv2": cv2.__version__}


def vm_rss_kb():
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return 0


def child_cv2(job):
    """The OpenCV peer: imread (IMREAD_UNCHANGED), GaussianBlur 5x5 sigma 1.5 BORDER_REPLICATE,
    imwrite at parfilter's PNG level / JPEG quality. strategy 'single': one image, each stage
    timed; 'pool': the inputs over a thread pool of `workers` (cv2.setNumThreads(threads));
    'sequential': one after the other. Warm-up runs first, then the medians of the repeats."""
    import cv2
    start_rss = vm_rss_kb()
    cv2.setNumThreads(job["threads"])
    ext = job["ext"]
    params = {"png": [cv2.IMWRITE_PNG_COMPRESSION, job["png_level"]],
              "jpg": [cv2.IMWRITE_JPEG_QUALITY, job["jpeg_quality"]]}.get(ext, [])

    def one(src, dst, stages=None):
        t0 = time.perf_counter()
        img = cv2.imread(src, cv2.IMREAD_UNCHANGED)
        if img is None:
            raise RuntimeError(f"cv2.imread failed: {src}")
        t1 = time.perf_counter()
        out = cv2.GaussianBlur(img, (KSIZE, KSIZE), SIGMA, borderType=cv2.BORDER_REPLICATE)
        t2 = time.perf_counter()
        if not cv2.imwrite(dst, out, params):
            raise RuntimeError(f"cv2.imwrite failed: {dst}")
        t3 = time.perf_counter()
        if stages is not None:
            stages.append(((t1 - t0) * MS, (t2 - t1) * MS, (t3 - t2) * MS, (t3 - t0) * MS))

    inputs = job["inputs"]
    outputs = [os.path.join(job["out_dir"], os.path.splitext(os.path.basename(p))[0] + "." + ext)
               for p in inputs] if job["strategy"] != "single" else [job["output"]]
    result = {"cv2": cv2.__version__, "import_rss_kb": start_rss}
    if job["strategy"] == "single":
        samples = []
        for i in range(job["warmup"] + job["repeats"]):
            one(inputs[0], outputs[0], samples if i >= job["warmup"] else None)
        result.update(read_ms=statistics.median(s[0] for s in samples),
                      blur_ms=statistics.median(s[1] for s in samples),
                      write_ms=statistics.median(s[2] for s in samples),
                      wall_ms=statistics.median(s[3] for s in samples))
        result["out_bytes"] = os.path.getsize(outputs[0])
        if job.get("defaults_output"):  # cv2's default parameters: imwrite(path, img)
            img = cv2.GaussianBlur(cv2.imread(inputs[0], cv2.IMREAD_UNCHANGED), (KSIZE, KSIZE),
                                   SIGMA, borderType=cv2.BORDER_REPLICATE)
            cv2.imwrite(job["defaults_output"], img)
            result["default_bytes"] = os.path.getsize(job["defaults_output"])
    else:
        pool = (concurrent.futures.ThreadPoolExecutor(job["workers"])
                if job["strategy"] == "pool" else None)
        walls = []
        for i in range(job["warmup"] + job["repeats"]):
            t0 = time.perf_counter()
            if pool:
                list(pool.map(one, inputs, outputs))
            else:
                for src, dst in zip(inputs, outputs):
                    one(src, dst)
            if i >= job["warmup"]:
                walls.append((time.perf_counter() - t0) * MS)
        if pool:
            pool.shutdown()
        result["wall_ms"] = statistics.median(walls)
        result["out_bytes"] = sum(os.path.getsize(p) for p in outputs)
    result["peak_rss_kb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return result


def child_psnr(job):
    """PSNR (dB, inf where equal) of each candidate against the reference, decoded with cv2
    (IMREAD_UNCHANGED, so both in the same channel order); None where a file is missing or the
    shapes differ. job['blur_of']: also the PSNR of cv2's own decode + GaussianBlur of that
    input against the reference (how far cv2's decoder and rounding are from parfilter's)."""
    import cv2
    import numpy as np

    def psnr(a, b):
        if a is None or b is None or a.shape != b.shape:
            return None
        mse = np.mean((a.astype(np.float64) - b.astype(np.float64)) ** 2)
        return "inf" if mse == 0 else 10.0 * math.log10(255.0 ** 2 / mse)

    ref = cv2.imread(job["reference"], cv2.IMREAD_UNCHANGED)
    out = {"psnr": {p: psnr(ref, cv2.imread(p, cv2.IMREAD_UNCHANGED) if os.path.exists(p)
                             else None) for p in job["candidates"]}}
    if job.get("blur_of"):
        src = cv2.imread(job["blur_of"], cv2.IMREAD_UNCHANGED)
        out["cv2_blur"] = psnr(ref, cv2.GaussianBlur(src, (KSIZE, KSIZE), SIGMA,
                                                     borderType=cv2.BORDER_REPLICATE))
    return out


def child_chart(job):
    """Grouped bars of wall time: one panel per case (single image at 1 thread, single image on
    all cores, batch on all cores), formats on the x axis, one bar per contender (the faster
    strategy of each peer in the batch panel)."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    with open(job["csv"], newline="") as f:
        rows = [r for r in csv.DictReader(f) if r["wall_ms"]]
    cores = str(job["cores"])
    panels = [("single image, 1 thread", lambda r: r["mode"] == "single" and r["threads"] == "1"),
              (f"single image, {cores} cores",
               lambda r: r["mode"] == "single" and r["threads"] == cores),
              (f"batch of {job['batch']}, {cores} cores", lambda r: r["mode"] == "batch")]
    if cores == "1":
        panels = [panels[0], panels[2]]
    formats = [f for f in job["formats"] if any(r["format"] == f for r in rows)]
    fig, axes = plt.subplots(1, len(panels), figsize=(6.5 * len(panels), 4.8), squeeze=False)
    palette = plt.get_cmap("tab10")
    names = ORDER + ("cv2", "vips")
    for ax, (title, keep) in zip(axes[0], panels):
        best = {}  # (label, format) -> wall ms, the faster strategy of each peer
        for r in rows:
            if not keep(r):
                continue
            # cv2 / vips (either batch strategy) under one name; parfilter under its backend's.
            label = r["backend"].split()[0] if r["tool"] != "parfilter" else r["backend"]
            key = (label, r["format"])
            best[key] = min(best.get(key, float("inf")), float(r["wall_ms"]))
        labels = sorted({k[0] for k in best},
                        key=lambda n: (names.index(n) if n in names else len(names), n))
        width = 0.8 / max(1, len(labels))
        for i, label in enumerate(labels):
            xs = [j + (i - (len(labels) - 1) / 2) * width for j in range(len(formats))]
            ys = [best.get((label, f), float("nan")) for f in formats]
            hatch = "//" if label in ("cv2", "vips") else None
            colour = palette(names.index(label) if label in names else 8 + i % 2)
            ax.bar(xs, ys, width, label=label, color=colour, hatch=hatch)
        ax.set_xticks(range(len(formats)))
        ax.set_xticklabels([f.upper() for f in formats])
        ax.set_title(title)
        ax.set_yscale("log")  # mpirun's and vips' process start next to milliseconds
        ax.set_ylabel("wall time (ms, log scale, lower is better)")
        ax.grid(axis="y", alpha=0.3)
        ax.legend(fontsize="small")
    fig.suptitle(job["title"])
    fig.tight_layout()
    fig.savefig(job["png"], dpi=110)
    return {"chart": job["png"]}


CHILDREN = {"gen": child_gen, "cv2": child_cv2, "psnr": child_psnr, "chart": child_chart}


# ============================================================================================
# The parent: processes, contenders, tables.
# ============================================================================================
def log(text):
    print(f"bench-e2e: {text}", file=sys.stderr, flush=True)


def kill_group(pid):
    try:
        os.killpg(pid, signal.SIGKILL)
    except OSError:
        pass


class Proc:
    """One finished process: wall ms (perf_counter around start to reaping), exit code, peak
    RSS (KiB, os.wait4's ru_maxrss: the largest of the process and its reaped descendants),
    stdout and stderr."""

    def __init__(self, cmd, env=None, timeout=TIMEOUT_S):
        self.cmd = cmd
        with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
            start = time.perf_counter()
            try:
                p = subprocess.Popen(cmd, stdout=out, stderr=err, env=env,
                                     start_new_session=True)
            except OSError as e:
                self.wall_ms, self.rc, self.rss_kb, self.out, self.err = 0.0, 127, 0, "", str(e)
                return
            timer = threading.Timer(timeout, kill_group, (p.pid,))
            timer.start()
            try:
                _, status, usage = os.wait4(p.pid, 0)
            finally:
                timer.cancel()
            self.wall_ms = (time.perf_counter() - start) * MS
            p.returncode = self.rc = os.waitstatus_to_exitcode(status)
            self.rss_kb = usage.ru_maxrss
            out.seek(0)
            err.seek(0)
            self.out = out.read().decode(errors="replace")
            self.err = err.read().decode(errors="replace")

    def why(self):
        lines = [ln for ln in self.err.splitlines() if ln.strip() and
                 not ln.startswith("timing: ")] or ["(no message)"]
        return f"exit {self.rc}: {lines[-1].strip()[:200]}"


def timed_runs(cmd, warmup, repeats, env=None):
    """warm-up runs, then the repeats: (median wall ms, largest peak RSS KiB, the last Proc);
    (None, None, the failed Proc) as soon as one run fails."""
    walls, rss = [], 0
    for i in range(warmup + repeats):
        proc = Proc(cmd, env)
        if proc.rc != 0:
            return None, None, proc
        if i >= warmup:
            walls.append(proc.wall_ms)
            rss = max(rss, proc.rss_kb)
    return statistics.median(walls), rss, proc


def parse_timing(stderr):
    """--timing lines -> {column: ms} (summed over inputs and stages of the same column)."""
    times = {}
    for line in stderr.splitlines():
        m = TIMING_LINE.match(line.strip())
        if m:
            stage = m.group("stage")
            col = STAGES.get(stage, "compute_ms" if stage.startswith("compute") else None)
            if col:
                times[col] = times.get(col, 0.0) + float(m.group("ms"))
    return times


def stage_split(cmd, env, runs):
    """The --timing split: each stage's median over `runs` more runs (apart from the timed
    runs, whose wall time --timing's clocks and GPU synchronisation must not touch)."""
    samples = []
    for _ in range(runs):
        proc = Proc(cmd, env)
        if proc.rc != 0:
            break
        samples.append(parse_timing(proc.err))
    cols = {k for s in samples for k in s}
    return {k: statistics.median(s.get(k, 0.0) for s in samples) for k in cols}


def python_with(modules):
    seen = []
    for py in (sys.executable, "/usr/bin/python3", shutil.which("python3")):
        if not py or py in seen or not os.path.exists(py):
            continue
        seen.append(py)
        check = "import " + ", ".join(modules)
        if subprocess.run([py, "-c", check], capture_output=True).returncode == 0:
            return py
    return None


def run_child(python, task, job, timeout=TIMEOUT_S):
    """Runs a --child task in `python`; (result dict, Proc); result None on failure."""
    proc = Proc([python, os.path.abspath(__file__), "--child", task, json.dumps(job)],
                timeout=timeout)
    if proc.rc != 0:
        return None, proc
    try:
        return json.loads(proc.out.strip().splitlines()[-1]), proc
    except (ValueError, IndexError):
        proc.rc = -1
        return None, proc


def gaussian_weights(sigma):
    """docs/FILTERS.md: q_i = floor(256 g_i / sum g + 1/2), the centre absorbs the rounding."""
    g = [math.exp(-(i * i) / (2.0 * sigma * sigma)) for i in range(-2, 3)]
    q = [math.floor(256 * x / sum(g) + 0.5) for x in g]
    q[2] += 256 - sum(q)
    return q


def vips_mask(path, sigma):
    """parfilter's exact 5x5 integer kernel, w(i, j) = q_i q_j (sum 65536), as a libvips
    matrix: header "width height scale offset", then the rows."""
    q = gaussian_weights(sigma)
    with open(path, "w") as f:
        f.write(f"{KSIZE} {KSIZE} {sum(q) ** 2} 0\n")
        for a in q:
            f.write(" ".join(str(a * b) for b in q) + "\n")
    return q


# ---- inputs -------------------------------------------------------------------------------
def png_bytes(width, height, rows):
    def chunk(kind, data):
        return (struct.pack(">I", len(data)) + kind + data +
                struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF))
    raw = b"".join(b"\x00" + r for r in rows)
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 2, 0,
                                                               0, 0)) +
            chunk(b"IDAT", zlib.compress(raw, 6)) + chunk(b"IEND", b""))


def synthetic_rows(width, height, seed):
    """Without cv2: gradients, tiles and noise in [0, 7], with C-speed bytes operations."""
    rng = random.Random(seed)
    n = width * 3
    base = bytes((x * 255 // max(1, width - 1) + 85 * c) % 256 for x in range(width)
                 for c in range(3))
    noise = rng.randbytes(n + 4099).translate(bytes(v & 7 for v in range(256)))
    rows = []
    for y in range(height):
        lift = (y * 200 // max(1, height - 1) + (96 if (y // 64) % 2 else 0)) % 256
        row = base.translate(bytes((v + lift) % 256 for v in range(256)))
        off = (y * 4099) % 4096
        rows.append((int.from_bytes(row, "big") ^
                     int.from_bytes(noise[off:off + n], "big")).to_bytes(n, "big"))
    return rows


def make_inputs(ctx):
    """ctx.inputs_dir/img_NN.<fmt> for every format; kept between runs (inputs.json says how
    they were made; a different recipe makes them again)."""
    d = ctx.inputs_dir
    sources = sorted(glob.glob(os.path.join(ROOT, "data", "*.png")) +
                     glob.glob(os.path.join(ROOT, "data", "*.jpg")))
    recipe = {"width": ctx.width, "height": ctx.height, "seed": SEED, "noise": NOISE,
              "sources": [os.path.basename(s) for s in sources],
              "maker": "cv2" if ctx.cv2_py and sources else "synthetic (no cv2)"}
    count = max(1, ctx.batch)
    wanted = [os.path.join(d, f"img_{i:02d}.{fmt}") for i in range(count) for fmt in ctx.formats]
    manifest = os.path.join(d, "inputs.json")
    try:
        with open(manifest) as f:
            if json.load(f) == recipe and all(os.path.exists(p) for p in wanted):
                log(f"inputs: {count} x {ctx.width}x{ctx.height} in {rel(d)} (kept)")
                return recipe
    except (OSError, ValueError):
        pass
    os.makedirs(d, exist_ok=True)
    for stale in glob.glob(os.path.join(d, "img_*")):
        os.remove(stale)
    log(f"inputs: making {count} x {ctx.width}x{ctx.height} ({', '.join(ctx.formats)}) "
        f"in {rel(d)}")
    if ctx.cv2_py and sources:
        res, proc = run_child(ctx.cv2_py, "gen", {
            "sources": sources, "out_dir": d, "width": ctx.width, "height": ctx.height,
            "count": count, "seed": SEED, "formats": list(ctx.formats)})
        if res is None:
            raise SystemExit(f"bench-e2e: making the inputs failed: {proc.why()}")
    else:
        # No cv2: synthetic PNGs, converted by parfilter itself (gaussian with a tiny sigma has
        # the weights 0 0 256 0 0: an exact copy) into JPEG (quality 95) and BMP.
        conv = next((b for b in ctx.backends if b.name != "mpi"), None)
        for i in range(count):
            png = os.path.join(d, f"img_{i:02d}.png")
            with open(png, "wb") as f:
                f.write(png_bytes(ctx.width, ctx.height, synthetic_rows(ctx.width, ctx.height,
                                                                        SEED + i)))
            for fmt in ctx.formats:
                if fmt == "png":
                    continue
                if conv is None:
                    raise SystemExit("bench-e2e: neither cv2 nor a parfilter backend to make "
                                     f"{fmt} inputs")
                p = Proc([conv.exe, "gaussian", "--sigma", "0.01", "--jpeg-quality",
                          str(JPEG_QUALITY), png, os.path.join(d, f"img_{i:02d}.{fmt}")])
                if p.rc != 0:
                    raise SystemExit(f"bench-e2e: converting {png} to {fmt}: {p.why()}")
    with open(manifest, "w") as f:
        json.dump(recipe, f)
    return recipe


# ---- contenders ---------------------------------------------------------------------------
class Backend:
    def __init__(self, name, exe):
        self.name, self.exe = name, exe

    def configs(self, cores, batch=False):
        """(threads, extra options) of each run: serial at 1; pthread/openmp at 1 and all
        cores (batch: all cores); MPI: cores ranks of 1 thread; GPU: default threads."""
        if self.name == "serial":
            return [(1, [])]
        if self.name == "mpi":
            return [(cores, ["--threads", "1"])]
        if self.name in GPU_BACKENDS:
            return [(cores, [])]
        counts = [cores] if batch or cores == 1 else [1, cores]
        return [(t, ["--threads", str(t)]) for t in counts]

    def launcher(self, ctx):
        if self.name != "mpi":
            return [], None
        cmd = ["mpirun", "-q", "-np", str(ctx.cores), "--oversubscribe", "--bind-to", "none"]
        env = dict(os.environ)
        if os.geteuid() == 0:
            env.update(OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")
        return cmd, env


def find_backends(ctx, wanted):
    found = []
    for exe in sorted(glob.glob(os.path.join(ctx.build_dir, "backend_*", "parfilter-*"))):
        name = os.path.basename(exe)[len("parfilter-"):]
        if (name.startswith("bench") or os.path.basename(os.path.dirname(exe)) != "backend_" +
                name or not os.path.isfile(exe) or not os.access(exe, os.X_OK)):
            continue
        if wanted and name not in wanted:
            continue
        if name == "mpi" and not shutil.which("mpirun"):
            ctx.skip("parfilter-mpi: skipped: mpirun not found (Debian: openmpi-bin)")
            continue
        listing = Proc([exe, "--list"], timeout=120)
        head = (listing.out.splitlines() or [listing.why()])[0]
        if listing.rc != 0 or "device present" not in head:
            ctx.skip(f"parfilter-{name}: skipped: {head.strip()}")
            continue
        found.append(Backend(name, exe))
    for name in wanted or ():
        if name not in [b.name for b in found] and not any(f"parfilter-{name}:" in s
                                                           for s in ctx.skipped):
            ctx.skip(f"parfilter-{name}: skipped: no {rel(ctx.build_dir)}/backend_{name}/"
                     f"parfilter-{name}")
    found.sort(key=lambda b: (ORDER.index(b.name) if b.name in ORDER else len(ORDER), b.name))
    return found


def row(tool, backend, fmt, mode, threads, **values):
    r = dict.fromkeys(CSV_COLUMNS, None)
    r.update(tool=tool, backend=backend, format=fmt, mode=mode, threads=threads, note="")
    r.update(values)
    return r


def level_options(ctx):
    """--png-level / --jpeg-quality where they are not parfilter's defaults (so that a build from
    before these options runs too)."""
    opts = []
    if ctx.png_level != PNG_LEVEL:
        opts += ["--png-level", str(ctx.png_level)]
    if ctx.jpeg_quality != JPEG_QUALITY:
        opts += ["--jpeg-quality", str(ctx.jpeg_quality)]
    return opts


def bench_parfilter_single(ctx, fmt, src, work):
    rows = []
    for b in ctx.backends:
        prefix, env = b.launcher(ctx)
        for threads, opts in b.configs(ctx.cores):
            out = os.path.join(work, f"pf-{b.name}-{threads}.{fmt}")
            cmd = prefix + [b.exe, "gaussian"] + opts + level_options(ctx) + [src, out]
            wall, rss, proc = timed_runs(cmd, ctx.warmup, ctx.repeats, env)
            if wall is None:
                ctx.skip(f"parfilter-{b.name} {fmt} threads {threads}: failed: {proc.why()}")
                continue
            split = stage_split(prefix + [b.exe, "gaussian", "--timing"] + opts +
                                level_options(ctx) + [src, out], env, ctx.repeats)
            note = f"mpirun -np {ctx.cores}, 1 thread per rank" if b.name == "mpi" else ""
            if b.name in GPU_BACKENDS:
                note = "default threads"
            if split.get("build_ms"):
                note += f"; build {split['build_ms']:.1f} ms"
            rows.append(row("parfilter", b.name, fmt, "single", threads, wall_ms=wall,
                            out_bytes=os.path.getsize(out), peak_rss_kb=rss,
                            note=note.strip("; "),
                            _out=out, _sha=digest(out), **{k: v for k, v in split.items()
                                                   if k in CSV_COLUMNS}))
            log(f"{fmt} parfilter-{b.name} threads {threads}: {wall:.1f} ms")
    return rows


def bench_cv2_single(ctx, fmt, src, work):
    rows = []
    for threads in ctx.thread_counts():
        out = os.path.join(work, f"cv2-{threads}.{fmt}")
        job = {"inputs": [src], "output": out, "ext": fmt, "threads": threads,
               "strategy": "single", "png_level": ctx.png_level,
               "jpeg_quality": ctx.jpeg_quality, "warmup": ctx.warmup, "repeats": ctx.repeats,
               "defaults_output": os.path.join(work, f"cv2-defaults.{fmt}")}
        res, proc = run_child(ctx.cv2_py, "cv2", job)
        if res is None:
            ctx.skip(f"cv2 {fmt} threads {threads}: failed: {proc.why()}")
            continue
        ctx.versions["cv2"] = res["cv2"]
        rows.append(row("opencv", "cv2", fmt, "single", threads, wall_ms=res["wall_ms"],
                        load_ms=res["read_ms"], compute_ms=res["blur_ms"],
                        save_ms=res["write_ms"], out_bytes=res["out_bytes"],
                        peak_rss_kb=res["peak_rss_kb"], _out=out,
                        note=f"in-process; child wall {proc.wall_ms:.0f} ms incl. interpreter "
                             f"and import (RSS after import {res['import_rss_kb'] / 1024:.0f} "
                             "MiB)"))
        if threads == 1 and "default_bytes" in res:
            rows.append(row("opencv", "cv2 defaults", fmt, "single", "", out_bytes=res[
                "default_bytes"], note="imwrite(path, img) without params: size only"))
        log(f"{fmt} cv2 threads {threads}: {res['wall_ms']:.1f} ms")
    return rows


def vips_target(ctx, path, fmt):
    # Same encoder settings as parfilter: PNG level, JPEG quality with 4:2:0 chroma (libvips
    # turns chroma subsampling off at Q >= 90 unless told: subsample-mode=on).
    if fmt == "png":
        return f"{path}[compression={ctx.png_level}]"
    if fmt == "jpg":
        return f"{path}[Q={ctx.jpeg_quality},subsample-mode=on]"
    return path


def vips_env(threads):
    env = dict(os.environ)
    env["VIPS_CONCURRENCY"] = str(threads)
    return env


def bench_vips_single(ctx, fmt, src, work):
    rows = []
    for threads in ctx.thread_counts():
        out = os.path.join(work, f"vips-{threads}.{fmt}")
        cmd = ["vips", "conv", src, vips_target(ctx, out, fmt), ctx.mask, "--precision",
               "integer"]
        wall, rss, proc = timed_runs(cmd, ctx.warmup, ctx.repeats, vips_env(threads))
        if wall is None:
            ctx.skip(f"vips {fmt}: n/a ({proc.why()})")
            rows.append(row("libvips", "vips", fmt, "single", threads,
                            note=f"n/a: {proc.why()}"))
            break
        rows.append(row("libvips", "vips", fmt, "single", threads, wall_ms=wall,
                        out_bytes=os.path.getsize(out), peak_rss_kb=rss, _out=out,
                        note=f"VIPS_CONCURRENCY={threads}"))
        log(f"{fmt} vips threads {threads}: {wall:.1f} ms")
    return rows


def batch_sizes(files):
    return sum(os.path.getsize(p) for p in files if os.path.exists(p))


def bench_start(ctx):
    """What starting each tool costs, doing nothing: in every process-timed wall time above."""
    rows = []
    cases = []
    if ctx.backends:
        cases.append(("parfilter", f"parfilter-{ctx.backends[0].name} --version",
                      [ctx.backends[0].exe, "--version"], None))
    mpi = next((b for b in ctx.backends if b.name == "mpi"), None)
    if mpi:
        prefix, env = mpi.launcher(ctx)
        cases.append(("parfilter", f"mpirun -np {ctx.cores} true", prefix + ["true"], env))
    if ctx.use_cv2:
        cases.append(("opencv", "python3 -c 'import cv2'", [ctx.cv2_py, "-c", "import cv2"],
                      None))
    if ctx.vips:
        cases.append(("libvips", "vips --version", ["vips", "--version"], None))
    for tool, what, cmd, env in cases:
        wall, rss, proc = timed_runs(cmd, 1, max(3, ctx.repeats), env)
        if wall is None:
            ctx.skip(f"process start {what}: failed: {proc.why()}")
            continue
        rows.append(row(tool, what, "", "start", "", wall_ms=wall, peak_rss_kb=rss,
                        note="process start alone"))
    return rows


def bench_batch(ctx, fmt, inputs, work):
    rows = []
    n = len(inputs)
    for b in ctx.backends:
        prefix, env = b.launcher(ctx)
        for threads, opts in b.configs(ctx.cores, batch=True):
            out_dir = os.path.join(work, f"batch-pf-{b.name}")
            os.makedirs(out_dir, exist_ok=True)
            cmd = (prefix + [b.exe, "gaussian"] + opts + level_options(ctx) +
                   ["--out-dir", out_dir] + inputs)
            wall, rss, proc = timed_runs(cmd, ctx.warmup, ctx.repeats, env)
            if wall is None:
                ctx.skip(f"parfilter-{b.name} batch {fmt}: failed: {proc.why()}")
                continue
            summary = [ln for ln in proc.err.splitlines() if ln.startswith("batch:")]
            note = summary[-1] if summary else ""
            if b.name == "mpi":
                note = f"mpirun -np {ctx.cores}, 1 thread per rank; " + note
            outs = [os.path.join(out_dir, os.path.basename(p)) for p in inputs]
            rows.append(row("parfilter", b.name, fmt, "batch", threads, wall_ms=wall,
                            out_bytes=batch_sizes(outs), peak_rss_kb=rss, note=note))
            shutil.rmtree(out_dir, ignore_errors=True)  # a batch of BMPs is big
            log(f"{fmt} batch parfilter-{b.name} threads {threads}: {wall:.1f} ms")
    if ctx.use_cv2:
        # Both ways: a pool of <cores> threads with cv2.setNumThreads(1) (cv2 drops the GIL in
        # imread, GaussianBlur and imwrite), and one image after the other with
        # setNumThreads(<cores>). The Markdown names the faster.
        for strategy, threads in (("pool", 1), ("sequential", ctx.cores)):
            out_dir = os.path.join(work, f"batch-cv2-{strategy}")
            os.makedirs(out_dir, exist_ok=True)
            job = {"inputs": inputs, "out_dir": out_dir, "ext": fmt, "threads": threads,
                   "workers": ctx.cores, "strategy": strategy, "png_level": ctx.png_level,
                   "jpeg_quality": ctx.jpeg_quality, "warmup": ctx.warmup,
                   "repeats": ctx.repeats}
            res, proc = run_child(ctx.cv2_py, "cv2", job)
            if res is None:
                ctx.skip(f"cv2 batch {fmt} {strategy}: failed: {proc.why()}")
                continue
            how = (f"thread pool of {ctx.cores}, setNumThreads(1)" if strategy == "pool" else
                   f"one image at a time, setNumThreads({ctx.cores})")
            rows.append(row("opencv", f"cv2 {strategy}", fmt, "batch", ctx.cores,
                            wall_ms=res["wall_ms"], out_bytes=res["out_bytes"],
                            peak_rss_kb=res["peak_rss_kb"], note=f"in-process; {how}"))
            shutil.rmtree(out_dir, ignore_errors=True)
            log(f"{fmt} batch cv2 {strategy}: {res['wall_ms']:.1f} ms")
    if ctx.vips and not ctx.vips_na.get(fmt):
        # Both ways: <cores> `vips conv` processes at once (as xargs -P <cores>) with
        # VIPS_CONCURRENCY=1, and one process per image in turn with VIPS_CONCURRENCY=<cores>.
        for strategy, workers, threads in (("parallel", ctx.cores, 1),
                                           ("sequential", 1, ctx.cores)):
            out_dir = os.path.join(work, f"batch-vips-{strategy}")
            os.makedirs(out_dir, exist_ok=True)
            cmds = [["vips", "conv", p, vips_target(ctx, os.path.join(
                out_dir, os.path.basename(p)), fmt), ctx.mask, "--precision", "integer"]
                for p in inputs]
            env = vips_env(threads)
            walls, rss, failed = [], 0, None
            with concurrent.futures.ThreadPoolExecutor(workers) as pool:
                for i in range(ctx.warmup + ctx.repeats):
                    t0 = time.perf_counter()
                    procs = list(pool.map(lambda c: Proc(c, env), cmds))
                    wall = (time.perf_counter() - t0) * MS
                    failed = next((p for p in procs if p.rc != 0), None)
                    if failed:
                        break
                    if i >= ctx.warmup:
                        walls.append(wall)
                        rss = max([rss] + [p.rss_kb for p in procs])
            if failed:
                ctx.skip(f"vips batch {fmt} {strategy}: failed: {failed.why()}")
                continue
            how = (f"{workers} processes at once, VIPS_CONCURRENCY=1" if workers > 1 else
                   f"one process per image in turn, VIPS_CONCURRENCY={threads}")
            outs = [os.path.join(out_dir, os.path.basename(p)) for p in inputs]
            rows.append(row("libvips", f"vips {strategy}", fmt, "batch", ctx.cores,
                            wall_ms=statistics.median(walls), out_bytes=batch_sizes(outs),
                            peak_rss_kb=rss, note=f"{how}; peak RSS per process"))
            shutil.rmtree(out_dir, ignore_errors=True)
            log(f"{fmt} batch vips {strategy}: {statistics.median(walls):.1f} ms")
    for r in rows:
        r["_images"] = n
    return rows


def add_psnr(ctx, fmt, src, rows, work):
    """The PSNR column: every output against the exact result, parfilter's lossless output of
    the same input (the serial output itself for PNG and BMP; for JPEG a PNG written by the
    first backend). For JPEG also: cv2's own decode + blur against it (decoder differences)."""
    pf = [r for r in rows if r["tool"] == "parfilter" and r.get("_out")]
    if not ctx.cv2_py or not pf:
        ctx.notes.setdefault("psnr", []).append(
            f"{fmt}: PSNR skipped ({'no cv2' if not ctx.cv2_py else 'no parfilter output'})")
        return
    reference = pf[0]["_out"]
    if fmt == "jpg":
        reference = os.path.join(work, "exact.png")
        b = next((b for b in ctx.backends if b.name != "mpi"), ctx.backends[0])
        prefix, env = b.launcher(ctx)
        proc = Proc(prefix + [b.exe, "gaussian", src, reference], env)
        if proc.rc != 0:
            ctx.skip(f"jpg PSNR: the exact result failed: {proc.why()}")
            return
    outs = [r["_out"] for r in rows if r.get("_out")]
    res, proc = run_child(ctx.cv2_py, "psnr", {"reference": reference, "candidates": outs,
                                               "blur_of": src})
    if res is None:
        ctx.skip(f"{fmt} PSNR: failed: {proc.why()}")
        return
    for r in rows:
        if r.get("_out") in res["psnr"]:
            r["psnr"] = res["psnr"][r["_out"]]
    ctx.cv2_blur_psnr[fmt] = res.get("cv2_blur")


class Context:
    def __init__(self, args):
        self.args = args
        self.skipped = []
        self.notes = {}
        self.versions = {}
        self.vips_na = {}
        self.cv2_blur_psnr = {}
        self.backends = []

    def skip(self, text):
        self.skipped.append(text)
        log(text)

    def thread_counts(self):
        return [1] if self.cores == 1 else [1, self.cores]


# ---- output -------------------------------------------------------------------------------
def rel(path):
    path = os.path.abspath(path)
    return os.path.relpath(path, ROOT) if path.startswith(ROOT + os.sep) else path


def fmt_ms(v):
    if v in (None, ""):
        return "-"
    return f"{v:.0f}" if v >= 100 else f"{v:.1f}" if v >= 10 else f"{v:.2f}"


def fmt_psnr(v):
    if v in (None, ""):
        return "-"
    return "exact" if v == "inf" else f"{v:.2f} dB"


def fmt_bytes(v):
    return "-" if v in (None, "") else f"{v:,}"


def fmt_rss(v):
    return "-" if not v else f"{v / 1024:.0f}"


def write_csv(path, rows):
    with open(path, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(CSV_COLUMNS)
        for r in rows:
            cells = []
            for k in CSV_COLUMNS:
                v = r.get(k)
                cells.append("" if v is None else f"{v:.3f}" if isinstance(v, float) else v)
            w.writerow(cells)


def table(head, lines):
    out = ["| " + " | ".join(head) + " |", "|" + "|".join("---" for _ in head) + "|"]
    out += ["| " + " | ".join(str(c) for c in line) + " |" for line in lines]
    return "\n".join(out) + "\n"


def machine_lines(ctx):
    cpu = "unknown CPU"
    try:
        with open("/proc/cpuinfo") as f:
            cpu = next((ln.split(":", 1)[1].strip() for ln in f if ln.startswith("model name")),
                       cpu)
    except OSError:
        pass
    gpu = "none found (no nvidia-smi)"
    if shutil.which("nvidia-smi"):
        p = Proc(["nvidia-smi", "--query-gpu=name,memory.total,driver_version",
                  "--format=csv,noheader"], timeout=60)
        gpu = "; ".join(ln.strip() for ln in p.out.splitlines() if ln.strip()) if p.rc == 0 \
            else f"nvidia-smi failed ({p.why()})"
    return [f"- Machine: {platform.node()}, {cpu}, {os.cpu_count()} logical CPUs "
            f"({ctx.cores} used as \"all cores\"), GPU: {gpu}",
            f"- Load average at start: {ctx.load_start}; on a shared machine other load shows "
            "in every number",
            f"- Date: {ctx.started:%Y-%m-%d %H:%M %Z}; parfilter "
            f"{ctx.versions.get('parfilter', '?')} ({ctx.versions.get('git', 'no git')}), "
            f"build dir {rel(ctx.build_dir)}",
            f"- Peers: cv2 {ctx.versions.get('cv2', '-')} (Python: {ctx.cv2_py or '-'}), "
            f"{ctx.versions.get('vips', 'libvips -')}, {ctx.versions.get('mpirun', 'no mpirun')}"]


def label(r):
    if r["tool"] == "parfilter":
        return f"parfilter {r['backend']}"
    return r["backend"]


def single_table(ctx, rows, fmt):
    # Timed rows and n/a rows; not the size-only rows of the default parameters.
    rows = [r for r in rows if r["format"] == fmt and r["mode"] == "single" and
            (r["wall_ms"] is not None or r["note"].startswith("n/a"))]
    if not rows:
        return "- no rows (see Skipped, failed, n/a)\n"
    serial = next((r["wall_ms"] for r in rows if r["backend"] == "serial" and r["wall_ms"]),
                  None)
    transfers = any(r.get("upload_ms") or r.get("download_ms") for r in rows)
    head = ["contender", "threads", "wall ms", "vs serial", "load", "compute", "save"]
    head += ["upload / download"] if transfers else []
    head += ["output bytes", "peak RSS MiB", "PSNR vs exact"]
    lines = []
    for r in rows:
        if r["wall_ms"] is None:
            lines.append([label(r), r["threads"], r["note"]] + [""] * (len(head) - 3))
            continue
        line = [label(r), r["threads"], fmt_ms(r["wall_ms"]),
                f"{serial / r['wall_ms']:.2f}x" if serial else "-", fmt_ms(r.get("load_ms")),
                fmt_ms(r.get("compute_ms")), fmt_ms(r.get("save_ms"))]
        if transfers:
            line.append(f"{fmt_ms(r.get('upload_ms'))} / {fmt_ms(r.get('download_ms'))}"
                        if r.get("upload_ms") or r.get("download_ms") else "-")
        line += [fmt_bytes(r["out_bytes"]), fmt_rss(r["peak_rss_kb"]), fmt_psnr(r["psnr"])]
        lines.append(line)
    return table(head, lines)


def batch_table(ctx, rows):
    rows = [r for r in rows if r["mode"] == "batch"]
    lines = []
    for fmt in ctx.formats:
        group = [r for r in rows if r["format"] == fmt]
        for tool in ("opencv", "libvips"):
            peers = [r for r in group if r["tool"] == tool]
            if len(peers) > 1:
                best = min(peers, key=lambda r: r["wall_ms"])
                best["_best"] = True
        serial = next((r["wall_ms"] for r in group if r["backend"] == "serial"), None)
        for r in group:
            n = r["_images"]
            lines.append([fmt.upper(), label(r) + (" (faster)" if r.get("_best") else ""),
                          r["threads"], fmt_ms(r["wall_ms"]),
                          f"{serial / r['wall_ms']:.2f}x" if serial else "-",
                          fmt_ms(r["wall_ms"] / n), f"{n * MS / r['wall_ms']:.2f}",
                          fmt_bytes(r["out_bytes"]), fmt_rss(r["peak_rss_kb"]), r["note"]])
    if not lines:
        return "- no rows (see Skipped, failed, n/a)\n"
    return table(["format", "contender", "threads", "wall ms", "vs serial", "ms / image",
                  "images / s", "output bytes", "peak RSS MiB", "how"], lines)


def write_markdown(ctx, rows, path, chart):
    a = ctx.args
    out = [f"# End-to-end benchmark: gaussian 5x5 (sigma {SIGMA}), file to file\n"]
    out += machine_lines(ctx)
    out.append(f"- Inputs: {ctx.width}x{ctx.height} RGB, {ctx.recipe['maker']} from data/ "
               f"(resize INTER_CUBIC + noise in [-{NOISE}, {NOISE}], seed {SEED}), in "
               f"{rel(ctx.inputs_dir)}; batch of {ctx.batch}; median of {ctx.repeats} "
               f"repeat(s) after {ctx.warmup} warm-up run(s); PNG level {ctx.png_level}, "
               f"JPEG quality {ctx.jpeg_quality}" + (" (--quick)" if a.quick else ""))
    out.append("")
    out.append("How each is measured (wall: median, ms; peak RSS: the largest process):\n")
    cores = ctx.cores
    out += [
        "- parfilter: `" + " ".join(["parfilter-<backend> gaussian [--threads T]"] +
                                    level_options(ctx) + ["IN OUT"]) + "` (its own default PNG "
        "level and JPEG quality unless told otherwise), one process per run timed from outside "
        "(process start and exit included); the split: the medians of as many further runs with "
        "`--timing`. "
        f"MPI: `mpirun -q -np {cores} --oversubscribe --bind-to none parfilter-mpi ... "
        "--threads 1` (mpirun's start included; its split: read / scatter / compute (slowest "
        "rank) / gather / write in the load / upload / compute / download / save columns). "
        "Batch: `... --out-dir DIR IN...`.",
        "- cv2: a child interpreter runs `cv2.setNumThreads(T)`, `imread(IN, IMREAD_UNCHANGED)`, "
        f"`GaussianBlur(img, (5, 5), {SIGMA}, borderType=BORDER_REPLICATE)`, `imwrite(OUT, out, "
        f"[IMWRITE_PNG_COMPRESSION, {ctx.png_level}] or [IMWRITE_JPEG_QUALITY, "
        f"{ctx.jpeg_quality}])` and times them itself "
        "(load / compute / save = read / blur / write): no process start, no interpreter, no "
        "`import cv2` in its wall time; its peak RSS includes the interpreter and cv2.",
        "- vips: `VIPS_CONCURRENCY=T vips conv IN 'OUT[options]' mask.mat --precision integer`, "
        "timed as parfilter is (process start included); PNG: "
        f"`OUT.png[compression={ctx.png_level}]`, JPEG: "
        f"`OUT.jpg[Q={ctx.jpeg_quality},subsample-mode=on]` (4:2:0 like parfilter and cv2; "
        "libvips keeps full chroma at Q >= 90 unless told), BMP: `OUT.bmp` (libvips' "
        "ImageMagick saver where it has one). mask.mat is parfilter's exact kernel, "
        f"w(i, j) = q_i q_j with q = {ctx.weights}: header `5 5 65536 0`. libvips' vector "
        "path rounds the mask to fewer bits, so its pixels are not exact (PSNR column); "
        "`--vips-novector` makes them exact, at its scalar speed.",
        "- PSNR vs exact: each output decoded by cv2 against parfilter's lossless result of the "
        "same input (for JPEG: parfilter's PNG of the JPEG input); \"exact\" = the same pixels.",
        ""]
    for fmt in ctx.formats:
        out.append(f"## {fmt.upper()}: one image, {ctx.width}x{ctx.height}\n")
        out.append(single_table(ctx, rows, fmt))
    out.append(f"## Batch: {ctx.batch} image{'s' if ctx.batch != 1 else ''}, all {cores} "
               "cores\n")
    out.append("Peers are run both ways; \"(faster)\" marks the one the chart shows.\n")
    out.append(batch_table(ctx, rows))
    start = [r for r in rows if r["mode"] == "start"]
    if start:
        out.append("## Process start alone\n")
        out.append("In every wall time measured from outside (parfilter, mpirun, vips); not in "
                   "cv2's, which the interpreter times itself.\n")
        out.append(table(["command", "wall ms", "peak RSS MiB"],
                         [[f"`{r['backend']}`", fmt_ms(r["wall_ms"]), fmt_rss(r["peak_rss_kb"])]
                          for r in start]))
    out.append("## PNG save alone, all cores\n")
    out += png_save_lines(ctx, rows) + [""]
    out.append("## JPEG quality\n")
    out += jpeg_lines(ctx, rows) + [""]
    out.append("## Output size at default parameters (parfilter must not be larger than cv2)\n")
    out += default_size_lines(ctx, rows) + [""]
    out.append("## Same pixels on every backend\n")
    out += same_pixel_lines(ctx, rows) + [""]
    out.append("## Skipped, failed, n/a\n")
    out += [f"- {s}" for s in ctx.skipped] or ["- none"]
    out.append("")
    if chart:
        out.append(f"![wall time]({os.path.basename(chart)})\n")
    else:
        out.append(f"Chart: skipped: {ctx.chart_why}\n")
    with open(path, "w") as f:
        f.write("\n".join(out))


def png_save_lines(ctx, rows):
    single = [r for r in rows if r["format"] == "png" and r["mode"] == "single"]
    cv2_row = next((r for r in single if r["backend"] == "cv2" and r["threads"] == ctx.cores),
                   None)
    pf = [r for r in single if r["tool"] == "parfilter" and r["threads"] == ctx.cores and
          r.get("save_ms")]
    if "png" not in ctx.formats:
        return ["- skipped: png not in --formats"]
    if not cv2_row or not pf:
        return ["- skipped: " + ("no cv2 row" if not cv2_row else
                                 "no parfilter row on all cores with --timing")]
    return [f"- parfilter-{r['backend']} save {fmt_ms(r['save_ms'])} ms vs cv2 imwrite "
            f"(setNumThreads({ctx.cores}), IMWRITE_PNG_COMPRESSION {ctx.png_level}) "
            f"{fmt_ms(cv2_row['save_ms'])} ms: ratio {r['save_ms'] / cv2_row['save_ms']:.2f} "
            f"(parfilter / cv2; output {fmt_bytes(r['out_bytes'])} vs "
            f"{fmt_bytes(cv2_row['out_bytes'])} bytes)" for r in pf]


def jpeg_lines(ctx, rows):
    if "jpg" not in ctx.formats:
        return ["- skipped: jpg not in --formats"]
    single = [r for r in rows if r["format"] == "jpg" and r["mode"] == "single" and r["psnr"]]
    if not single:
        return ["- skipped: " + "; ".join(ctx.notes.get("psnr", ["no PSNR measured"]))]
    lines, groups = [], {}
    for r in single:  # one line per tool and result: the backends and threads that gave it
        groups.setdefault((r["tool"], r["psnr"], r["out_bytes"]), []).append(
            f"{r['backend']} {r['threads']}")
    for (tool, psnr, size), who in groups.items():
        lines.append(f"- {tool} ({', '.join(who)}): {fmt_psnr(psnr)} against the exact "
                     f"result, {fmt_bytes(size)} bytes")
    blur = ctx.cv2_blur_psnr.get("jpg")
    if blur is not None:
        lines.append("- for reference, cv2's own decode of the JPEG input + GaussianBlur, before "
                     f"any encoding, against the exact result: {fmt_psnr(blur)} "
                     + ("(no decoder or rounding difference)" if blur == "inf" else
                        "(the decoders' and the roundings' differences)"))
    return lines


def default_size_lines(ctx, rows):
    lines = []
    for fmt in ctx.formats:
        cv2_row = next((r for r in rows if r["format"] == fmt and r["backend"] == "cv2 defaults"),
                       None)
        pf = next((r for r in rows if r["format"] == fmt and r["tool"] == "parfilter" and
                   r["mode"] == "single" and r["backend"] == "defaults"), None)
        pf = pf or next((r for r in rows if r["format"] == fmt and r["tool"] == "parfilter" and
                         r["mode"] == "single"), None)
        if not cv2_row or not pf:
            lines.append(f"- {fmt.upper()}: skipped ({'no cv2' if not cv2_row else 'no parfilter'}"
                         " output)")
            continue
        verdict = "OK" if pf["out_bytes"] <= cv2_row["out_bytes"] else "LARGER"
        lines.append(f"- {fmt.upper()}: parfilter {fmt_bytes(pf['out_bytes'])} bytes, cv2 "
                     f"{fmt_bytes(cv2_row['out_bytes'])} bytes "
                     f"({pf['out_bytes'] / cv2_row['out_bytes']:.3f}x): {verdict}")
    return lines


def same_pixel_lines(ctx, rows):
    lines = []
    for fmt in ctx.formats:
        pf = [r for r in rows if r["format"] == fmt and r["tool"] == "parfilter" and
              r["mode"] == "single" and r.get("_out")]
        if not pf or all(r["psnr"] is None for r in pf):
            continue
        if fmt == "jpg":
            values = {r["psnr"] for r in pf}
            same = "has the same" if len(values) == 1 else "does NOT have the same"
            lines.append(f"- JPG: every parfilter output {same} "
                         f"PSNR ({', '.join(fmt_psnr(v) for v in values)}); byte-identical: "
                         f"{'yes' if len({r['_sha'] for r in pf}) == 1 else 'no'}")
        else:
            bad = [f"{label(r)} {r['threads']}" for r in pf if r["psnr"] != "inf"]
            lines.append(f"- {fmt.upper()}: " + ("every parfilter output has the serial "
                                                 "output's pixels" if not bad else
                                                 "DIFFERENT pixels: " + ", ".join(bad)))
    return lines or ["- not checked (no cv2 to decode)"]


def digest(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


# ---- main ---------------------------------------------------------------------------------
def default_build_dir():
    env = os.environ.get("BENCH_BUILD_DIR")
    if env:
        return env
    for name in ("build-demo", "build"):
        d = os.path.join(ROOT, name)
        if glob.glob(os.path.join(d, "backend_*", "parfilter-*")):
            return d
    return os.path.join(ROOT, "build")


def parse_args(argv):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter,
                                epilog="\n".join(__doc__.splitlines()[1:]))
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


def main(argv):
    if argv[:1] == ["--child"]:
        print(json.dumps(CHILDREN[argv[1]](json.loads(argv[2]))))
        return 0
    a = parse_args(argv)
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
    os.makedirs(ctx.out, exist_ok=True)

    # Peers and backends.
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
            fwork = os.path.join(work, fmt)
            os.makedirs(fwork)
            src = os.path.join(ctx.inputs_dir, f"img_00.{fmt}")
            single = bench_parfilter_single(ctx, fmt, src, fwork)
            if (ctx.png_level, ctx.jpeg_quality) != (PNG_LEVEL, JPEG_QUALITY) and ctx.backends:
                out = os.path.join(fwork, f"pf-defaults.{fmt}")
                p = Proc([ctx.backends[0].exe, "gaussian", src, out])
                if p.rc == 0:
                    single.append(row("parfilter", "defaults", fmt, "single", "",
                                      out_bytes=os.path.getsize(out), note="size only"))
            if ctx.use_cv2:
                single += bench_cv2_single(ctx, fmt, src, fwork)
            if ctx.vips:
                single += bench_vips_single(ctx, fmt, src, fwork)
                ctx.vips_na[fmt] = any(r["tool"] == "libvips" and r["wall_ms"] is None
                                       for r in single)
            add_psnr(ctx, fmt, src, single, fwork)
            rows += single
            if ctx.batch > 0:
                inputs = [os.path.join(ctx.inputs_dir, f"img_{i:02d}.{fmt}")
                          for i in range(ctx.batch)]
                rows += bench_batch(ctx, fmt, inputs, fwork)
            shutil.rmtree(fwork, ignore_errors=True)  # keep the disk use to one format's outputs
    finally:
        shutil.rmtree(work, ignore_errors=True)

    csv_path = os.path.join(ctx.out, "results.csv")
    md_path = os.path.join(ctx.out, "results.md")
    chart = os.path.join(ctx.out, "wall.png")
    write_csv(csv_path, rows)
    ctx.chart_why = ""
    if os.path.exists(chart):
        os.remove(chart)
    if a.no_chart:
        chart, ctx.chart_why = None, "--no-chart"
    else:
        mpl_py = python_with(["matplotlib"])
        if not mpl_py:
            chart, ctx.chart_why = None, "no python3 here imports matplotlib (Debian: " \
                                         "python3-matplotlib)"
        else:
            res, proc = run_child(mpl_py, "chart", {
                "csv": csv_path, "png": chart, "cores": ctx.cores, "batch": ctx.batch,
                "formats": ctx.formats, "title": f"gaussian 5x5, file to file, "
                                                 f"{ctx.width}x{ctx.height} RGB"})
            if res is None:
                chart, ctx.chart_why = None, f"matplotlib failed: {proc.why()}"
    write_markdown(ctx, rows, md_path, chart)
    log(f"results: {rel(csv_path)}, {rel(md_path)}" + (f", {rel(chart)}" if chart else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
