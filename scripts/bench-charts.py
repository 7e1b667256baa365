#!/usr/bin/env python3
"""Charts from parfilter-bench's CSV (scripts/bench-report.sh writes it), one PNG each, about
800x500 pixels, into OUTDIR:

  speedup.png       speedup over serial against image size, per backend, one panel per op
  se.png            time against SE size for erode and dilate, naive against vhgw, per backend
  histogram.png     histogram, equalize and Otsu: CPU backends against GPU backends
  transfer.png      kernel time against upload and download time, GPU backends
  peers.png         our best backend against the peers, per op, at the largest image
  limit.png         fraction of the bandwidth limit per op at the largest image

  bench-charts.py results.csv OUTDIR [--machine SUBSTRING]

Every chart names the machine and the image; each backend keeps its colour in all of them.
Run it with an interpreter that has matplotlib (Debian: python3-matplotlib, /usr/bin/python3),
also on a CSV copied back from another machine.
"""
import argparse
import os
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "bench"))
from results_md import GPU, PEERS, label, load, sort_key  # noqa: E402

SIZE_IN = (8, 5)  # inches at DPI: 800 x 500 pixels
DPI = 100
LIMITS = ("memcpy", "gpu-copy")
KIBI = 1024  # image sides from 1024 up are ticked as 1k, 2k, ...
COLORS = {"serial": "black", "pthread": "C0", "openmp": "C1", "mpi": "C4", "opencl": "C2",
          "cuda": "C3", "opencv": "C5", "opencv-python": "C5", "npp": "C6"}
LEGEND = {"fontsize": 7, "frameon": False}
# Room for a legend, as fractions of the figure: beside (the panels end at LEGEND_ROOM), or
# below (LEGEND_BASE for the tick labels, LEGEND_LINE per line of LEGEND_COLUMNS entries).
LEGEND_ROOM = 0.75
LEGEND_GAP = 0.01
LEGEND_BASE = 0.16
LEGEND_LINE = 0.035
LEGEND_COLUMNS = 4  # half as many for labels over LEGEND_WIDE_LABEL characters
LEGEND_WIDE_LABEL = 28


def color(name):
    """The colour of a backend label ("pthread 16" -> pthread's), the same in every chart."""
    return COLORS.get(name.split()[0], "grey")


