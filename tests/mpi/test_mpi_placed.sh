#!/usr/bin/env bash
# parfilter-mpi on one image in strips where every rank reads and writes its own rows (the
# files shared: --files-on every-rank, or auto on one host; uncompressed output): the bytes
# parfilter-serial writes, at rank counts from 1 to more than the output's rows, for chains of
# band steps (a pool first included), 8 and 16 bits, PNM, BMP and TIFF input; a corrupt
# strip or a failed write ends every rank with one line naming the rank that met it, and
# leaves no output and no temporary.
#
#   test_mpi_placed.sh <parfilter-mpi> <parfilter-serial> <data dir> <mpiexec> [mpiexec flag...]
set -uo pipefail

readonly time_bound_s=60
# shellcheck source=mpi_cli_lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/mpi_cli_lib.sh"

# ---- inputs: 8-bit gray and RGB, 16-bit gray, a 1x1 and a 7x1 image --------------------------
"$serial_exe" gray "$data/coins.png" "$work/gray.pgm"
"$serial_exe" sharpen "$data/camera.png" "$work/camera.bmp"
"$serial_exe" pool "$data/astronaut.png" "$work/rgb.ppm"
"$serial_exe" gray --depth 16 "$data/coins.png" "$work/deep.tif"
"$serial_exe" gray --depth 16 "$data/coins.png" "$work/deep.pgm"
printf 'P5\n1 1\n255\n\x80' >"$work/1x1.pgm"
printf 'P5\n7 1\n255\n\x01\x20\x40\xff\x00\x90\x33' >"$work/7x1.pgm"

# ---- the serial backend's bytes --------------------------------------------------------------
chains=("gaussian,sobel" "pool,open --se ellipse:7x5" "sharpen,erode --iterations 2 --se rect:3x5")
check() {  # check <ranks> <input> <output extension>
  local ranks="$1" input="$2" ext="$3" chain
  for chain in "${chains[@]}"; do
    read -ra op_args <<<"$chain"
    local what="$chain on $(basename "$input") to .$ext, $ranks ranks"
    run_mpi "$ranks" "${op_args[@]}" --strip-rows 3 --files-on every-rank "$input" "$work/mpi.$ext"
    expect_rc 0 "$what"
    "$serial_exe" "${op_args[@]}" "$input" "$work/serial.$ext"
    same_file "$work/mpi.$ext" "$work/serial.$ext" "$what"
  done
}
for ranks in 1 3; do
  check "$ranks" "$work/gray.pgm" pgm
  check "$ranks" "$work/camera.bmp" bmp
  check "$ranks" "$work/rgb.ppm" ppm
  check "$ranks" "$work/deep.tif" pgm
done
check 2 "$work/deep.pgm" pgm
check 2 "$work/rgb.ppm" bmp
check 5 "$work/1x1.pgm" pgm
check 5 "$work/7x1.pgm" bmp
# --depth: every rank converts its own rows.
run_mpi 3 gaussian --depth 16 --strip-rows 3 --files-on every-rank "$work/gray.pgm" "$work/mpi.pgm"
"$serial_exe" gaussian --depth 16 "$work/gray.pgm" "$work/serial.pgm"
cmp -s "$work/mpi.pgm" "$work/serial.pgm" || fail "--depth 16 on 3 ranks: not the serial backend's bytes"

# ---- a two-page TIFF: its first page, and the note that says so once (the root), not once a rank
python3 - "$work/pages.tif" <<'PY'
import struct, sys
width, height, pages = 40, 30, 2
out = bytearray(b"II*\0" + struct.pack("<I", 8))
for page in range(pages):
    entries = 9
    ifd = len(out)
    pixels = ifd + 2 + 12 * entries + 4
    next_ifd = pixels + width * height if page + 1 < pages else 0
    tags = [(256, 3, width), (257, 3, height), (258, 3, 8), (259, 3, 1), (262, 3, 1),
            (273, 4, pixels), (277, 3, 1), (278, 3, height), (279, 4, width * height)]
    out += struct.pack("<H", entries)
    for tag, kind, value in tags:
        out += struct.pack("<HHI", tag, kind, 1) + struct.pack("<I", value)
    out += struct.pack("<I", next_ifd)
    out += bytes((x * 7 + y * 3 + page * 50) % 256 for y in range(height) for x in range(width))
open(sys.argv[1], "wb").write(out)
PY
run_mpi 3 gaussian --strip-rows 4 --files-on every-rank "$work/pages.tif" "$work/pages.pgm"
expect_rc 0 "a two-page TIFF"
[[ $(wc -l <"$work/stderr") -eq 1 ]] && grep -q "a multi-page TIFF" "$work/stderr" ||
  fail "a two-page TIFF: not one note: $(cat "$work/stderr")"
"$serial_exe" gaussian "$work/pages.tif" "$work/serial.pgm" 2>/dev/null
same_file "$work/pages.pgm" "$work/serial.pgm" "a two-page TIFF"

# ---- a corrupt last strip: the last rank alone meets it, and says so once --------------------
# A 16-bit TIFF of 7 strips (32 rows of 8 KiB each), the last one's bytes overwritten, the IFD
# left whole: the file opens, its last rows cannot be decoded.
python3 -c 'import os, sys; sys.stdout.buffer.write(b"P5\n4096 200\n65535\n" + os.urandom(4096 * 200 * 2))' \
  >"$work/wide.pgm"
"$serial_exe" gray "$work/wide.pgm" "$work/wide.tif"
python3 - "$work/wide.tif" "$work/corrupt.tif" <<'PY'
import struct, sys
data = bytearray(open(sys.argv[1], "rb").read())
order = "<" if data[:2] == b"II" else ">"
ifd = struct.unpack_from(order + "I", data, 4)[0]
entries = {}
for i in range(struct.unpack_from(order + "H", data, ifd)[0]):
    tag, kind, count = struct.unpack_from(order + "HHI", data, ifd + 2 + 12 * i)
    entries[tag] = (kind, count, ifd + 2 + 12 * i + 8)
def values(tag):
    kind, count, at = entries[tag]
    code, size = {3: ("H", 2), 4: ("I", 4)}[kind]
    if count * size > 4:
        at = struct.unpack_from(order + "I", data, at)[0]
    return struct.unpack_from(order + code * count, data, at)
offset, length = values(273)[-1], values(279)[-1]  # the last strip's offset and bytes
data[offset:offset + length] = b"\xff" * length
open(sys.argv[2], "wb").write(data)
PY
run_mpi 3 gaussian --strip-rows 4 --files-on every-rank "$work/corrupt.tif" "$work/out.pgm"
expect_rc 2 "a corrupt last strip"
expect_one_error "a corrupt last strip" "corrupt.tif.*(rank 2 on host "
no_output_left "a corrupt last strip" "$work/out.pgm"

# ---- a write over the file-size limit: one line, exit 1, nothing left ------------------------
mkdir "$work/limited"
timeout "$time_bound_s" "${mpiexec[@]}" -n 3 --mca btl tcp,self bash -c \
  "ulimit -f 100; exec '$mpi_exe' gaussian --strip-rows 8 --files-on every-rank \
   '$work/rgb.ppm' '$work/limited/out.ppm'" >"$work/stdout" 2>"$work/stderr"
rc=$?
expect_rc 1 "a write over the file-size limit"
expect_one_error "a write over the file-size limit" "out.ppm: cannot write.*(rank [12] on host "
no_output_left "a write over the file-size limit" "$work/limited/out.ppm"

finish "parfilter-mpi, every rank its own rows: all checks passed"
