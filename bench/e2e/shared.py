"""What every module of the end-to-end benchmark shares: the recipe's constants (sizes, seed,
kernel, parfilter's encoder defaults), the CSV columns, the run's Context, log() and rel().
Standard library only: the child interpreter imports it too."""
import os
import sys

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


def log(text):
    print(f"bench-e2e: {text}", file=sys.stderr, flush=True)


def rel(path):
    path = os.path.abspath(path)
    return os.path.relpath(path, ROOT) if path.startswith(ROOT + os.sep) else path


def row(tool, backend, fmt, mode, threads, **values):
    r = dict.fromkeys(CSV_COLUMNS, None)
    r.update(tool=tool, backend=backend, format=fmt, mode=mode, threads=threads, note="")
    r.update(values)
    return r


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
