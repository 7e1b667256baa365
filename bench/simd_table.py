#!/usr/bin/env python3
"""The CPU kernels against OpenCV, op by op, from parfilter-bench's CSV (the `simd` section
that scripts/bench-report.sh --simd writes): at each thread count, parfilter's default kernels
(serial at 1 thread, OpenMP otherwise) and the plain loops (`scalar`) next to OpenCV (C++, else
cv2 from Python) on the same image, the ratio, and each op's bandwidth as a share of a memcpy of
the same bytes on the same threads. Standard library only.

  simd_table.py results.csv [--section simd] > simd.md
"""
import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from results_md import fmt, load, table  # noqa: E402

PEERS = ("opencv", "opencv-python")


def op_name(r):
    return r["op"] + (f" {r['se']}x{r['se']}" if r["se"] else "")


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
                    slot["scalar" if r["variant"] == "scalar" else "simd"] = r
                elif r["backend"] in PEERS:
                    slot["peer"] = r
            lines = []
            for (name, image), c in cases.items():
                simd, scalar, peer = c.get("simd"), c.get("scalar"), c.get("peer")
                ratio = (simd["median_ms"] / peer["median_ms"]
                         if simd and peer and peer["median_ms"] else None)
                share = simd["limit_fraction"] if simd else None
                lines.append([name, image,
                              fmt(simd["median_ms"]) if simd else "-",
                              fmt(scalar["median_ms"]) if scalar else "-",
                              fmt(peer["median_ms"]) if peer else "-",
                              (fmt(ratio) + ("" if ratio is None or ratio <= 1 else " (slower)")),
                              f"{share:.0%}" if share else "-"])
            out.append(f"### {machine}: {threads} thread(s), {ours} against OpenCV\n\n")
            out.append(table(["op", "image", f"{ours} (ms)", "scalar loops (ms)", "OpenCV (ms)",
                              "parfilter / OpenCV", "of memcpy"], lines) + "\n")
    sys.stdout.write("".join(out))


if __name__ == "__main__":
    main()
