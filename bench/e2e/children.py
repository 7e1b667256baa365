"""The child interpreter's tasks: the parts that need cv2 / numpy (making the inputs, the cv2
peer, PSNR; the chart is in chart.py), run by an interpreter that has them (`bench_e2e.py --child
TASK JOB`, see processes.run_child). cv2 and numpy are imported inside each task, so that the
parent, which imports this module's neighbours only, runs on the standard library alone."""
import concurrent.futures
import json
import math
import os
import resource
import statistics
import time

from chart import child_chart
from shared import JPEG_QUALITY, KSIZE, MS, NOISE, SIGMA


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


CHILDREN = {"gen": child_gen, "cv2": child_cv2, "psnr": child_psnr, "chart": child_chart}


def run_task(task, job_json):
    """--child TASK JOB: runs the task on the JSON job, prints its result as one JSON line."""
    print(json.dumps(CHILDREN[task](json.loads(job_json))))
    return 0
