#!/usr/bin/env python3
"""The Python module against cv2 and scikit-image, same threads, in one run:

1. per-call overhead: one op on a 64x64 image (median of many calls after a warm-up);
2. throughput: each op on 4096x2304 gray and RGB, median of --repeats after a warm-up.

Every parfilter result is checked equal to its peer's where the peer is exact (gray, erode,
dilate); elsewhere the peers compute other formulas and only the time is compared.

    python bench/python/bench_python.py [--threads N] [--repeats R] [--backend openmp]
                                        [--small-only] [--rounds K]
"""

from __future__ import annotations

import argparse
import os
import statistics
import time

import numpy as np

import parfilter

try:
    import cv2
except ImportError:  # the peer is optional
    cv2 = None
try:
    import skimage.filters
    import skimage.morphology
    import skimage.color
except ImportError:
    skimage = None


def median_ms(fn, repeats: int) -> float:
    fn()  # warm-up
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        times.append((time.perf_counter() - start) * 1e3)
    return statistics.median(times)


def cases(img: np.ndarray, backend: str, threads: int | None):
    """(op, parfilter call, cv2 call or None, skimage call or None) for one image."""
    rgb = img.ndim == 3
    kernel = np.ones((3, 3), np.uint8)
    gray_in = cv2.cvtColor(img, cv2.COLOR_RGB2GRAY) if (rgb and cv2) else img
    pf = dict(backend=backend, threads=threads)
    out = [
        ("gaussian", lambda: parfilter.gaussian(img, **pf),
         cv2 and (lambda: cv2.GaussianBlur(img, (0, 0), 1.5, borderType=cv2.BORDER_REPLICATE)),
         skimage and (lambda: skimage.filters.gaussian(img, sigma=1.5, channel_axis=-1 if rgb else None))),
        ("sobel", lambda: parfilter.sobel(img, **pf),
         cv2 and (lambda: cv2.Sobel(img, cv2.CV_16S, 1, 0)), skimage and (lambda: skimage.filters.sobel(img))),
        ("erode 3x3", lambda: parfilter.erode(img, **pf), cv2 and (lambda: cv2.erode(img, kernel)),
         skimage and not rgb and (lambda: skimage.morphology.erosion(img, np.ones((3, 3), bool)))),
        ("equalize", lambda: parfilter.equalize(img if not rgb else gray_in, **pf),
         cv2 and (lambda: cv2.equalizeHist(gray_in)), None),
        ("otsu", lambda: parfilter.otsu(gray_in, **pf),
         cv2 and (lambda: cv2.threshold(gray_in, 0, 255, cv2.THRESH_BINARY + cv2.THRESH_OTSU)),
         skimage and (lambda: gray_in > skimage.filters.threshold_otsu(gray_in))),
    ]
    if rgb:
        out.insert(0, ("gray", lambda: parfilter.gray(img, **pf),
                       cv2 and (lambda: cv2.cvtColor(img, cv2.COLOR_RGB2GRAY)),
                       skimage and (lambda: skimage.color.rgb2gray(img))))
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--threads", type=int, default=os.cpu_count())
    parser.add_argument("--repeats", type=int, default=7)
    parser.add_argument("--backend", default=parfilter.DEFAULT_BACKEND)
    parser.add_argument("--small-only", action="store_true", help="the per-call table alone")
    parser.add_argument("--rounds", type=int, default=1,
                        help="per-call medians taken this many times, interleaved, on a busy machine: "
                             "the table gives the median of the rounds and their spread")
    args = parser.parse_args()
    if cv2:
        cv2.setNumThreads(args.threads)
    rng = np.random.default_rng(0)

    print(f"# parfilter {parfilter.__version__} ({args.backend}), cv2 {cv2.__version__ if cv2 else '-'}, "
          f"threads {args.threads}, median ms")
    small = rng.integers(0, 256, (64, 64), np.uint8)
    print(f"\n## per-call overhead, 64x64 gray\n\n| op | {args.backend} | serial | cv2 | ratio |"
          "\n| --- | --- | --- | --- | --- |")
    # The calls as a user writes them: threads left to parfilter (one thread on an image this
    # small), and serial for comparison.
    serial = cases(small, "serial", None)
    for (op, pf, peer, _), (_, pf_serial, _, _) in zip(cases(small, args.backend, None), serial):
        rounds = [(median_ms(pf, 1000), median_ms(pf_serial, 1000),
                   median_ms(peer, 1000) if peer else float("nan")) for _ in range(args.rounds)]
        ours, alone, theirs = (statistics.median(r[i] for r in rounds) for i in range(3))
        spread = "" if args.rounds == 1 else " (" + ", ".join(
            f"{min(r[i] for r in rounds) * 1e3:.1f}-{max(r[i] for r in rounds) * 1e3:.1f}" for i in range(3)) + ")"
        print(f"| {op} | {ours * 1e3:.1f} us | {alone * 1e3:.1f} us | {theirs * 1e3:.1f} us | "
              f"{ours / theirs:.2f} |{spread}")
    if args.small_only:
        return

    for name, shape in (("gray", (2304, 4096)), ("RGB", (2304, 4096, 3))):
        img = rng.integers(0, 256, shape, np.uint8)
        print(f"\n## throughput, 4096x2304 {name}\n\n| op | parfilter | cv2 | skimage | / cv2 |\n"
              "| --- | --- | --- | --- | --- |")
        for op, pf, peer, sk in cases(img, args.backend, args.threads):
            ours = median_ms(pf, args.repeats)
            theirs = median_ms(peer, args.repeats) if peer else float("nan")
            skt = median_ms(sk, max(1, args.repeats // 3)) if sk else float("nan")
            print(f"| {op} | {ours:.2f} | {theirs:.2f} | {skt:.1f} | {ours / theirs:.2f} |")
        if cv2:
            assert np.array_equal(parfilter.erode(img, se="rect:3x3"), cv2.erode(img, np.ones((3, 3), np.uint8)))
    gpu_section(args.repeats)


def gpu_section(repeats: int) -> None:
    """CuPy arrays on the cuda backend (DLPack, no host round trip) against NumPy arrays on the
    same backend (upload and download each call) and cupyx.scipy.ndimage, 4096x2304 gray."""
    try:
        import cupy
        import cupyx.scipy.ndimage as ndimage
    except ImportError:
        return
    if not any(b["name"] == "cuda" and b["available"] for b in parfilter.backends()):
        return
    host = np.random.default_rng(1).integers(0, 256, (2304, 4096), np.uint8)
    dev = cupy.asarray(host)

    def synced(fn):
        def run():
            fn()
            cupy.cuda.get_current_stream().synchronize()
        return run

    print("\n## GPU, 4096x2304 gray: CuPy arrays (DLPack) and NumPy arrays on the cuda backend\n\n"
          "| op | CuPy array | NumPy array | cupyx.scipy.ndimage |\n| --- | --- | --- | --- |")
    peers = {"gaussian": lambda: ndimage.gaussian_filter(dev, 1.5, truncate=1.4, mode="nearest"),
             "sobel": lambda: ndimage.sobel(dev),
             "erode 3x3": lambda: ndimage.grey_erosion(dev, size=(3, 3))}
    for op, call in (("gaussian", parfilter.gaussian), ("sobel", parfilter.sobel),
                     ("erode 3x3", parfilter.erode)):
        on_device = median_ms(synced(lambda: call(dev)), repeats)
        from_host = median_ms(lambda: call(host, backend="cuda"), repeats)
        peer = median_ms(synced(peers[op]), repeats)
        assert np.array_equal(cupy.asnumpy(call(dev)), call(host, backend="serial"))
        print(f"| {op} | {on_device:.3f} | {from_host:.3f} | {peer:.3f} |")


if __name__ == "__main__":
    main()
