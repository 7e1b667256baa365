#!/usr/bin/env bash
# Peak memory and time, file to file, of parfilter against libvips on images larger than a
# strip: gaussian, sobel, erode 15x15 and equalize on a SIDE x SIDE gray PNG, BMP and 16-bit
# TIFF, the growth of peak RSS with the height (x1, x2, x4), and parfilter-mpi's per-rank RSS
# under mpirun -np 2 and 4. Medians of --runs runs after one warm-up (the file cache),
# /usr/bin/time's elapsed seconds and maximum resident set size; libvips runs with as many
# threads as parfilter (VIPS_CONCURRENCY). The images are generated with vips (blurred noise).
#
#   scripts/bench-memory.sh [--side N] [--runs N] [--threads N] [--build DIR] [--out DIR]
#
# Writes $OUT/memory.md (the tables) and $OUT/memory.csv (every run).
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
side=16000
runs=3
threads="$(nproc)"
build="$root/build"
out="$root/out/bench-memory"
while [[ $# -gt 0 ]]; do
  case "$1" in
    --side) side="$2"; shift 2 ;;
    --runs) runs="$2"; shift 2 ;;
    --threads) threads="$2"; shift 2 ;;
    --build) build="$2"; shift 2 ;;
    --out) out="$2"; shift 2 ;;
    *) echo "usage: $0 [--side N] [--runs N] [--threads N] [--build DIR] [--out DIR]" >&2; exit 2 ;;
  esac
done
command -v vips >/dev/null || { echo "bench-memory.sh: needs vips (libvips-tools)" >&2; exit 2; }
parfilter="$build/backend_openmp/parfilter-openmp"
mpi="$build/backend_mpi/parfilter-mpi"
[[ -x "$parfilter" ]] || { echo "bench-memory.sh: no $parfilter (build first)" >&2; exit 2; }
mkdir -p "$out"
work="$(mktemp -d "${TMPDIR:-/tmp}/bench-memory.XXXXXX")"
trap 'rm -rf "$work"' EXIT
export VIPS_CONCURRENCY="$threads" OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1

# ---- inputs: blurred noise, the same pixels in every format --------------------------------
make_inputs() {  # <height> <suffix>
  local h="$1" s="$2"
  vips gaussnoise "$work/n.v" "$side" "$h" --mean 128 --sigma 40
  vips gaussblur "$work/n.v" "$work/b.v" 2
  vips cast "$work/b.v" "$work/g$s.v" uchar
  vips pngsave "$work/g$s.v" "$work/gray$s.png" --compression 1
  vips linear "$work/g$s.v" "$work/w.v" 257 0
  vips cast "$work/w.v" "$work/w16.v" ushort
  vips tiffsave "$work/w16.v" "$work/gray16$s.tif" --compression deflate
  rm -f "$work/n.v" "$work/b.v" "$work/w.v" "$work/w16.v"
}
make_inputs "$side" ""
vips bmpsave "$work/g.v" "$work/gray.bmp" 2>/dev/null ||
  "$parfilter" gray --max-memory 64g "$work/gray.png" "$work/gray.bmp"
rm -f "$work/g.v"

# parfilter's exact 5x5 kernel and a 15x15 element, as libvips matrices.
python3 - "$work" <<'EOF'
import math, sys
work = sys.argv[1]
g = [math.exp(-(i * i) / (2 * 1.5 * 1.5)) for i in range(-2, 3)]
q = [math.floor(256 * x / sum(g) + 0.5) for x in g]
q[2] += 256 - sum(q)
with open(f"{work}/gauss.mat", "w") as f:
    f.write(f"5 5 {sum(q) ** 2} 0\n" + "".join(" ".join(str(a * b) for b in q) + "\n" for a in q))
with open(f"{work}/rect15.mat", "w") as f:
    f.write("15 15\n" + "".join(" ".join(["255"] * 15) + "\n" for _ in range(15)))
EOF

# ---- one measured command: the median seconds and KiB of $runs runs after a warm-up --------
echo "tool,op,input,seconds,max_rss_kib" >"$out/memory.csv"
measure() {  # <tool> <op> <input> <command...>; prints "seconds kib"
  local tool="$1" op="$2" input="$3"
  shift 3
  "$@" >/dev/null 2>&1 || { echo "bench-memory.sh: failed: $*" >&2; exit 1; }
  local times=() rss=()
  for ((i = 0; i < runs; i++)); do
    read -r t m < <(/usr/bin/time -f "%e %M" "$@" 2>&1 >/dev/null | tail -n 1)
    times+=("$t"); rss+=("$m")
    echo "$tool,$op,$input,$t,$m" >>"$out/memory.csv"
  done
  printf '%s %s\n' "$(printf '%s\n' "${times[@]}" | sort -g | sed -n "$(((runs + 1) / 2))p")" \
    "$(printf '%s\n' "${rss[@]}" | sort -g | sed -n "$(((runs + 1) / 2))p")"
}

vips_command() {  # <op> <input> <output>
  case "$1" in
    gaussian) echo vips conv "$2" "$3" "$work/gauss.mat" --precision integer ;;
    sobel) echo vips sobel "$2" "$3" ;;
    erode) echo vips morph "$2" "$3" "$work/rect15.mat" erode ;;
    equalize) echo vips hist_equal "$2" "$3" ;;
  esac
}
parfilter_args() {  # <op>
  case "$1" in
    erode) echo erode --se rect:15x15 ;;
    *) echo "$1" ;;
  esac
}

