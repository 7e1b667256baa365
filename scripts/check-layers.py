#!/usr/bin/env python3
"""Checks that the include graph follows the layers of docs/ARCHITECTURE.md.

- common/ is layered: io < spec < backend < pipeline, kernels < cli. A file may include files
  of its own layer or of a lower one, never a higher one (public headers in
  common/include/parfilter/ count as their layer's).
- common/ includes nothing of the backends, the benchmarks or the tests.
- No backend includes anything from bench/ (benchmarks use backends, not the reverse), nor
  another backend's files, except the documented hybrid: the MPI backend's ranks use the
  OpenMP scheduler.
- No file-level include cycle.

  scripts/check-layers.py [repository root]     exit 0 when clean, 1 with one line per finding
"""
import os
import re
import sys

SOURCE = re.compile(r"\.(cpp|hpp|cu|cuh|h)$")
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)
LAYERS = {"io": 0, "spec": 1, "backend": 2, "pipeline": 3, "kernels": 3, "cli": 4}
PUBLIC_LAYER = {
    "image.hpp": "io", "image_io.hpp": "io", "error.hpp": "io", "histogram_output.hpp": "cli",
    "op_set.hpp": "spec", "backend.hpp": "backend", "pipeline.hpp": "pipeline", "cli.hpp": "cli",
    "row_stream.hpp": "io", "strip_plan.hpp": "pipeline", "strip_pipeline.hpp": "pipeline",
    "image_rows.hpp": "io", "host_buffer_pool.hpp": "backend", "in_flight_ring.hpp": "backend",
}
ALLOWED_CROSS_BACKEND = {("backend_mpi", "backend_openmp")}
SKIPPED = ("build", ".git", ".deps", "out")


def area(path):
    """('common', layer) for common/, (top-level folder, None) otherwise."""
    parts = path.split(os.sep)
    if parts[0] == "common":
        if parts[1] == "include":
            return "common", PUBLIC_LAYER.get(parts[-1], "io")
        return "common", parts[1]
    return parts[0], None


def main():
    root = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else
                           os.path.join(os.path.dirname(__file__), ".."))
    files = []
    for directory, subdirs, names in os.walk(root):
        rel = os.path.relpath(directory, root)
        # Build trees anywhere (python/build/ is pip's), not only at the top.
        if rel != "." and (rel.split(os.sep)[0].startswith(SKIPPED) or
                           os.path.basename(rel).startswith("build")):
            subdirs[:] = []
            continue
        files += [os.path.normpath(os.path.join(rel, n)) for n in names if SOURCE.search(n)]
    by_name = {}
    for f in files:
        by_name.setdefault(os.path.basename(f), []).append(f)
        if "include" + os.sep in f:
            by_name.setdefault(f.split("include" + os.sep, 1)[1], []).append(f)

    def resolve(source, included):
        local = os.path.normpath(os.path.join(os.path.dirname(source), included))
        if local in files:
            return local
        found = by_name.get(included) or by_name.get(os.path.basename(included)) or []
        # Prefer a file of the same top-level folder (a backend's own header).
        same = [f for f in found if f.split(os.sep)[0] == source.split(os.sep)[0]]
        return (same or found or [None])[0]

    graph = {}
    findings = []
    for f in files:
        with open(os.path.join(root, f), encoding="utf-8", errors="replace") as handle:
            text = handle.read()
        graph[f] = []
        for included in INCLUDE.findall(text):
            target = resolve(f, included)
            if target is None:
                continue
            graph[f].append(target)
            src_top, src_layer = area(f)
            dst_top, dst_layer = area(target)
            if src_top.startswith("backend_") and dst_top == "bench":
                findings.append(f"{f}: a backend includes bench/ ({target})")
            if src_top == "common" and dst_top != "common":
                findings.append(f"{f}: common/ includes {dst_top}/ ({target})")
            if (src_top.startswith("backend_") and dst_top.startswith("backend_")
                    and src_top != dst_top and (src_top, dst_top) not in ALLOWED_CROSS_BACKEND):
                findings.append(f"{f}: one backend includes another's file ({target})")
            if src_top == dst_top == "common" and src_layer in LAYERS and dst_layer in LAYERS:
                if LAYERS[dst_layer] > LAYERS[src_layer]:
                    findings.append(f"{f}: layer {src_layer} includes the higher layer "
                                    f"{dst_layer} ({target})")
    state = {}

    def visit(node, path):
        state[node] = "open"
        for nxt in graph.get(node, []):
            if state.get(nxt) == "open":
                cycle = path[path.index(nxt):] + [nxt] if nxt in path else [node, nxt]
                findings.append("include cycle: " + " -> ".join(cycle))
            elif nxt not in state:
                visit(nxt, path + [nxt])
        state[node] = "done"

    for f in sorted(files):
        if f not in state:
            visit(f, [f])
    for line in findings:
        print("check-layers: " + line)
    print(f"check-layers: {len(files)} files, {sum(len(v) for v in graph.values())} includes, "
          f"{len(findings)} finding(s)")
    return 1 if findings else 0


if __name__ == "__main__":
    sys.exit(main())
