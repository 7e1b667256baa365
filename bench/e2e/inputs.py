"""The inputs: OUT/inputs/<W>x<H>/img_NN.<fmt>, made once and kept between runs. With cv2 (in a
child interpreter): data/*.png and data/*.jpg resized plus noise; without it: synthetic PNGs
written here with zlib, converted by parfilter itself into the other formats."""
import glob
import json
import os
import random
import struct
import zlib

from processes import Proc, run_child
from shared import JPEG_QUALITY, NOISE, ROOT, SEED, log, rel


def png_bytes(width, height, rows):
    def chunk(kind, data):
        return (struct.pack(">I", len(data)) + kind + data +
                struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF))
    raw = b"".join(b"\x00" + r for r in rows)
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 2, 0,
                                                               0, 0)) +
            chunk(b"IDAT", zlib.compress(raw, 6)) + chunk(b"IEND", b""))


def synthetic_rows(width, height, seed):
    """Without cv2: gradients, tiles and noise in [0, 7], with C-speed bytes operations."""
    rng = random.Random(seed)
    n = width * 3
    base = bytes((x * 255 // max(1, width - 1) + 85 * c) % 256 for x in range(width)
                 for c in range(3))
    noise = rng.randbytes(n + 4099).translate(bytes(v & 7 for v in range(256)))
    rows = []
    for y in range(height):
        lift = (y * 200 // max(1, height - 1) + (96 if (y // 64) % 2 else 0)) % 256
        row = base.translate(bytes((v + lift) % 256 for v in range(256)))
        off = (y * 4099) % 4096
        rows.append((int.from_bytes(row, "big") ^
                     int.from_bytes(noise[off:off + n], "big")).to_bytes(n, "big"))
    return rows


def make_inputs(ctx):
    """ctx.inputs_dir/img_NN.<fmt> for every format; kept between runs (inputs.json says how
    they were made; a different recipe makes them again)."""
    d = ctx.inputs_dir
    sources = sorted(glob.glob(os.path.join(ROOT, "data", "*.png")) +
                     glob.glob(os.path.join(ROOT, "data", "*.jpg")))
    recipe = {"width": ctx.width, "height": ctx.height, "seed": SEED, "noise": NOISE,
              "sources": [os.path.basename(s) for s in sources],
              "maker": "cv2" if ctx.cv2_py and sources else "synthetic (no cv2)"}
    count = max(1, ctx.batch)
    wanted = [os.path.join(d, f"img_{i:02d}.{fmt}") for i in range(count) for fmt in ctx.formats]
    manifest = os.path.join(d, "inputs.json")
    try:
        with open(manifest) as f:
            if json.load(f) == recipe and all(os.path.exists(p) for p in wanted):
                log(f"inputs: {count} x {ctx.width}x{ctx.height} in {rel(d)} (kept)")
                return recipe
    except (OSError, ValueError):
        pass
    os.makedirs(d, exist_ok=True)
    for stale in glob.glob(os.path.join(d, "img_*")):
        os.remove(stale)
    log(f"inputs: making {count} x {ctx.width}x{ctx.height} ({', '.join(ctx.formats)}) "
        f"in {rel(d)}")
    if ctx.cv2_py and sources:
        res, proc = run_child(ctx.cv2_py, "gen", {
            "sources": sources, "out_dir": d, "width": ctx.width, "height": ctx.height,
            "count": count, "seed": SEED, "formats": list(ctx.formats)})
        if res is None:
            raise SystemExit(f"bench-e2e: making the inputs failed: {proc.why()}")
    else:
        # No cv2: synthetic PNGs, converted by parfilter itself (gaussian with a tiny sigma has
        # the weights 0 0 256 0 0: an exact copy) into JPEG (quality 95) and BMP.
        conv = next((b for b in ctx.backends if b.name != "mpi"), None)
        for i in range(count):
            png = os.path.join(d, f"img_{i:02d}.png")
            with open(png, "wb") as f:
                f.write(png_bytes(ctx.width, ctx.height, synthetic_rows(ctx.width, ctx.height,
                                                                        SEED + i)))
            for fmt in ctx.formats:
                if fmt == "png":
                    continue
                if conv is None:
                    raise SystemExit("bench-e2e: neither cv2 nor a parfilter backend to make "
                                     f"{fmt} inputs")
                p = Proc([conv.exe, "gaussian", "--sigma", "0.01", "--jpeg-quality",
                          str(JPEG_QUALITY), png, os.path.join(d, f"img_{i:02d}.{fmt}")])
                if p.rc != 0:
                    raise SystemExit(f"bench-e2e: converting {png} to {fmt}: {p.why()}")
    with open(manifest, "w") as f:
        json.dump(recipe, f)
    return recipe
