"""The results: OUT/results.csv (one row per measurement, CSV_COLUMNS) and OUT/results.md (the
machine, how each contender is measured, a table per format and for the batch, and the checks:
PNG save, JPEG quality, output sizes at default parameters, same pixels on every backend)."""
import csv
import os
import platform
import shutil

from contenders import level_options
from processes import Proc
from shared import CSV_COLUMNS, MS, NOISE, SEED, SIGMA, rel


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
            peers = [r for r in group if r["tool"] == tool and "first batch" not in r["backend"]]
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
