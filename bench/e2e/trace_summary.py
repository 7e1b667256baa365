#!/usr/bin/env python3
"""Summarizes a batch trace (PARFILTER_TRACE=FILE parfilter-<backend> ... --out-dir ...): per
stage, how many ran and how long each took (median, slowest, sum); then a timeline in --bin ms
steps with how many of each stage ran at once (the mean over the step), which shows where a
batch waits: decodes that finish together, computes in a line, a tail of encodes.

  trace_summary.py TRACE.csv [--bin MS]
"""
import argparse
import csv
import statistics

STAGES = ("decode", "wait", "compute", "encode")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("trace")
    parser.add_argument("--bin", type=float, default=10.0, help="timeline step, ms (default 10)")
    args = parser.parse_args()
    with open(args.trace, newline="") as f:
        events = [(r["stage"], float(r["start_ms"]), float(r["end_ms"]), r["thread"])
                  for r in csv.DictReader(f)]
    if not events:
        print("no events")
        return
    end = max(e[2] for e in events)
    print(f"span {end:.1f} ms, {len({e[3] for e in events})} threads recorded")
    print(f"{'stage':8} {'count':>5} {'median ms':>10} {'max ms':>8} {'sum ms':>9} "
          f"{'first start':>11} {'last end':>9}")
    for stage in STAGES:
        spans = [e for e in events if e[0] == stage]
        if not spans:
            continue
        lengths = [e[2] - e[1] for e in spans]
        print(f"{stage:8} {len(spans):5d} {statistics.median(lengths):10.2f} {max(lengths):8.2f} "
              f"{sum(lengths):9.1f} {min(e[1] for e in spans):11.1f} "
              f"{max(e[2] for e in spans):9.1f}")
    print(f"\nat once, per {args.bin:g} ms (mean over the step):")
    print(f"{'from ms':>8} " + " ".join(f"{s:>8}" for s in STAGES))
    t = 0.0
    while t < end:
        step_end = t + args.bin
        busy = []
        for stage in STAGES:
            overlap = sum(max(0.0, min(e[2], step_end) - max(e[1], t))
                          for e in events if e[0] == stage)
            busy.append(overlap / args.bin)
        print(f"{t:8.0f} " + " ".join(f"{b:8.1f}" for b in busy))
        t = step_end


if __name__ == "__main__":
    main()
