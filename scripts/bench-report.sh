#!/usr/bin/env bash
# The comparison report (docs/RESULTS.md): builds parfilter-bench, runs it over a matrix of
# ops, variants, backends, image sizes, SE sizes and thread/rank counts next to the peers
# (OpenCV in C++, else cv2 from Python; NPP on a CUDA machine) and the bandwidth limits, and
# writes OUT/results.csv, OUT/results.md and OUT/charts/*.png (where matplotlib is found).
#
#   scripts/bench-report.sh [--quick | --default | --full | --simd] [--machine NAME] [--out DIR]
#                           [--ranks "1 2 4"] [--settle-ms MS] [--rounds N] [--no-build] [--no-charts]
#                           [--build-only]
#
#   --quick    a minute or two on a 2-core VM: scripts/demo.sh runs it
#   --default  (the default) a few minutes on a 2-core VM
#   --full     every section, sizes 256 to 8192 and the classic comparisons
#   --simd     the CPU kernels against OpenCV op by op (3840x2160 RGB, the histogram ops on
#              gray) at 1 thread and every core, default and scalar loops, next to memcpy:
#              OUT/simd.md (bench/simd_table.py); a few minutes
#              (about 5 minutes on a 2-core VM; about 4 on 16 cores with an H200)
#   --rounds N  with --simd: the whole matrix N times, one after the other; the table shows the
#              median over the rounds (a shared machine's noise comes in bursts)
#   --settle-ms idle time after each contender's runs (parfilter-bench's default: 20 ms)
#   --build-only  build parfilter-bench in the build dir and stop (scripts/bench-gpu-settle.sh)
#
# Sections (the CSV's section column): scaling (every op against image size), se (erode and
# dilate, naive against vhgw, against SE size), threads (thread and rank counts), classic-*
# (sharpen at 2580x1319, erosion 13x13 at 1024x1024, Gaussian on 20 images of 4096x2304).
# MPI: one `mpirun -np R parfilter-bench --backends mpi` per rank count, appended to the CSV.
# Run on a quiet machine; other load shows in the background_cores column.
# Build dir: build-bench-report/ (or $BENCH_BUILD_DIR). Dependencies in .deps/ (the GPU
# machine's carry, see scripts/gpu-check.sh) are used when present. On the GPU machine:
#   scripts/bench-report.sh --full --machine "GPU machine (H200, 16 cores)" --out $OUT/report
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build_dir="${BENCH_BUILD_DIR:-$root/build-bench-report}"
preset=default
machine=""
out_dir=""
ranks_list=""
settle_ms=""
rounds=1
build=1
build_only=0
charts=1
usage() { awk 'NR > 1 && !/^#/ { exit } NR > 1 { sub(/^# ?/, ""); print }' "${BASH_SOURCE[0]}"; }
while [[ $# -gt 0 ]]; do
  case "$1" in
    --quick | --default | --full | --simd) preset="${1#--}"; shift ;;
    --machine) machine="$2"; shift 2 ;;
    --out) out_dir="$2"; shift 2 ;;
    --ranks) ranks_list="$2"; shift 2 ;;
    --settle-ms) settle_ms="$2"; shift 2 ;;
    --rounds) rounds="$2"; shift 2 ;;
    --no-build) build=0; shift ;;
    --build-only) build_only=1; shift ;;
    --no-charts) charts=0; shift ;;
    -h | --help) usage; exit 0 ;;
    *) echo "bench-report.sh: unknown argument '$1' (see --help)" >&2; exit 2 ;;
  esac
done
cores="$(nproc)"
machine="${machine:-$(hostname) ($cores cores)}"
out_dir="${out_dir:-$build_dir/report-$preset}"
mkdir -p "$out_dir"
csv="$out_dir/results.csv"
start=$SECONDS

# ---- build: every backend this machine has; CUDA only where there is a GPU to run it.
if [[ -d "$root/.deps/usr" ]]; then
  export PKG_CONFIG_PATH="$root/.deps/usr/lib/x86_64-linux-gnu/pkgconfig:$root/.deps/usr/share/pkgconfig${PKG_CONFIG_PATH:+:$PKG_CONFIG_PATH}"
  deps=(-DCMAKE_PREFIX_PATH="$root/.deps/usr")
else
  deps=()
