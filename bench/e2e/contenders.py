"""How each contender is run: parfilter's backends (found in the build dir, with their thread
counts and mpirun's launcher), the options that differ from parfilter's defaults, and libvips'
mask, target options and environment. digest() tells byte-identical outputs apart."""
import glob
import hashlib
import math
import os
import shutil

from processes import Proc
from shared import GPU_BACKENDS, JPEG_QUALITY, KSIZE, ORDER, PNG_LEVEL, rel


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


def level_options(ctx):
    """--png-level / --jpeg-quality where they are not parfilter's defaults (so that a build from
    before these options runs too)."""
    opts = []
    if ctx.png_level != PNG_LEVEL:
        opts += ["--png-level", str(ctx.png_level)]
    if ctx.jpeg_quality != JPEG_QUALITY:
        opts += ["--jpeg-quality", str(ctx.jpeg_quality)]
    return opts


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


def digest(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()
