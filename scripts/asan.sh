#!/usr/bin/env bash
# The test suite under AddressSanitizer + UndefinedBehaviorSanitizer (LeakSanitizer included):
# every CPU backend and OpenCL on PoCL, CUDA left out. Any report fails the run.
#
#   scripts/asan.sh             build dir: build-asan/ (or $ASAN_BUILD_DIR)
#   scripts/asan.sh -R cli      extra arguments go to ctest
#
# It reuses scripts/test.sh (dependencies, backend selection) with sanitizer flags. Warnings are
# not errors here: the plain build in test.sh checks them (GCC's -O1 sanitizer builds raise
# false ones). docs/HARDENING.md explains every choice below.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
export BUILD_DIR="${ASAN_BUILD_DIR:-$root/build-asan}"

sanitize_flags="-fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer"
# use_sigaltstack=0: PoCL's LLVM gives the thread that loads it an alternate signal stack from
# malloc; when that thread ends (a GPU backend's background start), ASan unmaps the thread's
# alternate stack as if it were its own and aborts ("unable to unmap").
export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1:strict_string_checks=1:detect_stack_use_after_return=1:check_initialization_order=1:strict_init_order=1:use_sigaltstack=0}"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}"
# PoCL and its LLVM keep allocations past exit (tests/mpi sets its own for Open MPI). use_tls=0:
# LSan's scan of dynamic TLS crashes ("Tracer caught signal 11") on a DTV slot PoCL's modules
# leave behind; without TLS roots LSan can only report more, never hide a leak.
export LSAN_OPTIONS="${LSAN_OPTIONS:-suppressions=$root/scripts/sanitizers/lsan.supp:print_suppressions=0:use_tls=0}"

# Within the CI time limit (2 cores), what the plain run in test.sh already covers is thinned:
# - test_opencv_oracle: checks the reference against OpenCV, no code of ours beyond what the
#   cross-backend suite runs under ASan too (4+ minutes under ASan);
# - the cross-backend suite: the synthetic shapes (1x1, 1x7, 7x1, odd and uneven sizes: where an
#   out-of-bounds access would be) without the data/ photographs, and the threaded backends at
#   3 and 7 threads (uneven blocks; 1 and 2 threads take the same paths);
# - MPI: 3 and 7 ranks (uneven blocks, more ranks than rows) and the plumbing, not 1, 2 and 4;
# - install_consumer: an uninstrumented consumer cannot link the instrumented static libraries.
# GTEST_FILTER reaches every test program that sets no --gtest_filter of its own.
export GTEST_FILTER="${GTEST_FILTER:--*_astronaut_*:*_camera_*:*_horse_*:*_t1_*:*_t2_*}"
exec "$root/scripts/test.sh" \
  -DCMAKE_BUILD_TYPE=Debug "-DCMAKE_CXX_FLAGS_DEBUG=-O1 -g" "-DCMAKE_CXX_FLAGS=$sanitize_flags" \
  -DPARFILTER_WITH_CUDA=OFF -DPARFILTER_WARNINGS_AS_ERRORS=OFF -DPARFILTER_BUILD_BENCH=OFF \
  -DPARFILTER_WITH_OPENCV_ORACLE=OFF -DPARFILTER_WITH_PYTHON=OFF \
  -- -LE install -E 'test_cross_backend_mpi_np[124]$' "$@"