{
  echo "# Peak memory against libvips: ${side}x${side} gray, $threads threads"
  echo
  echo "$(uname -n), $(nproc) cores, $(vips --version), parfilter $(git -C "$root" rev-parse --short HEAD)."
  echo "Medians of $runs runs after a warm-up; file to file (PNG at level 1 both, TIFF Deflate:"
  echo "parfilter's level 1, libvips's 6; libvips cannot read a BMP this large)."
  echo "vips sobel, morph and hist_equal are libvips's own ops, not parfilter's exact ones."
  echo
  echo "| input | op | parfilter-openmp s | vips s | time ratio | parfilter MiB | vips MiB | output size ratio |"
  echo "| --- | --- | --- | --- | --- | --- | --- | --- |"
} >"$out/memory.md"
for input in gray.png gray.bmp gray16.tif; do
  ext="${input##*.}"
  for op in gaussian sobel erode equalize; do
    read -r ps pm < <(measure parfilter "$op" "$input" "$parfilter" $(parfilter_args "$op") \
      --quiet "$work/$input" "$work/p.$ext")
    target="$work/v.$ext"
    [[ $ext == png ]] && target="$work/v.png[compression=1]"
    [[ $ext == tif ]] && target="$work/v.tif[compression=deflate]"
    if [[ $ext == bmp ]]; then
      # libvips reads BMP through ImageMagick, which refuses images this large.
      printf '| %s | %s | %s | - | - | %d | - | - |\n' "$input" "$op" "$ps" "$((pm / 1024))" \
        >>"$out/memory.md"
      continue
    fi
    read -r vs vm < <(measure vips "$op" "$input" $(vips_command "$op" "$work/$input" "$target"))
    size_ratio="$(python3 -c "import os; print(f'{os.path.getsize(\"$work/p.$ext\") / os.path.getsize(\"$work/v.$ext\"):.2f}')")"
    printf '| %s | %s | %s | %s | %.2f | %d | %d | %s |\n' "$input" "$op" "$ps" "$vs" \
      "$(python3 -c "print($ps / $vs)")" "$((pm / 1024))" "$((vm / 1024))" "$size_ratio" \
      >>"$out/memory.md"
  done
done

# The TIFF at libvips's own Deflate level, for the sizes side by side.
read -r ps pm < <(measure parfilter gaussian-level6 gray16.tif "$parfilter" gaussian --tiff-level 6 \
  --quiet "$work/gray16.tif" "$work/p.tif")
vips conv "$work/gray16.tif" "$work/v.tif[compression=deflate]" "$work/gauss.mat" --precision integer
printf '| gray16.tif | gaussian --tiff-level 6 | %s | | | %d | | %s |\n' "$ps" "$((pm / 1024))" \
  "$(python3 -c "import os; print(f'{os.path.getsize(\"$work/p.tif\") / os.path.getsize(\"$work/v.tif\"):.2f}')")" \
  >>"$out/memory.md"

# ---- growth with the height: x1, x2, x4 --------------------------------------------------
make_inputs "$((2 * side))" "x2"
make_inputs "$((4 * side))" "x4"
rm -f "$work"/g*.v
{
  echo
  echo "Peak RSS (MiB) as the height grows (PNG input):"
  echo
  echo "| op | tool | x1 | x2 | x4 |"
  echo "| --- | --- | --- | --- | --- |"
} >>"$out/memory.md"
for op in gaussian equalize; do
  row_p="| $op | parfilter-openmp |"
  row_v="| $op | vips |"
  for s in "" x2 x4; do
    read -r _ pm < <(measure parfilter "$op" "gray$s.png" "$parfilter" "$op" --quiet \
      "$work/gray$s.png" "$work/p.png")
    read -r _ vm < <(measure vips "$op" "gray$s.png" $(vips_command "$op" "$work/gray$s.png" \
      "$work/v.png[compression=1]"))
    row_p+=" $((pm / 1024)) |"
    row_v+=" $((vm / 1024)) |"
  done
  echo "$row_p" >>"$out/memory.md"
  echo "$row_v" >>"$out/memory.md"
done

# ---- parfilter-mpi: every rank's peak RSS ----------------------------------------------------
# PNG to PNG: the root reads and writes, the ranks get and give strips; BMP to BMP: every rank
# reads and writes its own rows (one host: the files are shared).
if [[ -x "$mpi" ]] && command -v mpirun >/dev/null; then
  {
    echo
    echo "parfilter-mpi gaussian, every rank's peak RSS (MiB) and the run's elapsed seconds:"
    echo
    echo "| file | ranks | per-rank MiB | s | output identical to parfilter-serial's |"
    echo "| --- | --- | --- | --- | --- |"
  } >>"$out/memory.md"
  for ext in png bmp; do
    "$build/backend_serial/parfilter-serial" gaussian --quiet "$work/gray.$ext" "$work/serial.$ext"
    for np in 2 4; do
      rm -f "$work"/rss.*
      # Each rank's own /usr/bin/time, into a file named by its rank.
      start_s="$(date +%s.%N)"
      mpirun --oversubscribe -np "$np" sh -c '/usr/bin/time -f %M -o "$0/rss.$OMPI_COMM_WORLD_RANK" "$@"' \
        "$work" "$mpi" gaussian --quiet "$work/gray.$ext" "$work/mpi.$ext"
      seconds="$(echo "$(date +%s.%N) - $start_s" | bc)"
      rss="$(for f in "$work"/rss.*; do printf '%d ' "$(($(tail -n 1 "$f") / 1024))"; done)"
      same=no
      cmp -s "$work/serial.$ext" "$work/mpi.$ext" && same=yes
      printf '| gray.%s | %d | %s| %.2f | %s |\n' "$ext" "$np" "$rss" "$seconds" "$same" >>"$out/memory.md"
    done
  done
fi
cat "$out/memory.md"
