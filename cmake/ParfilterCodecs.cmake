# The image codecs behind load_image and save_image (docs/IO.md).
#
# PARFILTER_WITH_SPNG (AUTO/ON/OFF): PNG decoded by libspng (Debian: libspng-dev). PNG is
#   encoded by parfilter's banded encoder wherever zlib is found (Debian: zlib1g-dev).
# PARFILTER_WITH_LIBJPEG_TURBO (AUTO/ON/OFF): JPEG decoded and encoded by libjpeg-turbo
#   (Debian: libjpeg62-turbo-dev).
# PARFILTER_WITH_TIFF (AUTO/ON/OFF): TIFF read and written by libtiff (Debian: libtiff-dev);
#   without it TIFF is refused with one line.
# Where one is off or missing, stb_image (always built: it decodes TGA) handles that format.
# parfilter_link_codecs(<target>) links the chosen libraries privately and defines
# PARFILTER_HAVE_SPNG / PARFILTER_HAVE_ZLIB / PARFILTER_HAVE_LIBJPEG_TURBO / PARFILTER_HAVE_TIFF
# on its sources.

foreach(_codec SPNG LIBJPEG_TURBO TIFF)
  set(PARFILTER_WITH_${_codec} AUTO CACHE STRING "Use the fast ${_codec} codec (AUTO/ON/OFF)")
  set_property(CACHE PARFILTER_WITH_${_codec} PROPERTY STRINGS AUTO ON OFF)
  if(NOT PARFILTER_WITH_${_codec} MATCHES "^(AUTO|ON|OFF)$")
    message(FATAL_ERROR "PARFILTER_WITH_${_codec} must be AUTO, ON or OFF")
  endif()
endforeach()

set(PARFILTER_CODEC_SUMMARY "")
set(PARFILTER_HAVE_SPNG FALSE)
set(PARFILTER_HAVE_LIBJPEG_TURBO FALSE)
set(PARFILTER_HAVE_TIFF FALSE)

# _parfilter_codec_result(<codec> <found> <what> <why-not> [<fallback>]): the format goes to
# <fallback> (default: stb_image) where the codec is not found.
macro(_parfilter_codec_result codec found what why_not)
  set(_fallback "stb_image instead")
  if(${ARGC} GREATER 4)
    set(_fallback "${ARGV4}")
  endif()
  if(${found})
    set(PARFILTER_HAVE_${codec} TRUE)
    list(APPEND PARFILTER_CODEC_SUMMARY "${what}")
  elseif(PARFILTER_WITH_${codec} STREQUAL "ON")
    message(FATAL_ERROR "PARFILTER_WITH_${codec}=ON but ${why_not}")
  else()
    list(APPEND PARFILTER_CODEC_SUMMARY "${why_not}: ${_fallback}")
  endif()
endmacro()

# _parfilter_pkg_module(<prefix> <module>): pkg_check_modules(<prefix> QUIET IMPORTED_TARGET
# <module>) where pkg-config is found.
macro(_parfilter_pkg_module prefix module)
  find_package(PkgConfig QUIET)
  if(PkgConfig_FOUND)
    pkg_check_modules(${prefix} QUIET IMPORTED_TARGET ${module})
  endif()
endmacro()

# zlib is what the banded PNG encoder needs (and what libspng itself links).
find_package(ZLIB QUIET)
set(PARFILTER_HAVE_ZLIB ${ZLIB_FOUND})
if(ZLIB_FOUND)
  set(_png_encoder "banded encoder over zlib ${ZLIB_VERSION_STRING}")
else()
  set(_png_encoder "stb_image_write encoder (zlib not found, Debian: zlib1g-dev)")
endif()
if(PARFILTER_WITH_SPNG STREQUAL "OFF")
  list(APPEND PARFILTER_CODEC_SUMMARY "png: stb_image decoder (PARFILTER_WITH_SPNG=OFF), ${_png_encoder}")
