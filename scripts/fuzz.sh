#!/usr/bin/env bash
# Builds the libFuzzer targets (clang, ASan + UBSan, PARFILTER_BUILD_FUZZERS=ON) and runs each for
# a bounded time, keeping the corpus it grows for the next run. docs/HARDENING.md has the results.
#
#   scripts/fuzz.sh [TARGET...]      TARGET: load_image, load_tiff, cli_args (default: all, one after
#                                    the other)
#
#   FUZZ_SECONDS=600                 run time per target
#   FUZZ_BUILD_DIR=build-fuzz        the instrumented build
#   FUZZ_CORPUS_DIR=<build>/corpus   the kept corpus, one directory per target (outside git)
#   FUZZ_RSS_MB=4096 FUZZ_TIMEOUT=10 libFuzzer's -rss_limit_mb and per-input -timeout (seconds)
#   FUZZ_VALGRIND=1                  then replay the loader's corpus under valgrind (0: skip)
#
# ASan cannot see a decoder reading uninitialized heap memory (stb_image 2.27 did: its state is
# malloc'ed, not zeroed), and MSan needs an instrumented C++ library: so the loader's corpus is
# also replayed, uninstrumented, under valgrind (build: <build>/plain, log: logs/valgrind.log).
#
# Seeds (read, never written): tests/fuzz/seeds/<target>/, tests/regressions/ and, for the loader,
# data/ and ../shared/bmpsuite/. A crash, leak, timeout or out-of-memory stops that target and is
# written to <build>/findings/<target>/; the script then exits 1. Logs: <build>/logs/<target>.log.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build_dir="${FUZZ_BUILD_DIR:-$root/build-fuzz}"
corpus_root="${FUZZ_CORPUS_DIR:-$build_dir/corpus}"
seconds="${FUZZ_SECONDS:-600}"
rss_mb="${FUZZ_RSS_MB:-4096}"
timeout_s="${FUZZ_TIMEOUT:-10}"
shared="$root/../shared"
# Inputs are capped at 64 KiB, the size of the largest BMP Suite file: small inputs keep the
# executions fast; the larger data/ images are read truncated to it (their headers still count).
image_max_len=65536

targets=("$@")
[[ ${#targets[@]} -gt 0 ]] || targets=(load_image load_tiff cli_args)
for target in "${targets[@]}"; do
  case "$target" in
    load_image | load_tiff | cli_args) ;;
    *) echo "fuzz.sh: unknown target '$target' (load_image, load_tiff, cli_args)" >&2 && exit 2 ;;
  esac
done

"$root/scripts/install-deps.sh" build fuzz
clang="$(command -v clang++-14 || command -v clang++ || true)"
if [[ -z "$clang" ]]; then
  echo "fuzz.sh: needs clang++ with libFuzzer (Debian: clang-14 libclang-rt-14-dev)" >&2
  exit 1
fi

common_args=(-DCMAKE_BUILD_TYPE=RelWithDebInfo "-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=-O1 -g"
  -DPARFILTER_BUILD_BENCH=OFF -DPARFILTER_WITH_OPENCV_ORACLE=OFF)
for backend in PTHREAD OPENMP MPI CUDA OPENCL; do  # the fuzz targets need none of them
  common_args+=("-DPARFILTER_WITH_$backend=OFF")
done
configure_args=(-S "$root" -B "$build_dir" "${common_args[@]}"
  -DPARFILTER_BUILD_FUZZERS=ON -DPARFILTER_BUILD_TESTS=OFF)
# The compiler is chosen once: changing it later would make CMake discard the cache.
[[ -f "$build_dir/CMakeCache.txt" ]] || configure_args+=(-G Ninja -DCMAKE_CXX_COMPILER="$clang")
cmake "${configure_args[@]}" >/dev/null
cmake --build "$build_dir" -j "$(nproc)" --target "${targets[@]/#/fuzz_}"

# seed_dirs <target>: the existing read-only seed directories of a target.
seed_dirs() {
  local candidates=("$root/tests/fuzz/seeds/$1")
  if [[ "$1" == load_image ]]; then
    candidates+=("$root/tests/regressions" "$root/data" "$shared/bmpsuite")
  fi
  for dir in "${candidates[@]}"; do
    [[ -d "$dir" ]] && echo "$dir"
  done
  return 0
}

failed=()
for target in "${targets[@]}"; do
  corpus="$corpus_root/$target"
  findings="$build_dir/findings/$target"
  log="$build_dir/logs/$target.log"
  mkdir -p "$corpus" "$findings" "$(dirname "$log")"
  options=(-max_total_time="$seconds" -rss_limit_mb="$rss_mb" -timeout="$timeout_s"
    -print_final_stats=1 -artifact_prefix="$findings/")
  case "$target" in
    load_image | load_tiff)
      options+=(-dict="$root/tests/fuzz/dict/image.dict" -max_len="$image_max_len") ;;
    cli_args) options+=(-dict="$root/tests/fuzz/dict/cli.dict") ;;
  esac
  mapfile -t seeds < <(seed_dirs "$target")
  echo "fuzz.sh: $target for ${seconds}s (log: $log)"
  if "$build_dir/tests/fuzz/fuzz_$target" "${options[@]}" "$corpus" "${seeds[@]}" >"$log" 2>&1; then
    status="clean"
  else
    status="FOUND A PROBLEM (see $findings and the log)"
    failed+=("$target")
  fi
  # The last progress line (executions, coverage, features, corpus) and the final statistics.
  grep -E '^#[0-9]+[[:space:]]+(DONE|pulse|NEW|REDUCE|INITED)' "$log" | tail -n 1 || true
  grep -E '^stat::' "$log" || true
  echo "fuzz.sh: $target: $status; corpus: $(find "$corpus" -type f | wc -l) files in $corpus"
done
if [[ "${FUZZ_VALGRIND:-1}" == "1" && " ${targets[*]} " == *" load_image "* ]]; then
  if command -v valgrind >/dev/null 2>&1; then
    plain="$build_dir/plain"
    plain_args=(-S "$root" -B "$plain" "${common_args[@]}")
    [[ -f "$plain/CMakeCache.txt" ]] || plain_args+=(-G Ninja)
    cmake "${plain_args[@]}" >/dev/null
    cmake --build "$plain" -j "$(nproc)" --target replay_load_image
    log="$build_dir/logs/valgrind.log"
    echo "fuzz.sh: the load_image corpus under valgrind (log: $log)"
    if valgrind -q --error-exitcode=99 --leak-check=full --errors-for-leak-kinds=definite,indirect \
      --track-origins=yes "$plain/tests/fuzz/replay_load_image" "$corpus_root/load_image" >"$log" 2>&1; then
      echo "fuzz.sh: valgrind: clean ($(tail -n 1 "$log"))"
    else
      echo "fuzz.sh: valgrind: FOUND A PROBLEM (see $log; the input is the last 'replay:' line)"
      failed+=(valgrind)
    fi
  else
    echo "fuzz.sh: valgrind not installed, corpus replay skipped (Debian: valgrind)"
  fi
fi
[[ ${#failed[@]} -eq 0 ]] || exit 1
