#!/usr/bin/env python3
"""Every op at 16 bits on a CPU backend against OpenCV's 16-bit call, same threads.

parfilter's time is its own compute timer (`--timing --repeat N`: the median of N runs after
the first), on a 16-bit TIFF written here; cv2's is the median of N calls on the decoded array
after one warm-up, with cv2.setNumThreads(T). gray runs on an RGB image. Ops without a 16-bit OpenCV counterpart
(histogram, equalize, otsu, segment: OpenCV's are 8-bit only) are timed alone. Prints a
Markdown table.

  bench_16bit.py --exe build/backend_openmp/parfilter-openmp --threads 2 --size 4096
                 [--repeats 5] [--channels 1]
"""
import argparse
import re
import statistics
import subprocess
import tempfile
import time
from pathlib import Path

import cv2
import numpy as np

SEED = 16
RECT_SE = 15


def gray_of(img):
    return img if img.ndim == 2 else cv2.cvtColor(img, cv2.COLOR_RGB2GRAY)


def cv2_ops(se):
    kernel = cv2.getStructuringElement(cv2.MORPH_RECT, (se, se))
    sharpen = np.array([[0, -1, 0], [-1, 5, -1], [0, -1, 0]], np.float32)
    return {
        "gray": ([], lambda a: gray_of(a)),
        "gaussian": ([], lambda a: cv2.GaussianBlur(a, (5, 5), 1.0)),
        "sobel": ([], lambda a: cv2.convertScaleAbs(cv2.Sobel(gray_of(a), cv2.CV_32F, 1, 0))),
        "sharpen": ([], lambda a: cv2.filter2D(a, -1, sharpen)),
        "histogram": ([], None),
        "equalize": ([], None),
        "otsu": ([], None),
        "segment": ([], None),
        "erode": (["--se", f"rect:{se}x{se}"], lambda a: cv2.erode(a, kernel)),
        "dilate": (["--se", f"rect:{se}x{se}"], lambda a: cv2.dilate(a, kernel)),
        "pool": ([], lambda a: a.reshape(a.shape[0] // 2, 2, a.shape[1] // 2, 2, *a.shape[2:])
                 .max(axis=(1, 3))),
    }


def parfilter_ms(exe, op, extra, src, dst, threads, repeats):
    cmd = [exe, op, *extra, "--timing", "--repeat", str(repeats), str(src), str(dst)]
    if "serial" not in Path(exe).name:
        cmd[2:2] = ["--threads", str(threads)]
    out = subprocess.run(cmd, capture_output=True, text=True, check=True).stderr
    return float(re.search(r"compute ([0-9.]+) ms", out).group(1))


def cv2_ms(fn, img, repeats):
    fn(img)
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        fn(img)
        times.append((time.perf_counter() - start) * 1000.0)
    return statistics.median(times)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--exe", required=True)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--size", type=int, default=4096)
    parser.add_argument("--channels", type=int, default=1)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--ops", default="")
    args = parser.parse_args()
    cv2.setNumThreads(args.threads)
    shape = (args.size, args.size) + ((args.channels,) if args.channels > 1 else ())
    img = np.random.default_rng(SEED).integers(0, 1 << 16, shape, dtype=np.uint16)
    ops = cv2_ops(RECT_SE)
    chosen = args.ops.split(",") if args.ops else list(ops)
    with tempfile.TemporaryDirectory() as tmp:
        src = Path(tmp) / "in.tif"
        cv2.imwrite(str(src), img)
        # gray of a gray image is a copy: gray runs on the RGB image of the same samples.
        rgb = img if img.ndim == 3 else np.dstack([img, img[::-1], img[:, ::-1]])
        rgb_src = Path(tmp) / "rgb.tif"
        cv2.imwrite(str(rgb_src), rgb)
        print(f"{args.size}x{args.size}x{args.channels} 16-bit, {args.threads} thread(s), "
              f"median of {args.repeats}; rect SE {RECT_SE}x{RECT_SE}")
        print("| op | parfilter ms | cv2 ms | parfilter / cv2 |\n|---|---:|---:|---:|")
        for op in chosen:
            extra, fn = ops[op]
            dst = Path(tmp) / ("out.csv" if op == "histogram" else "out.tif")
            op_src, op_img = (rgb_src, rgb) if op == "gray" else (src, img)
            ours = parfilter_ms(args.exe, op, extra, op_src, dst, args.threads, args.repeats)
            if fn is None:
                print(f"| {op} | {ours:.1f} | - | - |")
                continue
            theirs = cv2_ms(fn, op_img, args.repeats)
            print(f"| {op} | {ours:.1f} | {theirs:.1f} | {ours / theirs:.1f} |")


if __name__ == "__main__":
    main()
