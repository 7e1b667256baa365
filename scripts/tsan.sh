#!/usr/bin/env bash
# ThreadSanitizer run of parfilter's own threads: a TSan build of the core, the serial and
# pthread backends and the test programs that drive them (the pthread pool's scheduler tests
# and its part of the cross-backend suite, the batch pipeline's tests, a batch's images side
# by side and on lent threads, the parallel PNG encoder through the I/O tests), run with
# halt_on_error so that any report fails.
#
# This build also leaves out libspng, libjpeg-turbo and Highway (PARFILTER_WITH_SPNG=OFF,
# PARFILTER_WITH_LIBJPEG_TURBO=OFF, PARFILTER_WITH_HIGHWAY=OFF): CI thereby builds and tests
# the stb_image decoders and the plain C++ row loops as a machine without those packages
# would have them (the banded PNG encoder needs only zlib).
#
#   scripts/tsan.sh             build dir: build-tsan/ (or $TSAN_BUILD_DIR)
#
# OpenMP is left out: Debian's libgomp is not built with TSan, so TSan cannot see the
# synchronization inside it (its barriers use futexes and atomics in uninstrumented code)
# and reports false races on every parallel region. MPI, CUDA and OpenCL have no threads of
# ours to check.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build_dir="${TSAN_BUILD_DIR:-$root/build-tsan}"
jobs="$(nproc)"

configure_args=(-S "$root" -B "$build_dir"
  -DCMAKE_BUILD_TYPE=RelWithDebInfo
  "-DCMAKE_CXX_FLAGS=-fsanitize=thread -fno-omit-frame-pointer"
  -DCMAKE_EXE_LINKER_FLAGS=-fsanitize=thread
  -DPARFILTER_WITH_PTHREAD=ON -DPARFILTER_WITH_OPENMP=OFF -DPARFILTER_WITH_MPI=OFF
  -DPARFILTER_WITH_CUDA=OFF -DPARFILTER_WITH_OPENCL=OFF
  -DPARFILTER_WITH_SPNG=OFF -DPARFILTER_WITH_LIBJPEG_TURBO=OFF -DPARFILTER_WITH_HIGHWAY=OFF
  -DPARFILTER_WITH_OPENCV_ORACLE=OFF -DPARFILTER_BUILD_BENCH=OFF)
if [[ ! -f "$build_dir/CMakeCache.txt" ]]; then
  configure_args+=(-G Ninja)
fi
echo "tsan.sh: cmake ${configure_args[*]}"
cmake "${configure_args[@]}" >/dev/null
cmake --build "$build_dir" -j "$jobs" --target test_row_schedulers test_cross_backend \
  test_pipeline test_cpu_batch test_io test_strip_pipeline

export TSAN_OPTIONS="halt_on_error=1 abort_on_error=0 exitcode=66 second_deadlock_stack=1${TSAN_OPTIONS:+ $TSAN_OPTIONS}"
# TSan in GCC 12 cannot map its shadow memory with the address randomization of newer kernels
# (vm.mmap_rnd_bits > 28: "unexpected memory mapping"); run without it where setarch can.
run=()
if setarch "$(uname -m)" -R true 2>/dev/null; then
  run=(setarch "$(uname -m)" -R)
fi
tests="$build_dir/tests"
"${run[@]}" "$tests/test_row_schedulers" --gtest_brief=1
"${run[@]}" "$tests/test_pipeline" --gtest_brief=1
# Images side by side on a CPU backend's threads; a device batch's images on lent threads.
"${run[@]}" "$tests/test_cpu_batch" --gtest_brief=1
"${run[@]}" "$tests/test_io" --gtest_brief=1  # the stb fallback; the banded encoder's threads
# Strips: the prefetch and writer threads beside the compute, the host passes' threads.
"${run[@]}" "$tests/test_strip_pipeline" --gtest_brief=1 --gtest_filter='*Chains*pthread*'
# The pthread cases with workers (2, 3 and 7 threads; 1 thread has none) on the synthetic
# shapes, down to 1 row and fewer rows than threads. Left out: the data/ images and the
# 70x50 element, which exercise the pool no differently and whose instrumented reference
# would take most of the time.
"${run[@]}" "$tests/test_cross_backend" --gtest_brief=1 \
  --gtest_filter='*pthread_t2_*:*pthread_t3_*:*pthread_t7_*:ThreadedBackends.*-*_astronaut_*:*_camera_*:*_horse_*:*ellipse_70x50*'
echo "tsan.sh: ThreadSanitizer found no data race in the pthread backend, the pipelines or the I/O"
