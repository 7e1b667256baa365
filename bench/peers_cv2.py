#!/usr/bin/env python3
"""OpenCV's Python bindings (cv2) as a peer, where the C++ library is not installed (the GPU
machine has cv2 but no libopencv-dev). Times the same OpenCV calls as bench/opencv_ops.cpp on
an image of the same pattern (gradients, tiles and noise; numpy's noise, not the C++ xorshift)
at the same sizes and thread counts (cv2.setNumThreads), timed as parfilter-bench times its
contenders (warm-up runs, repeats under the same budget, the same idle time after each run),
and appends rows in parfilter-bench's CSV schema (backend "opencv-python"), with the limit
parfilter-bench measured for the same image (the memcpy rows already in the CSV: run it after
parfilter-bench). The interpreter's call overhead (a few microseconds) is in its times; at
256x256 that is visible.

  peers_cv2.py --csv results.csv --sizes 256,1024 --channels 4 --ops gaussian,erode --se 3
               --threads 16 [--warmup 2 --repeats 5 --budget-ms 2000 --min-repeats 3
               --settle-ms 20 --section main --machine NAME]
"""
import argparse
import csv
import os
import statistics
import sys
import time

import cv2
import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from results_md import cpu_limit, load  # noqa: E402

HEADER = ("machine,section,backend,op,variant,width,height,channels,se,threads,ranks,batch,"
          "median_ms,min_ms,max_ms,repeats,compute_ms,upload_ms,download_ms,bytes,gbs,limit,"
          "limit_gbs,limit_fraction,background_cores,note").split(",")
TILE = 64
TILE_LIFT = 96
NOISE = 32
# parfilter-bench's defaults (bench/parfilter_bench.cpp), for the same timing.
WARMUP = 2
REPEATS = 5
BUDGET_MS = 2000.0
MIN_REPEATS = 3
SETTLE_MS = 20.0
MS_PER_S = 1e3
BYTES_PER_GB = 1e9


