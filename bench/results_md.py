#!/usr/bin/env python3
"""results.md from parfilter-bench's CSV (merged over sections, MPI rank counts and the cv2
peer): readable tables per machine. Standard library only, so that it runs wherever the
benchmark does; scripts/bench-charts.py draws the charts from the same rows (load()).

  results_md.py results.csv > results.md
"""
import csv
import sys
from collections import OrderedDict

GPU = ("cuda", "opencl", "npp")
PEERS = ("opencv", "opencv-python", "npp")
# NPP is timed on the device alone (bench_npp.cu: no upload, no download, no host work), so its
# rows are kernel times: they get no speedup over serial (which is end to end) and no end-to-end
# cell, and its column says so. Its calls that do only part of our op (Sobel's horizontal pass
# alone on a ready gray plane; the histogram of a ready gray plane, a quarter of our bytes and
# no gray conversion) stay in the CSV for reference but are left out of the tables and charts,
# where "the fastest variant" would otherwise pick them.
KERNEL_ONLY = ("npp",)
NPP_PARTIAL = ("alone (gray in)", "(gray plane in)")
ORDER = ("serial", "pthread", "openmp", "mpi", "opencl", "cuda", "opencv", "opencv-python", "npp")


def num(text):
    return float(text) if text not in ("", None) else None


def load(path):
    """The CSV's rows, with numbers parsed, limits filled in for rows measured without one
    (MPI ranks, the cv2 peer: the memcpy row of the same image at that many threads) and the
    speedup over serial (same section, case and variant, else the section's serial default;
    none for kernel-only rows) added. NPP's partial calls (NPP_PARTIAL) are left out."""
    with open(path, newline="") as f:
        rows = [r for r in csv.DictReader(f) if r["machine"] != "machine"
                and not (r["backend"] == "npp" and any(p in r["variant"] for p in NPP_PARTIAL))]
    for r in rows:
        for k in ("width", "height", "channels", "se", "threads", "ranks", "batch", "repeats"):
            r[k] = int(r[k] or 0)
        for k in ("median_ms", "min_ms", "max_ms", "compute_ms", "upload_ms", "download_ms",
                  "bytes", "gbs", "limit_gbs", "limit_fraction", "background_cores"):
            r[k] = num(r[k])
        r["workers"] = r["threads"] * r["ranks"]
    copies = [r for r in rows if r["backend"] == "memcpy"]
    for r in rows:
        if r["limit_gbs"] is None and r["backend"] not in GPU:
            best = cpu_limit(copies, r)
            if best:
                r["limit_gbs"] = best["limit_gbs"]
                r["limit"] = best["limit"]
                if r["gbs"] and r["limit_gbs"]:
                    r["limit_fraction"] = r["gbs"] / r["limit_gbs"]
    serial = {}  # per section: the SE section's serial vhgw is not the scaling table's serial
    for r in rows:
        if r["backend"] == "serial":
            serial.setdefault((r["section"],) + case(r) + (r["variant"],), r)
            serial.setdefault((r["section"],) + case(r), r)
    for r in rows:
        key = (r["section"],) + case(r)
        base = serial.get(key + (r["variant"],)) or serial.get(key)
        r["speedup"] = (base["median_ms"] / r["median_ms"]
                        if base and r["median_ms"] and r["backend"] not in KERNEL_ONLY else None)
    return rows


def cpu_limit(copies, r):
    """The CPU limit of a row measured without one (MPI ranks, the cv2 peer), as parfilter-bench
    defines it (bench/bench_limits.hpp): the fastest memcpy row of the same machine and image
    on at most as many threads as the row's workers (threads x ranks); None if there is none."""
    same = [c for c in copies if (c["machine"], c["width"], c["height"], c["channels"]) ==
            (r["machine"], r["width"], r["height"], r["channels"])]
    fit = [c for c in same if c["threads"] <= max(1, r["threads"] * r["ranks"])]
    return max(fit, key=lambda c: c["limit_gbs"] or 0.0, default=None)


def case(r):
    return (r["machine"], r["op"], r["width"], r["height"], r["channels"], r["se"], r["batch"])


def label(r):
    """The backend with its worker count: pthread 16, mpi 8x1."""
    if r["backend"] == "mpi":
        return f"mpi {r['ranks']}x{r['threads']}"
    if r["backend"] in ("pthread", "openmp", "opencv", "opencv-python"):
        return f"{r['backend']} {r['threads']}"
    return r["backend"]


def sort_key(name):
    head = name.split()[0]
    rank = ORDER.index(head) if head in ORDER else len(ORDER)
    tail = name.split()[1] if len(name.split()) > 1 else "0"
    return (rank, int(tail.split("x")[0]) if tail.split("x")[0].isdigit() else 0, name)


def fmt(value, digits=2):
    if value is None:
        return "-"
    if abs(value) >= 100:
        return f"{value:.0f}"
    return f"{value:.{digits}f}" if abs(value) >= 1 else f"{value:.3f}"


def table(head, lines):
    out = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    out += ["| " + " | ".join(str(c) for c in line) + " |" for line in lines]
    return "\n".join(out) + "\n"


def size(r):
    return f"{r['width']}x{r['height']}x{r['channels']}"


