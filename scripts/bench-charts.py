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
from results_md import GPU, label, load, sort_key  # noqa: E402

SIZE_IN = (8, 5)  # inches at DPI: 800 x 500 pixels
DPI = 100
LIMITS = ("memcpy", "gpu-copy")


def save(fig, outdir, name, title):
    fig.suptitle(title, fontsize=10)
    fig.tight_layout()
    fig.savefig(os.path.join(outdir, name), dpi=DPI)
    plt.close(fig)
    print(f"  {os.path.join(outdir, name)}")


def fastest(rows):
    """The fastest row per (backend label, case): one line per backend, best variant."""
    best = {}
    for r in rows:
        key = (label(r), r["op"], r["width"], r["height"], r["channels"], r["se"])
        if key not in best or r["median_ms"] < best[key]["median_ms"]:
            best[key] = r
    return list(best.values())


def speedup(rows, outdir, machine):
    rows = fastest([r for r in rows if r["section"] == "scaling" and r["channels"] == 4
                    and r["speedup"] and r["backend"] not in LIMITS + ("serial",)])
    ops = sorted({r["op"] for r in rows})
    if not ops:
        return
    cols = 4
    fig, axes = plt.subplots((len(ops) + cols - 1) // cols, cols, figsize=SIZE_IN, squeeze=False)
    for ax, op in zip(axes.flat, ops):
        for name in sorted({label(r) for r in rows if r["op"] == op}, key=sort_key):
            pts = sorted((r["width"] * r["height"], r["speedup"]) for r in rows
                         if r["op"] == op and label(r) == name)
            ax.plot([p[0] ** 0.5 for p in pts], [p[1] for p in pts], marker=".", label=name)
        ax.set_xscale("log", base=2)
        ax.set_yscale("log")
        ax.axhline(1, color="grey", lw=0.5)
        ax.set_title(op, fontsize=8)
        ax.tick_params(labelsize=6)
    for ax in list(axes.flat)[len(ops):]:
        ax.axis("off")
    handles, names = axes.flat[0].get_legend_handles_labels()
    fig.legend(handles, names, fontsize=6, loc="lower right")
    save(fig, outdir, "speedup.png", f"Speedup over serial (end to end) against image side, RGBA "
                                     f"- {machine}")


def se(rows, outdir, machine):
    rows = [r for r in rows if r["section"] == "se" and r["backend"] not in LIMITS]
    if not rows:
        return
    fig, axes = plt.subplots(1, 2, figsize=SIZE_IN, sharey=True)
    for ax, op in zip(axes, ("erode", "dilate")):
        for name in sorted({(label(r), r["variant"]) for r in rows if r["op"] == op},
                           key=lambda n: sort_key(n[0])):
            pts = sorted((r["se"], r["median_ms"]) for r in rows
                         if r["op"] == op and (label(r), r["variant"]) == name)
            style = "--" if name[1] == "naive" else "-"
            ax.plot([p[0] for p in pts], [p[1] for p in pts], style, marker=".",
                    label=f"{name[0]} {name[1][:12]}")
        ax.set_yscale("log")
        ax.set_xlabel("SE side (square)")
        ax.set_title(op, fontsize=9)
    axes[0].set_ylabel("median ms")
    axes[1].legend(fontsize=6)
    r0 = rows[0]
    save(fig, outdir, "se.png", f"Morphology against SE size, {r0['width']}x{r0['height']} gray "
                                f"(dashed: naive) - {machine}")


def histogram(rows, outdir, machine):
    rows = fastest([r for r in rows if r["section"] == "scaling" and r["channels"] == 4
                    and r["op"] in ("histogram", "equalize", "otsu")
                    and r["backend"] not in LIMITS])
    if not rows:
        return
    fig, axes = plt.subplots(1, 3, figsize=SIZE_IN, sharey=True)
    for ax, op in zip(axes, ("histogram", "equalize", "otsu")):
        for name in sorted({label(r) for r in rows if r["op"] == op}, key=sort_key):
            pts = sorted((r["width"], r["median_ms"], r["compute_ms"]) for r in rows
                         if r["op"] == op and label(r) == name)
            gpu = name.split()[0] in GPU
            ax.plot([p[0] for p in pts], [p[1] for p in pts], "-" if gpu else ":", marker=".",
                    label=name)
            if gpu and pts[0][2] is not None:
                ax.plot([p[0] for p in pts], [p[2] for p in pts], "--", lw=0.8,
                        label=f"{name} kernel")
        ax.set_xscale("log", base=2)
        ax.set_yscale("log")
        ax.set_title(op, fontsize=9)
        ax.set_xlabel("image side (RGBA)")
    axes[0].set_ylabel("median ms")
    axes[2].legend(fontsize=6)
    save(fig, outdir, "histogram.png", f"Histogram ops, CPU (dotted) against GPU - {machine}")


def transfer(rows, outdir, machine):
    rows = [r for r in rows if r["section"] == "scaling" and r["backend"] in ("cuda", "opencl")
            and r["compute_ms"] is not None and r["channels"] == 4]
    if not rows:
        return
    fig, ax = plt.subplots(figsize=SIZE_IN)
    for backend, marker in (("cuda", "o"), ("opencl", "s")):
        for part, color in (("compute_ms", "C0"), ("upload_ms", "C1"), ("download_ms", "C2")):
            pts = {}
            for r in rows:
                if r["backend"] == backend and r[part] is not None:
                    pts.setdefault(r["width"], []).append(r[part])
            if pts:
                xs = sorted(pts)
                ax.plot(xs, [sorted(pts[x])[len(pts[x]) // 2] for x in xs], marker=marker,
                        color=color, ls="-" if backend == "cuda" else ":",
                        label=f"{backend} {part[:-3].replace('compute', 'kernel')}")
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    ax.set_xlabel("image side (RGBA)")
    ax.set_ylabel("ms (median over the ops)")
    ax.legend(fontsize=7)
    save(fig, outdir, "transfer.png", f"Kernel against transfer time, GPU backends - {machine}")


def at_largest(rows):
    rows = [r for r in rows if r["section"] == "scaling" and r["channels"] == 4]
    if not rows:
        return [], 0
    side = max(r["width"] for r in rows)
    return [r for r in rows if r["width"] == side], side


def peers(rows, outdir, machine):
    rows, side = at_largest(rows)
    ops = sorted({r["op"] for r in rows})
    if not ops:
        return
    fig, ax = plt.subplots(figsize=SIZE_IN)
    series = {"ours, best": [], "ours, best kernel": [], "opencv": [], "npp": []}
    for op in ops:
        mine = [r for r in rows if r["op"] == op and r["backend"] not in LIMITS + ("opencv",
                "opencv-python", "npp")]
        series["ours, best"].append(min((r["median_ms"] for r in mine), default=None))
        series["ours, best kernel"].append(min((r["compute_ms"] for r in mine
                                                if r["compute_ms"] is not None), default=None))
        cv = [r["median_ms"] for r in rows if r["op"] == op and r["backend"].startswith("opencv")]
        series["opencv"].append(min(cv, default=None))
        series["npp"].append(min((r["median_ms"] for r in rows if r["op"] == op
                                  and r["backend"] == "npp"), default=None))
    width = 0.2
    for i, (name, values) in enumerate(series.items()):
        xs = [j + (i - 1.5) * width for j, v in enumerate(values) if v]
        if xs:
            ax.bar(xs, [v for v in values if v], width, label=name)
    ax.set_xticks(range(len(ops)))
    ax.set_xticklabels(ops, rotation=30, fontsize=8)
    ax.set_yscale("log")
    ax.set_ylabel("median ms")
    ax.legend(fontsize=7)
    save(fig, outdir, "peers.png", f"Our best backend against the peers, {side}x{side} RGBA "
                                   f"- {machine}")


def limit(rows, outdir, machine):
    rows, side = at_largest(rows)
    rows = fastest([r for r in rows if r["limit_fraction"] and r["backend"] not in LIMITS])
    ops = sorted({r["op"] for r in rows})
    if not ops:
        return
    names = sorted({label(r) for r in rows}, key=sort_key)
    fig, ax = plt.subplots(figsize=SIZE_IN)
    width = 0.8 / len(names)
    for i, name in enumerate(names):
        vals = {r["op"]: r["limit_fraction"] for r in rows if label(r) == name}
        xs = [j + (i - len(names) / 2) * width for j, op in enumerate(ops) if op in vals]
        ax.bar(xs, [vals[op] for op in ops if op in vals], width, label=name)
    ax.set_xticks(range(len(ops)))
    ax.set_xticklabels(ops, rotation=30, fontsize=8)
    ax.axhline(1, color="grey", lw=0.5)
    ax.set_ylabel("fraction of the copy limit")
    ax.legend(fontsize=6, ncol=2)
    save(fig, outdir, "limit.png", f"Bandwidth reached, {side}x{side} RGBA - {machine}")


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
