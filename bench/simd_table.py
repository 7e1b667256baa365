#!/usr/bin/env python3
"""The CPU kernels against OpenCV, op by op, from parfilter-bench's CSV (the `simd` section
that scripts/bench-report.sh --simd writes): at each thread count, parfilter's default kernels
(serial at 1 thread, OpenMP otherwise) and the plain loops (`scalar`) next to OpenCV (C++, else
cv2 from Python) on the same image, the ratio, and each op's bandwidth as a share of a memcpy of
the same bytes on the same threads. A CSV with several runs of the matrix (bench-report.sh
--simd --rounds N) gives each time and share as the median over the runs. Standard library only.

  simd_table.py results.csv [--section simd] > simd.md
"""
import argparse
import os
import statistics
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from results_md import fmt, load, table  # noqa: E402

PEERS = ("opencv", "opencv-python")


def op_name(r):
    return r["op"] + (f" {r['se']}x{r['se']}" if r["se"] else "")


def median_of(runs, field):
    """The median of a field over the runs of one case (None without runs)."""
    values = [r[field] for r in runs if r.get(field) is not None]
    return statistics.median(values) if values else None


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("csv")
    parser.add_argument("--section", default="simd")
    args = parser.parse_args()
    rows = [r for r in load(args.csv) if r["section"] == args.section]
    out = []
    for machine in dict.fromkeys(r["machine"] for r in rows):
        mine = [r for r in rows if r["machine"] == machine]
        for threads in sorted({r["threads"] for r in mine if r["backend"] != "memcpy"}):
            ours = "serial" if threads == 1 else "openmp"
            cases = {}
            for r in mine:
                if r["threads"] != threads or r["backend"] == "memcpy":
                    continue
                key = (op_name(r), f"{r['width']}x{r['height']}x{r['channels']}")
                slot = cases.setdefault(key, {})
                if r["backend"] == ours:
                    slot.setdefault("scalar" if r["variant"] == "scalar" else "simd", []).append(r)
                elif r["backend"] in PEERS:
                    slot.setdefault("peer", []).append(r)
            lines = []
            runs = 0
            for (name, image), c in cases.items():
                simd_ms, scalar_ms, peer_ms = (median_of(c.get(k, []), "median_ms")
                                               for k in ("simd", "scalar", "peer"))
                runs = max(runs, len(c.get("simd", [])))
                ratio = simd_ms / peer_ms if simd_ms and peer_ms else None
                share = median_of(c.get("simd", []), "limit_fraction")
                lines.append([name, image, fmt(simd_ms) if simd_ms else "-",
                              fmt(scalar_ms) if scalar_ms else "-", fmt(peer_ms) if peer_ms else "-",
                              (fmt(ratio) + ("" if ratio is None or ratio <= 1 else " (slower)")),
                              f"{share:.0%}" if share else "-"])
            over = f" (medians of {runs} runs)" if runs > 1 else ""
            out.append(f"### {machine}: {threads} thread(s), {ours} against OpenCV{over}\n\n")
            out.append(table(["op", "image", f"{ours} (ms)", "scalar loops (ms)", "OpenCV (ms)",
                              "parfilter / OpenCV", "of memcpy"], lines) + "\n")
    sys.stdout.write("".join(out))


if __name__ == "__main__":
    main()