def pivot(rows, cell):
    """Rows: one per case; columns: one per backend label; each cell: cell(row)."""
    cols, grid = [], OrderedDict()
    for r in rows:
        name = label(r) + (" (kernel only)" if r["backend"] in KERNEL_ONLY else "")
        if name not in cols:
            cols.append(name)
        key = (r["op"] + (f" {r['se']}x{r['se']}" if r["se"] else ""), size(r))
        grid.setdefault(key, {})
        prev = grid[key].get(name)
        if prev is None or (r["median_ms"] or 1e18) < (prev["median_ms"] or 1e18):
            grid[key][name] = r  # the fastest variant
    cols.sort(key=sort_key)
    lines = [[k[0], k[1]] + [cell(v[c]) if c in v else "" for c in cols] for k, v in grid.items()]
    return table(["op", "image"] + cols, lines)


def scaling_cell(r):
    return f"{fmt(r['median_ms'])} ({fmt(r['speedup'])}x)" if r["speedup"] else fmt(r["median_ms"])


def section(rows, name, title, text, cell=scaling_cell):
    chosen = [r for r in rows if r["section"] == name and r["backend"] not in ("memcpy", "gpu-copy")]
    if not chosen:
        return ""
    return f"### {title}\n\n{text}\n\n" + pivot(chosen, cell) + "\n"


def machine_report(rows, machine):
    rows = [r for r in rows if r["machine"] == machine]
    out = [f"## {machine}\n"]
    limits = [r for r in rows if r["backend"] in ("memcpy", "gpu-copy")]
    if limits:
        big = max(limits, key=lambda r: (r["bytes"], r["threads"]))
        out.append("Bandwidth limits (read + write): " + ", ".join(sorted(
            {f"{r['limit']} {fmt(r['limit_gbs'])} GB/s at {size(r)}" for r in limits
             if r["bytes"] == big["bytes"]})) + ".\n")
    out.append(section(rows, "scaling", "Every op against image size",
                       "Median end-to-end ms of one call (transfers included on the GPU), "
                       "speedup over serial in brackets; the fastest variant asked for. NPP's "
                       "column is its kernel time alone (the image already on the device), "
                       "to be read against the kernel column of the GPU table below, not "
                       "against the end-to-end times here."))
    out.append(section(rows, "scaling", "Fraction of the bandwidth limit",
                       "Bytes in + out over the op's own time (kernel time on the GPU), as a "
                       "fraction of the copy limit of the same bytes: on the CPU the fastest "
                       "memcpy on at most the same threads, on the GPU a device-to-device copy. "
                       "Above 1 can occur where the image fits in the caches or the op writes "
                       "less than it reads (docs/RESULTS.md).",
                       lambda r: fmt(r["limit_fraction"])))
    gpu = [r for r in rows if r["backend"] in ("cuda", "opencl") and r["compute_ms"] is not None
           and r["section"] == "scaling"]
    if gpu:
        lines = [[r["backend"], r["op"], r["variant"], size(r), fmt(r["upload_ms"]),
                  fmt(r["compute_ms"]), fmt(r["download_ms"]), fmt(r["median_ms"])] for r in gpu]
        out.append("### Kernel against transfer (GPU backends)\n\n" + table(
            ["backend", "op", "variant", "image", "upload ms", "kernel ms", "download ms",
             "end to end ms"], lines) + "\n")
    out.append(section(rows, "se", "Erode and dilate against SE size",
                       "Median ms; naive against van Herk/Gil-Werman (vhgw), fastest shown per "
                       "backend; the CSV has both.", lambda r: f"{fmt(r['median_ms'])} {r['variant']}"))
    out.append(section(rows, "threads", "Thread and rank counts", "Median ms (speedup over serial)."))
    for name, title in (("classic-sharpen", "Classic: sharpen at 2580x1319 RGBA"),
                        ("classic-erode", "Classic: erosion, 13x13 SE, 1024x1024"),
                        ("classic-batch", "Classic: Gaussian 5x5 on 20 images of 4096x2304")):
        chosen = [r for r in rows if r["section"] == name and r["backend"] not in ("memcpy", "gpu-copy")]
        if chosen:
            lines = [[label(r), r["variant"],
                      "- (kernel only)" if r["backend"] in KERNEL_ONLY else fmt(r["median_ms"]),
                      fmt(r["compute_ms"]), fmt(r["speedup"])]
                     for r in sorted(chosen, key=lambda r: sort_key(label(r)))]
            out.append(f"### {title}\n\n" + table(
                ["backend", "variant", "end to end ms", "kernel ms (MPI: slowest rank's compute)",
                 "speedup over serial"],
                lines) + "\n")
    notes = sorted({r["note"] for r in rows if r["note"]})
    if notes:
        out.append("Notes: " + "; ".join(notes) + ".\n")
    return "\n".join(o for o in out if o)


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: results_md.py results.csv")
    rows = load(sys.argv[1])
    machines = list(OrderedDict.fromkeys(r["machine"] for r in rows))
    print("# parfilter benchmark results\n")
    print("Generated by scripts/bench-report.sh (parfilter-bench, bench/results_md.py).\n")
    for m in machines:
        print(machine_report(rows, m))


if __name__ == "__main__":
    main()