def save(fig, outdir, name, title, subtitle, legend_axes=(), below=False):
    """Titles (machine and image), layout, and one legend for the figure (every line of
    `legend_axes` once) right of the panels, or below them (`below`, for wide bar charts)."""
    fig.suptitle(f"{title}\n{subtitle}", fontsize=9)
    fig.tight_layout()
    seen = {}
    for ax in legend_axes:
        for handle, text in zip(*ax.get_legend_handles_labels()):
            seen.setdefault(text, handle)
    if seen and below:
        wide = max(len(text) for text in seen) > LEGEND_WIDE_LABEL
        ncol = min(len(seen), LEGEND_COLUMNS // 2 if wide else LEGEND_COLUMNS)
        lines = (len(seen) + ncol - 1) // ncol
        fig.legend(seen.values(), seen.keys(), loc="lower center", ncol=ncol, **LEGEND)
        fig.subplots_adjust(bottom=LEGEND_BASE + LEGEND_LINE * lines)
    elif seen:
        fig.legend(seen.values(), seen.keys(), loc="center left",
                   bbox_to_anchor=(LEGEND_ROOM, 0.5), **LEGEND)
        fig.subplots_adjust(right=LEGEND_ROOM - LEGEND_GAP)
    fig.savefig(os.path.join(outdir, name), dpi=DPI)
    plt.close(fig)
    shrink(os.path.join(outdir, name))
    print(f"  {os.path.join(outdir, name)}")


def shrink(path):
    """Rewrite the PNG with a palette of 256 colours (a chart has a dozen colours and their
    anti-aliased edges): about a third of the bytes, no visible change; the file stays as
    matplotlib wrote it where Pillow (a dependency of matplotlib) cannot be imported."""
    try:
        from PIL import Image
    except ImportError:
        return
    with Image.open(path) as image:
        small = image.convert("RGB").quantize(colors=256)
    small.save(path, optimize=True)


def sides_axis(ax, sides, text="image side, pixels (RGBA)"):
    """A log2 axis of image sides, ticked at the sides measured (256, 512, 1k, 2k, ...)."""
    ax.set_xscale("log", base=2)
    ax.set_xticks(sides)
    ax.set_xticklabels([f"{s // KIBI}k" if s >= KIBI and s % KIBI == 0 else str(s) for s in sides])
    ax.minorticks_off()
    ax.tick_params(axis="x", labelsize=7)
    if text:
        ax.set_xlabel(text, fontsize=8)


def fastest(rows):
    """The fastest row per (backend label, case): one line per backend, best variant."""
    best = {}
    for r in rows:
        key = (label(r), r["op"], r["width"], r["height"], r["channels"], r["se"])
        if key not in best or r["median_ms"] < best[key]["median_ms"]:
            best[key] = r
    return list(best.values())


def speedup(rows, outdir, machine):
    # NPP is timed on the device alone, not end to end: it has no place against serial here.
    rows = fastest([r for r in rows if r["section"] == "scaling" and r["channels"] == 4
                    and r["speedup"] and r["backend"] not in LIMITS + ("serial", "npp")])
    ops = sorted({r["op"] for r in rows})
    if not ops:
        return
    cols = 4
    sides = sorted({r["width"] for r in rows})
    fig, axes = plt.subplots((len(ops) + cols - 1) // cols, cols, figsize=SIZE_IN, squeeze=False)
    for ax, op in zip(axes.flat, ops):
        for name in sorted({label(r) for r in rows if r["op"] == op}, key=sort_key):
            pts = sorted((r["width"], r["speedup"]) for r in rows
                         if r["op"] == op and label(r) == name)
            ax.plot([p[0] for p in pts], [p[1] for p in pts], marker=".", label=name,
                    color=color(name), ls=":" if name.split()[0] in PEERS else "-")
        sides_axis(ax, sides, text="")
        ax.set_yscale("log")
        ax.axhline(1, color="grey", lw=0.5)
        ax.set_title(op, fontsize=8)
        ax.tick_params(labelsize=6)
    for ax in list(axes.flat)[len(ops):]:
        ax.axis("off")
    fig.supxlabel("image side, pixels (RGBA)", fontsize=8)
    fig.supylabel("speedup over serial, end to end (log)", fontsize=8)
    save(fig, outdir, "speedup.png", f"Speedup over serial against image size - {machine}",
         "GPU times include upload and download; dotted: the OpenCV peer", list(axes.flat))


def se(rows, outdir, machine):
    rows = [r for r in rows if r["section"] == "se" and r["backend"] not in LIMITS]
    if not rows:
        return
    fig, axes = plt.subplots(1, 2, figsize=SIZE_IN, sharey=True)
    for ax, op in zip(axes, ("erode", "dilate")):
        for name in sorted({(label(r), r["variant"]) for r in rows if r["op"] == op},
                           key=lambda n: (sort_key(n[0]), n[1])):
            pts = sorted((r["se"], r["median_ms"]) for r in rows
                         if r["op"] == op and (label(r), r["variant"]) == name)
            ax.plot([p[0] for p in pts], [p[1] for p in pts],
                    "--" if name[1] == "naive" else "-", marker=".", color=color(name[0]),
                    label=f"{name[0]} {name[1][:14]}")
        ax.set_yscale("log")
        ax.set_xticks(sorted({r["se"] for r in rows}))
        ax.set_xlabel("SE side, pixels (square SE)", fontsize=8)
        ax.set_title(op, fontsize=9)
    axes[0].set_ylabel("median ms, end to end (log)", fontsize=8)
    r0 = rows[0]
    save(fig, outdir, "se.png",
         f"Erode and dilate against SE size, {r0['width']}x{r0['height']} gray - {machine}",
         "dashed: naive (reads every SE pixel); solid: van Herk/Gil-Werman, or the peer's own",
         axes)


def histogram(rows, outdir, machine):
    rows = fastest([r for r in rows if r["section"] == "scaling" and r["channels"] == 4
                    and r["op"] in ("histogram", "equalize", "otsu")
                    and r["backend"] not in LIMITS])
    if not rows:
        return
    sides = sorted({r["width"] for r in rows})
    fig, axes = plt.subplots(1, 3, figsize=SIZE_IN, sharey=True)
    for ax, op in zip(axes, ("histogram", "equalize", "otsu")):
        for name in sorted({label(r) for r in rows if r["op"] == op}, key=sort_key):
            pts = sorted((r["width"], r["median_ms"], r["compute_ms"]) for r in rows
                         if r["op"] == op and label(r) == name)
            gpu = name.split()[0] in GPU
            if name.split()[0] != "npp":  # NPP has a kernel time only
                ax.plot([p[0] for p in pts], [p[1] for p in pts], "-" if gpu else ":",
                        marker=".", color=color(name), label=name)
            if gpu and pts[0][2] is not None:
                ax.plot([p[0] for p in pts], [p[2] for p in pts], "--", lw=0.8,
                        color=color(name), label=f"{name} kernel")
        sides_axis(ax, sides)
        ax.set_yscale("log")
        ax.set_title(op, fontsize=9)
    axes[0].set_ylabel("median ms (log)", fontsize=8)
    save(fig, outdir, "histogram.png", f"Histogram, equalize and Otsu, CPU against GPU - {machine}",
         "dotted: CPU, end to end; solid: GPU end to end; dashed: GPU kernel alone", axes)


def transfer(rows, outdir, machine):
    rows = [r for r in rows if r["section"] == "scaling" and r["backend"] in ("cuda", "opencl")
            and r["compute_ms"] is not None and r["channels"] == 4]
    if not rows:
        return
    fig, ax = plt.subplots(figsize=SIZE_IN)
    for backend, marker in (("cuda", "o"), ("opencl", "s")):
        for part, style in (("compute_ms", "-"), ("upload_ms", "--"), ("download_ms", ":")):
            pts = {}
            for r in rows:
                if r["backend"] == backend and r[part] is not None:
                    pts.setdefault(r["width"], []).append(r[part])
            if pts:
                xs = sorted(pts)
                ax.plot(xs, [sorted(pts[x])[len(pts[x]) // 2] for x in xs], marker=marker,
                        color=color(backend), ls=style,
                        label=f"{backend} {part[:-3].replace('compute', 'kernel')}")
    sides_axis(ax, sorted({r["width"] for r in rows}))
    ax.set_yscale("log")
    ax.set_ylabel("ms, median over the ops (log)", fontsize=8)
    save(fig, outdir, "transfer.png", f"Kernel against transfer time, GPU backends - {machine}",
         "solid: kernel; dashed: upload (host to device); dotted: download", [ax])


def at_largest(rows):
    """The scaling section's RGBA rows at the largest image (no limit rows), and its side."""
    rows = [r for r in rows if r["section"] == "scaling" and r["channels"] == 4
            and r["backend"] not in LIMITS]
    if not rows:
        return [], 0
    side = max(r["width"] for r in rows)
    return [r for r in rows if r["width"] == side], side


def peers(rows, outdir, machine):
    rows, side = at_largest(rows)
    ops = sorted({r["op"] for r in rows})
    if not ops:
        return
    mine = [r for r in rows if r["backend"] not in PEERS]
    opencv = [r for r in rows if r["backend"].startswith("opencv")]
    series = (  # (legend, colour, rows, time column)
        ("ours, best end to end (backend on the bar)", "C0", mine, "median_ms"),
        ("ours, best OpenCL/CUDA kernel alone", "C3", [r for r in mine if r["compute_ms"]], "compute_ms"),
        (f"OpenCV ({label(opencv[0])} threads), end to end" if opencv else "OpenCV", color("opencv"), opencv,
         "median_ms"),
        ("NPP, kernel alone", color("npp"), [r for r in rows if r["backend"] == "npp"],
         "compute_ms"),
    )
    fig, ax = plt.subplots(figsize=SIZE_IN)
    width = 0.8 / len(series)
    for i, (name, colour, chosen, column) in enumerate(series):
        best = {}
        for r in chosen:
            if r[column] and (r["op"] not in best or r[column] < best[r["op"]][column]):
                best[r["op"]] = r
        xs = [j + (i - (len(series) - 1) / 2) * width for j, op in enumerate(ops) if op in best]
        if not xs:
            continue
        values = [best[op][column] for op in ops if op in best]
        ax.bar(xs, values, width, label=name, color=colour)
        if i == 0:  # which backend is our best, on its bar
            for x, op, v in zip(xs, [op for op in ops if op in best], values):
                ax.text(x, v, f" {label(best[op])}", rotation=90, ha="center", va="bottom",
                        fontsize=6)
    ax.set_xticks(range(len(ops)))
    ax.set_xticklabels(ops, rotation=30, fontsize=8)
    ax.set_yscale("log")
    ax.set_ylabel("median ms (log)", fontsize=8)
    ax.margins(y=0.25)
    save(fig, outdir, "peers.png", f"Our best backend against the peers, {side}x{side} RGBA - "
         f"{machine}", "end to end against OpenCV on the CPU; kernels alone against NPP's, where NPP is", [ax],
         below=True)


def limit(rows, outdir, machine):
    rows, side = at_largest(rows)
    rows = fastest([r for r in rows if r["limit_fraction"]])
    ops = sorted({r["op"] for r in rows})
    if not ops:
        return
    names = sorted({label(r) for r in rows}, key=sort_key)
    fig, ax = plt.subplots(figsize=SIZE_IN)
    width = 0.8 / len(names)
    for i, name in enumerate(names):
        vals = {r["op"]: r for r in rows if label(r) == name}
        on_gpu = any((r["limit"] or "").startswith("gpu-copy") for r in vals.values())
        xs = [j + (i - (len(names) - 1) / 2) * width for j, op in enumerate(ops) if op in vals]
        ax.bar(xs, [vals[op]["limit_fraction"] for op in ops if op in vals], width,
               color=color(name), hatch="//" if on_gpu else None, edgecolor="white", lw=0,
               label=f"{name}: " + ("kernel / device copy" if on_gpu else "run / memcpy"))
    ax.set_xticks(range(len(ops)))
    ax.set_xticklabels(ops, rotation=30, fontsize=8)
    ax.axhline(1, color="grey", lw=0.5)
    ax.set_ylabel("bytes in + out per second / copy's (1 = as fast as a copy)", fontsize=8)
    save(fig, outdir, "limit.png", f"Fraction of the bandwidth limit, {side}x{side} RGBA - "
         f"{machine}", "CPU: run / fastest memcpy on as many threads or fewer; "
         "GPU (hatched): kernel / device-to-device copy", [ax], below=True)


def main():
    parser = argparse.ArgumentParser(description="charts from parfilter-bench's CSV")
    parser.add_argument("csv")
    parser.add_argument("outdir")
    parser.add_argument("--machine", default="", help="only rows whose machine contains this")
    args = parser.parse_args()
    rows = [r for r in load(args.csv) if args.machine in r["machine"] and r["median_ms"]]
    if not rows:
        sys.exit("bench-charts: no rows")
    os.makedirs(args.outdir, exist_ok=True)
    machine = rows[0]["machine"]
    for chart in (speedup, se, histogram, transfer, peers, limit):
        chart(rows, args.outdir, machine)


if __name__ == "__main__":
    main()