else()
  _parfilter_pkg_module(SPNG spng)
  _parfilter_codec_result(SPNG SPNG_FOUND "png: libspng ${SPNG_VERSION} decoder, ${_png_encoder}"
    "png: libspng not found (Debian: libspng-dev)")
endif()

if(PARFILTER_WITH_LIBJPEG_TURBO STREQUAL "OFF")
  list(APPEND PARFILTER_CODEC_SUMMARY "jpeg: stb_image (PARFILTER_WITH_LIBJPEG_TURBO=OFF)")
else()
  find_package(JPEG QUIET)
  set(_turbo_ok FALSE)
  if(JPEG_FOUND)
    # The extended colour spaces (JCS_EXT_RGB) are libjpeg-turbo's, not plain libjpeg's.
    include(CheckCXXSourceCompiles)
    set(CMAKE_REQUIRED_INCLUDES ${JPEG_INCLUDE_DIRS})
    check_cxx_source_compiles("
      #include <cstddef>
      #include <cstdio>
      #include <jpeglib.h>
      int main() { return JCS_EXT_RGB == JCS_RGB; }" PARFILTER_JPEGLIB_IS_TURBO)
    unset(CMAKE_REQUIRED_INCLUDES)
    if(PARFILTER_JPEGLIB_IS_TURBO)
      set(_turbo_ok TRUE)
      foreach(_dir IN LISTS JPEG_INCLUDE_DIRS)
        file(GLOB _jconfig "${_dir}/jconfig.h" "${_dir}/*/jconfig.h")
        if(_jconfig)
          list(GET _jconfig 0 _jconfig)
          file(STRINGS "${_jconfig}" _line REGEX "#define LIBJPEG_TURBO_VERSION ")
          string(REGEX REPLACE ".*VERSION +([0-9.]+).*" "\\1" PARFILTER_JPEG_TURBO_VERSION "${_line}")
        endif()
      endforeach()
    endif()
  endif()
  _parfilter_codec_result(LIBJPEG_TURBO _turbo_ok "jpeg: libjpeg-turbo ${PARFILTER_JPEG_TURBO_VERSION}"
    "jpeg: libjpeg-turbo not found (Debian: libjpeg62-turbo-dev)")
endif()

if(PARFILTER_WITH_TIFF STREQUAL "OFF")
  list(APPEND PARFILTER_CODEC_SUMMARY "tiff: refused (PARFILTER_WITH_TIFF=OFF)")
else()
  _parfilter_pkg_module(LIBTIFF libtiff-4>=4.5)
  _parfilter_codec_result(TIFF LIBTIFF_FOUND "tiff: libtiff ${LIBTIFF_VERSION}"
    "tiff: libtiff 4.5 or later not found (Debian: libtiff-dev)" "refused")
endif()

# The codec libraries: PARFILTER_HAVE_<codec>, the target linked and its pkg-config module.
set(PARFILTER_CODEC_LIBRARIES TIFF SPNG ZLIB LIBJPEG_TURBO)
set(PARFILTER_CODEC_TARGETS PkgConfig::LIBTIFF PkgConfig::SPNG ZLIB::ZLIB JPEG::JPEG)
set(PARFILTER_CODEC_PC_MODULES libtiff-4 spng zlib libjpeg)

function(parfilter_link_codecs target)
  foreach(codec library IN ZIP_LISTS PARFILTER_CODEC_LIBRARIES PARFILTER_CODEC_TARGETS)
    if(PARFILTER_HAVE_${codec})
      target_link_libraries(${target} PRIVATE ${library})
      target_compile_definitions(${target} PRIVATE PARFILTER_HAVE_${codec}=1)
    endif()
  endforeach()
endfunction()

function(parfilter_print_codec_summary)
  message(STATUS "parfilter codecs (bmp, pnm: parfilter's own; tga: stb_image):")
  foreach(line IN LISTS PARFILTER_CODEC_SUMMARY)
    message(STATUS "  ${line}")
  endforeach()
endfunction()
