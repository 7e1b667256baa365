"""A batch of images on all cores: parfilter --out-dir over the batch, and cv2 and vips both ways
(a pool of single-threaded workers, and one image at a time on all threads)."""
import concurrent.futures
import os
import shutil
import statistics
import time

from contenders import level_options, vips_env, vips_target
from processes import Proc, run_child, timed_runs
from shared import MS, log, row


def batch_sizes(files):
    return sum(os.path.getsize(p) for p in files if os.path.exists(p))


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
    if ctx.use_cv2:
        # The pool's first batch in a fresh interpreter (its start and `import cv2` excluded),
        # as a script run once meets it: its threads, libraries and pages are new, as
        # parfilter's are in every run; the warm pool above reuses them from batch to batch.
        out_dir = os.path.join(work, "batch-cv2-first")
        os.makedirs(out_dir, exist_ok=True)
        job = {"inputs": inputs, "out_dir": out_dir, "ext": fmt, "threads": 1,
               "workers": ctx.cores, "strategy": "pool", "png_level": ctx.png_level,
               "jpeg_quality": ctx.jpeg_quality, "warmup": 0, "repeats": 1}
        firsts = [run_child(ctx.cv2_py, "cv2", job) for _ in range(max(ctx.repeats, 1))]
        done = [res for res, _ in firsts if res is not None]
        if len(done) == len(firsts):
            rows.append(row("opencv", "cv2 pool, first batch", fmt, "batch", ctx.cores,
                            wall_ms=statistics.median(r["wall_ms"] for r in done),
                            out_bytes=done[0]["out_bytes"],
                            peak_rss_kb=max(r["peak_rss_kb"] for r in done),
                            note=f"a fresh interpreter per run, median of {len(done)}; "
                                 "not a candidate for (faster)"))
            log(f"{fmt} batch cv2 pool, first batch: {rows[-1]['wall_ms']:.1f} ms")
        else:
            ctx.skip(f"cv2 batch {fmt} first batch: failed: "
                     f"{next(p for res, p in firsts if res is None).why()}")
        shutil.rmtree(out_dir, ignore_errors=True)
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