fi
gpu=OFF
if command -v nvidia-smi >/dev/null 2>&1 && nvidia-smi -L >/dev/null 2>&1; then
  gpu=ON
  # The NVIDIA OpenCL driver is installed but not registered on the GPU machine.
  if [[ -w /etc ]] && ldconfig -p 2>/dev/null | grep libnvidia-opencl.so.1 >/dev/null &&
     [[ ! -e /etc/OpenCL/vendors/nvidia.icd ]]; then
    mkdir -p /etc/OpenCL/vendors && echo libnvidia-opencl.so.1 >/etc/OpenCL/vendors/nvidia.icd
  fi
fi
if [[ $build -eq 1 ]]; then
  configure=(-S "$root" -B "$build_dir" -DCMAKE_BUILD_TYPE=Release -DPARFILTER_BUILD_TESTS=OFF
             -DPARFILTER_BUILD_BENCH=ON -DPARFILTER_WITH_CUDA="$gpu" "${deps[@]}")
  [[ $gpu == ON ]] && configure+=(-DCMAKE_CUDA_ARCHITECTURES="${CUDA_ARCHS:-90}")
  if [[ ! -f "$build_dir/CMakeCache.txt" ]] && command -v ninja >/dev/null 2>&1; then
    configure+=(-G Ninja)
  fi
  echo "bench-report: building parfilter-bench in ${build_dir#"$root"/}" >&2
  cmake "${configure[@]}" >"$out_dir/build.log" 2>&1 &&
    cmake --build "$build_dir" -j "$cores" --target parfilter-bench >>"$out_dir/build.log" 2>&1 ||
    { tail -n 30 "$out_dir/build.log" >&2; exit 1; }
fi
bench="$build_dir/bench/parfilter-bench"
if [[ $build_only -eq 1 ]]; then
  echo "bench-report: parfilter-bench is $bench" >&2
  exit 0
fi
rm -f "$csv"

# ---- the matrix of each preset
all_threads="$(awk -v n="$cores" 'BEGIN { s = "1"; for (t = 2; t < n; t *= 2) s = s "," t; if (n > 1) s = s "," n; print s }')"
ops="gray,gaussian,sobel,sharpen,histogram,equalize,otsu,segment,erode,dilate,pool"
case "$preset" in
  quick)
    sizes=256,1024; gray_sizes=""; se_size=512; se_list=3,9; thread_size=""
    ops="gray,gaussian,sobel,sharpen,histogram,equalize,otsu,erode,pool"
    timing=(--warmup 1 --repeats 3 --budget-ms 500); classic=0; ranks_default="2" ;;
  default)
    sizes=256,1024,2048; gray_sizes=1024; se_size=1024; se_list=3,7,15,31; thread_size=2048
    timing=(--warmup 2 --repeats 5 --budget-ms 1500); classic=0; ranks_default="1 2" ;;
  simd)
    timing=(--warmup 2 --repeats 7 --budget-ms 3000); ranks_default="" ;;
  full)
    sizes=256,512,1024,2048,4096,8192; gray_sizes=1024,4096; se_size=1024; se_list=3,7,15,31
    thread_size=4096; timing=(--warmup 2 --repeats 5 --budget-ms 2000); classic=1
    ranks_default="$(tr ',' ' ' <<<"$all_threads")" ;;
esac
ranks_list="${ranks_list:-$ranks_default}"
[[ -n "$settle_ms" ]] && timing+=(--settle-ms "$settle_ms")

# run <section> <parfilter-bench options...>: one part of the matrix, appended to the CSV.
run() {
  local name="$1"
  shift
  echo "bench-report: section $name" >&2
  "${launcher[@]}" "$bench" --section "$name" --machine "$machine" --csv "$csv" --append \
    --no-table "${timing[@]}" "$@" >>"$out_dir/bench.log"
}
launcher=()
# cv2 <section> <peers_cv2.py options...>: the Python OpenCV peer, where the C++ one is absent.
use_cv2=0
if ! "$bench" --has-opencv; then
  if python3 -c "import cv2" 2>/dev/null; then
    use_cv2=1
    echo "bench-report: OpenCV C++ not in this build: the peer is cv2 from Python" >&2
  else
    echo "bench-report: no OpenCV peer here (neither libopencv-dev nor python3 cv2)" >&2
  fi
fi
cv2() {
  local name="$1"
  shift
  [[ $use_cv2 -eq 1 ]] || return 0
  # Timed as parfilter-bench times its contenders: the same warm-up, repeats, budget and idle
  # time after each run, so that its rows compare with ours and with the memcpy limit.
  python3 "$root/bench/peers_cv2.py" --section "$name" --machine "$machine" --csv "$csv" \
    "${timing[@]}" "$@" >>"$out_dir/bench.log"
}

