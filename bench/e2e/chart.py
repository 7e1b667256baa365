"""The wall-time chart (OUT/wall.png): child_chart draws it in a child interpreter that has
matplotlib (imported inside, as the parent runs on the standard library alone); draw_chart, in
the parent, finds that interpreter and says why there is no chart where there is none."""
import csv
import os

from processes import python_with, run_child
from shared import ORDER


def child_chart(job):
    """Grouped bars of wall time: one panel per case (single image at 1 thread, single image on
    all cores, batch on all cores), formats on the x axis, one bar per contender (the faster
    strategy of each peer in the batch panel)."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    with open(job["csv"], newline="") as f:
        rows = [r for r in csv.DictReader(f) if r["wall_ms"]]
    cores = str(job["cores"])
    panels = [("single image, 1 thread", lambda r: r["mode"] == "single" and r["threads"] == "1"),
              (f"single image, {cores} cores",
               lambda r: r["mode"] == "single" and r["threads"] == cores),
              (f"batch of {job['batch']}, {cores} cores", lambda r: r["mode"] == "batch")]
    if cores == "1":
        panels = [panels[0], panels[2]]
    formats = [f for f in job["formats"] if any(r["format"] == f for r in rows)]
    fig, axes = plt.subplots(1, len(panels), figsize=(6.5 * len(panels), 4.8), squeeze=False)
    palette = plt.get_cmap("tab10")
    names = ORDER + ("cv2", "vips")
    for ax, (title, keep) in zip(axes[0], panels):
        best = {}  # (label, format) -> wall ms, the faster strategy of each peer
        for r in rows:
            if not keep(r) or "first batch" in r["backend"]:  # the warm pool is the peer
                continue
            # cv2 / vips (either batch strategy) under one name; parfilter under its backend's.
            label = r["backend"].split()[0] if r["tool"] != "parfilter" else r["backend"]
            key = (label, r["format"])
            best[key] = min(best.get(key, float("inf")), float(r["wall_ms"]))
        labels = sorted({k[0] for k in best},
                        key=lambda n: (names.index(n) if n in names else len(names), n))
        width = 0.8 / max(1, len(labels))
        for i, label in enumerate(labels):
            xs = [j + (i - (len(labels) - 1) / 2) * width for j in range(len(formats))]
            ys = [best.get((label, f), float("nan")) for f in formats]
            hatch = "//" if label in ("cv2", "vips") else None
            colour = palette(names.index(label) if label in names else 8 + i % 2)
            ax.bar(xs, ys, width, label=label, color=colour, hatch=hatch)
        ax.set_xticks(range(len(formats)))
        ax.set_xticklabels([f.upper() for f in formats])
        ax.set_title(title)
        ax.set_yscale("log")  # mpirun's and vips' process start next to milliseconds
        ax.set_ylabel("wall time (ms, log scale, lower is better)")
        ax.grid(axis="y", alpha=0.3)
        ax.legend(fontsize="small")
    fig.suptitle(job["title"])
    fig.tight_layout()
    fig.savefig(job["png"], dpi=110)
    return {"chart": job["png"]}


def draw_chart(ctx, csv_path, chart, no_chart):
    """Draws `chart` from the CSV at `csv_path` (an older chart is removed first); returns its
    path, or None with the reason in ctx.chart_why."""
    ctx.chart_why = ""
    if os.path.exists(chart):
        os.remove(chart)
    if no_chart:
        chart, ctx.chart_why = None, "--no-chart"
    else:
        mpl_py = python_with(["matplotlib"])
        if not mpl_py:
            chart, ctx.chart_why = None, "no python3 here imports matplotlib (Debian: " \
                                         "python3-matplotlib)"
        else:
            res, proc = run_child(mpl_py, "chart", {
                "csv": csv_path, "png": chart, "cores": ctx.cores, "batch": ctx.batch,
                "formats": ctx.formats, "title": f"gaussian 5x5, file to file, "
                                                 f"{ctx.width}x{ctx.height} RGB"})
            if res is None:
                chart, ctx.chart_why = None, f"matplotlib failed: {proc.why()}"
    return chart
