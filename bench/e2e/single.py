"""One image per contender (parfilter's backends, cv2, vips) at 1 thread and all cores, with
parfilter's --timing split; the process start of each tool alone; the PSNR column."""
import os

from contenders import digest, level_options, vips_env, vips_target
from processes import Proc, run_child, stage_split, timed_runs
from shared import CSV_COLUMNS, GPU_BACKENDS, JPEG_QUALITY, PNG_LEVEL, log, row


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


def bench_parfilter_defaults(ctx, fmt, src, work):
    """Where --png-level / --jpeg-quality are not parfilter's defaults: the size of its output at
    the defaults (for the comparison with cv2's defaults), as a size-only row."""
    if (ctx.png_level, ctx.jpeg_quality) == (PNG_LEVEL, JPEG_QUALITY) or not ctx.backends:
        return []
    out = os.path.join(work, f"pf-defaults.{fmt}")
    p = Proc([ctx.backends[0].exe, "gaussian", src, out])
    if p.rc != 0:
        return []
    return [row("parfilter", "defaults", fmt, "single", "", out_bytes=os.path.getsize(out),
                note="size only")]


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