if [[ $preset == simd ]]; then
  simd_ops=gray,gaussian,sharpen,sobel,pool,erode,dilate
  for ((round = 1; round <= rounds; round++)); do
    for threads in 1 "$cores"; do
      run simd --backends serial,openmp --variants default,scalar --ops "$simd_ops" --se 3,15 \
        --sizes 3840x2160 --channels 3 --threads "$threads"
      cv2 simd --ops "$simd_ops" --se 3,15 --sizes 3840x2160 --channels 3 --threads "$threads"
      run simd --backends serial,openmp --variants default,scalar --ops histogram,equalize,otsu \
        --sizes 3840x2160 --channels 1 --threads "$threads"
      cv2 simd --ops histogram,equalize,otsu --sizes 3840x2160 --channels 1 --threads "$threads"
    done
  done
  python3 "$root/bench/simd_table.py" "$csv" | tee "$out_dir/simd.md"
  echo "bench-report: simd run took $((SECONDS - start)) s; results in $out_dir" >&2
  exit 0
fi
run scaling --ops "$ops" --sizes "$sizes" --channels 4 --threads "$cores"
cv2 scaling --ops "$ops" --sizes "$sizes" --channels 4 --threads "$cores"
if [[ -n "$gray_sizes" ]]; then
  run scaling --ops "$ops" --sizes "$gray_sizes" --channels 1 --threads "$cores"
  cv2 scaling --ops "$ops" --sizes "$gray_sizes" --channels 1 --threads "$cores"
fi
run se --ops erode,dilate --variants naive,vhgw --sizes "$se_size" --channels 1 --se "$se_list" \
  --threads "$cores" --min-repeats 1
cv2 se --ops erode,dilate --sizes "$se_size" --channels 1 --se "$se_list" --threads "$cores"
if [[ -n "$thread_size" ]]; then
  run threads --ops gaussian,erode --se 15 --sizes "$thread_size" --channels 4 \
    --threads "$all_threads" --backends serial,pthread,openmp --no-peers
fi
if [[ $classic -eq 1 ]]; then
  run classic-sharpen --ops sharpen --variants all --sizes 2580x1319 --channels 4 --threads "$cores"
  run classic-erode --ops erode --variants all --se 13 --sizes 1024 --channels 1 --threads "$cores"
  run classic-batch --ops gaussian --sizes 4096x2304 --channels 3 --batch 20 --threads "$cores" \
    --warmup 1 --repeats 3 --min-repeats 2 --backends serial,pthread,openmp,cuda,opencl
fi

# ---- MPI: one mpirun per rank count, the MPI backend alone (rank 0 writes the rows).
if [[ -e "$build_dir/backend_mpi/libparfilter_mpi.a" ]] && command -v mpirun >/dev/null; then
  export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
  for ranks in $ranks_list; do
    launcher=(mpirun -q -np "$ranks" --bind-to none)
    ((ranks > cores)) && launcher+=(--oversubscribe)
    run threads --backends mpi --threads 1 --ops gaussian,erode --se 15 \
      --sizes "${thread_size:-1024}" --channels 4
    if [[ $classic -eq 1 ]]; then
      run classic-batch --backends mpi --threads 1 --ops gaussian --sizes 4096x2304 --channels 3 \
        --batch 20 --warmup 1 --repeats 3
    fi
  done
  launcher=()
else
  echo "bench-report: no MPI rows (the MPI backend or mpirun is missing)" >&2
fi

# ---- results.md, printed, and the charts where some python3 has matplotlib.
python3 "$root/bench/results_md.py" "$csv" >"$out_dir/results.md"
cat "$out_dir/results.md"
if [[ $charts -eq 1 ]]; then
  plotter=""
  for py in python3 /usr/bin/python3; do
    if "$py" -c "import matplotlib" 2>/dev/null; then plotter="$py"; break; fi
  done
  if [[ -n "$plotter" ]]; then
    "$plotter" "$root/scripts/bench-charts.py" "$csv" "$out_dir/charts"
  else
    echo "bench-report: no matplotlib here (Debian: python3-matplotlib): no charts; draw them" \
      "elsewhere with scripts/bench-charts.py $csv DIR" >&2
  fi
fi
echo "bench-report: $preset run took $((SECONDS - start)) s; results in $out_dir" >&2