def image(width, height, channels):
    rng = np.random.default_rng(0x9E3779B9)
    y, x = np.mgrid[0:height, 0:width]
    tile = np.where(((x // TILE) + (y // TILE)) % 2 == 0, 0, TILE_LIFT)
    bases = [x * 255 // width, y * 255 // height, (x + y) * 127 // (width + height),
             np.full_like(x, 224)]
    planes = [(bases[c] + tile + rng.integers(0, NOISE, size=x.shape)) % 256
              for c in range(channels)]
    return np.ascontiguousarray(np.dstack(planes).astype(np.uint8).squeeze())


def gray(src):
    if src.ndim == 2:
        return src.copy()
    return cv2.cvtColor(src, cv2.COLOR_RGBA2GRAY if src.shape[2] == 4 else cv2.COLOR_RGB2GRAY)


def counterpart(op, src, se):
    """(callable, calls, output bytes) for one op, as opencv_ops.cpp writes it; None if none."""
    px = src.shape[0] * src.shape[1]
    if op == "gray":
        return (lambda: gray(src)), "cvtColor(RGB2GRAY)", px
    if op == "gaussian":
        return (lambda: cv2.GaussianBlur(src, (5, 5), 1.5, 1.5, borderType=cv2.BORDER_REPLICATE),
                "GaussianBlur(5x5)", src.nbytes)
    if op == "sobel":
        def sobel():
            g = gray(src)
            dx = cv2.Sobel(g, cv2.CV_16S, 1, 0, 3, borderType=cv2.BORDER_REPLICATE)
            dy = cv2.Sobel(g, cv2.CV_16S, 0, 1, 3, borderType=cv2.BORDER_REPLICATE)
            return cv2.magnitude(dx.astype(np.float32), dy.astype(np.float32)).astype(np.uint8)
        return sobel, "cvtColor + Sobel dx, dy (16S) + magnitude (32F)", px
    if op == "sharpen":
        kernel = np.array([[0, -1, 0], [-1, 5, -1], [0, -1, 0]], np.float32)
        return (lambda: cv2.filter2D(src, -1, kernel, borderType=cv2.BORDER_REPLICATE),
                "filter2D(3x3 sharpen)", src.nbytes)
    if op == "histogram":
        return (lambda: cv2.calcHist([gray(src)], [0], None, [256], [0, 256]),
                "cvtColor + calcHist", 0)
    if op == "equalize":
        if src.ndim == 2:
            return (lambda: cv2.equalizeHist(src)), "equalizeHist", src.nbytes
        def equalize():
            ycc = cv2.cvtColor(src, cv2.COLOR_RGB2YCrCb)
            ycc[:, :, 0] = cv2.equalizeHist(np.ascontiguousarray(ycc[:, :, 0]))
            return cv2.cvtColor(ycc, cv2.COLOR_YCrCb2RGB)
        return equalize, "cvtColor(YCrCb) + equalizeHist(Y) + cvtColor(RGB)", src.nbytes
    if op == "otsu":
        return (lambda: cv2.threshold(gray(src), 0, 255, cv2.THRESH_BINARY | cv2.THRESH_OTSU),
                "cvtColor + threshold(OTSU)", px)
    if op in ("erode", "dilate", "open", "close"):
        element = cv2.getStructuringElement(cv2.MORPH_RECT, (se, se))
        morph = {"erode": cv2.MORPH_ERODE, "dilate": cv2.MORPH_DILATE,
                 "open": cv2.MORPH_OPEN, "close": cv2.MORPH_CLOSE}[op]
        return (lambda: cv2.morphologyEx(src, morph, element)), "morphologyEx", src.nbytes
    if op == "pool":
        size = ((src.shape[1] + 1) // 2, (src.shape[0] + 1) // 2)
        ones = np.ones((2, 2), np.uint8)
        return (lambda: cv2.resize(cv2.dilate(src, ones, anchor=(0, 0)), size,
                                   interpolation=cv2.INTER_NEAREST),
                "dilate(2x2) + resize(INTER_NEAREST)", src.nbytes // 4)
    return None


def timed(work, plan):
    """As bench/timing.cpp's time_contenders for one contender: warm-up runs, then repeats
    back to back (fewer where the last warm-up run says they would take over the budget, never
    under min_repeats); plan.settle_ms of idle time follows the last run."""
    def run():
        start = time.perf_counter()
        work()
        return (time.perf_counter() - start) * MS_PER_S

    last_warmup = 0.0
    for _ in range(plan.warmup):
        last_warmup = run()
    repeats = plan.repeats
    if plan.budget_ms > 0 and last_warmup * repeats > plan.budget_ms:
        repeats = max(min(plan.min_repeats, plan.repeats), int(plan.budget_ms / last_warmup))
    samples = [run() for _ in range(repeats)]
    time.sleep(plan.settle_ms / MS_PER_S)
    return statistics.median(samples), min(samples), max(samples), len(samples)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--csv", required=True)
    parser.add_argument("--sizes", default="256,1024")
    parser.add_argument("--channels", default="4")
    parser.add_argument("--ops", default="gray,gaussian,sobel,sharpen,histogram,equalize,otsu,"
                                         "erode,dilate,pool")
    parser.add_argument("--se", default="3")
    parser.add_argument("--threads", default=str(os.cpu_count()))
    parser.add_argument("--warmup", type=int, default=WARMUP)
    parser.add_argument("--repeats", type=int, default=REPEATS)
    parser.add_argument("--budget-ms", type=float, default=BUDGET_MS)
    parser.add_argument("--min-repeats", type=int, default=MIN_REPEATS)
    parser.add_argument("--settle-ms", type=float, default=SETTLE_MS)
    parser.add_argument("--section", default="main")
    parser.add_argument("--machine", default="unknown machine")
    args = parser.parse_args()
    new = not os.path.exists(args.csv) or os.path.getsize(args.csv) == 0
    copies = [] if new else [r for r in load(args.csv) if r["backend"] == "memcpy"]
    with open(args.csv, "a", newline="") as out:
        writer = csv.writer(out)
        if new:
            writer.writerow(HEADER)
        for size in args.sizes.split(","):
            w, _, h = size.partition("x")
            width, height = int(w), int(h or w)
            for channels in (int(c) for c in args.channels.split(",")):
                src = image(width, height, channels)
                for op in args.ops.split(","):
                    morph = op in ("erode", "dilate", "open", "close")
                    for se in ([int(s) for s in args.se.split(",")] if morph else [0]):
                        found = counterpart(op, src, se)
                        if found is None:
                            continue
                        work, calls, out_bytes = found
                        for threads in (int(t) for t in args.threads.split(",")):
                            cv2.setNumThreads(threads)
                            med, lo, hi, n = timed(work, args)
                            nbytes = src.nbytes + out_bytes
                            gbs = nbytes / (med / MS_PER_S) / BYTES_PER_GB
                            row = dict.fromkeys(HEADER, "")
                            row.update(machine=args.machine, section=args.section,
                                       backend="opencv-python", op=op, variant=calls,
                                       width=width, height=height, channels=channels, se=se,
                                       threads=threads, ranks=1, batch=0, median_ms=f"{med:.4f}",
                                       min_ms=f"{lo:.4f}", max_ms=f"{hi:.4f}", repeats=n,
                                       bytes=nbytes, gbs=f"{gbs:.3f}",
                                       note=f"cv2 {cv2.__version__} from Python")
                            limit = cpu_limit(copies, dict(row, machine=args.machine,
                                                           threads=threads, ranks=1))
                            if limit and limit["limit_gbs"]:
                                row.update(limit=limit["limit"],
                                           limit_gbs=f"{limit['limit_gbs']:.3f}",
                                           limit_fraction=f"{gbs / limit['limit_gbs']:.4f}")
                            writer.writerow([row[k] for k in HEADER])
                            print(f"  opencv-python {op} {width}x{height}x{channels} "
                                  f"threads {threads}: {med:.3f} ms", flush=True)


if __name__ == "__main__":
    main()
