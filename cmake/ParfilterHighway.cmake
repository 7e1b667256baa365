# Google Highway (Debian: libhwy-dev), the portable SIMD library of the CPU row kernels
# (docs/CPU_KERNELS.md): the SIMD kernels are compiled once per x86 target (SSE4, AVX2,
# AVX-512) and each call runs the best one the CPU has, picked at run time (Highway's per-target
# function tables: no ifunc, no -march in the build). Only Highway's headers are used: libhwy.so
# is not linked, because loading it costs 3 ms per process (common/kernels/simd_targets.hpp).
#
# PARFILTER_WITH_HIGHWAY (AUTO/ON/OFF): AUTO uses Highway where it is found and otherwise builds
#   the plain C++ kernels alone (every variant then runs them, with the same bytes); ON fails
#   the configure without it; OFF never looks.
# parfilter_link_highway(<target> <sources>...) compiles the SIMD sources into <target> with
#   Highway's headers, or compiles simd_absent.cpp instead; PARFILTER_HAVE_HWY (cached).
# Under CI (CI=true, scripts/test.sh) the default is ON: a CI machine without libhwy-dev must
# fail the configure, not quietly test the plain loops alone.
set(_hwy_default AUTO)
if("$ENV{CI}" STREQUAL "true")
  set(_hwy_default ON)
endif()
set(PARFILTER_WITH_HIGHWAY ${_hwy_default} CACHE STRING
    "SIMD kernels through Google Highway (AUTO/ON/OFF)")
set_property(CACHE PARFILTER_WITH_HIGHWAY PROPERTY STRINGS AUTO ON OFF)
if(NOT PARFILTER_WITH_HIGHWAY MATCHES "^(AUTO|ON|OFF)$")
  message(FATAL_ERROR "PARFILTER_WITH_HIGHWAY must be AUTO, ON or OFF")
endif()

# The oldest Highway with every op the kernels use (Debian 12 ships 1.0.3).
set(PARFILTER_HIGHWAY_MIN_VERSION 1.0.3)
set(_hwy_found FALSE)
if(NOT PARFILTER_WITH_HIGHWAY STREQUAL "OFF")
  find_package(hwy ${PARFILTER_HIGHWAY_MIN_VERSION} CONFIG QUIET)
  if(hwy_FOUND AND TARGET hwy::hwy)
    set(_hwy_found TRUE)
    set(_hwy_version ${hwy_VERSION})
    # Seen from tests/ too: test_simd_kernels checks the kernels' CPU detection against it.
    set_property(TARGET hwy::hwy PROPERTY IMPORTED_GLOBAL TRUE)
  endif()
endif()

if(_hwy_found)
  # x86 targets: SSE4, AVX2, AVX-512 (Highway's AVX3) and AVX-512 with VBMI (AVX3_DL); the
  # scalar target, for older CPUs, runs the plain kernels. SSSE3 (CPUs from before 2008
  # without SSE4.1) is left out to save another compilation of every SIMD file.
  string(CONCAT _simd_summary "Highway ${_hwy_version}: SSE4, AVX2, AVX-512, AVX-512+VBMI picked "
                "at run time, plain C++ below SSE4 (override: PARFILTER_SIMD_TARGETS)")
elseif(PARFILTER_WITH_HIGHWAY STREQUAL "ON")
  message(FATAL_ERROR "PARFILTER_WITH_HIGHWAY=ON but Highway ${PARFILTER_HIGHWAY_MIN_VERSION} or "
                      "newer was not found (Debian: libhwy-dev)")
elseif(PARFILTER_WITH_HIGHWAY STREQUAL "OFF")
  set(_simd_summary "plain C++ only (PARFILTER_WITH_HIGHWAY=OFF)")
else()
  set(_simd_summary "plain C++ only: Highway not found (Debian: libhwy-dev)")
endif()
set(PARFILTER_HAVE_HWY ${_hwy_found} CACHE INTERNAL "Highway found for the CPU kernels")
message(STATUS "parfilter CPU kernels: ${_simd_summary}")

function(parfilter_link_highway target)
  if(PARFILTER_HAVE_HWY)
    target_sources(${target} PRIVATE ${ARGN})
    target_include_directories(${target} SYSTEM PRIVATE
                               $<TARGET_PROPERTY:hwy::hwy,INTERFACE_INCLUDE_DIRECTORIES>)
    target_compile_definitions(${target} PRIVATE PARFILTER_HAVE_HWY=1)
    # SSSE3 adds nothing over SSE4's ops here. The fallback target is SCALAR on every compiler
    # (the kernels then leave each row to the plain loops): Highway picks EMU128 instead on
    # GCC 12.3 and later, whose vectors are arrays, not the x86 registers the helpers use.
    # AVX3_DL (AVX-512 with VBMI, VNNI and more: Ice Lake and later Xeons) is opt-in in
    # Highway 1.0: the luma loop's byte permutes (vpermb) need it.
    set_source_files_properties(${ARGN} PROPERTIES COMPILE_DEFINITIONS
                                "HWY_DISABLED_TARGETS=HWY_SSSE3;HWY_BROKEN_EMU128=1;HWY_WANT_AVX3_DL=1")
  else()
    target_sources(${target} PRIVATE kernels/simd_absent.cpp)
  endif()
endfunction()
