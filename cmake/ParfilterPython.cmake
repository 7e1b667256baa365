# PARFILTER_WITH_PYTHON (AUTO/ON/OFF): the Python module in python/. AUTO builds it where the
# Python found (Python_EXECUTABLE, e.g. a virtual environment's) has nanobind. The module links
# the project's static libraries into one shared object, so they are compiled position
# independent then; call this before the libraries are added.
set(PARFILTER_WITH_PYTHON AUTO CACHE STRING "Build the Python module (AUTO/ON/OFF)")
set_property(CACHE PARFILTER_WITH_PYTHON PROPERTY STRINGS AUTO ON OFF)

macro(parfilter_detect_python)
  set(PARFILTER_PYTHON_ENABLED OFF)
  if(NOT PARFILTER_WITH_PYTHON STREQUAL "OFF")
    find_package(Python 3.9 COMPONENTS Interpreter Development.Module)
    set(_parfilter_nanobind_dir "")
    if(Python_FOUND)
      execute_process(COMMAND "${Python_EXECUTABLE}" -m nanobind --cmake_dir
                      OUTPUT_VARIABLE _parfilter_nanobind_dir OUTPUT_STRIP_TRAILING_WHITESPACE
                      ERROR_QUIET RESULT_VARIABLE _parfilter_nanobind_result)
    endif()
    if(_parfilter_nanobind_dir AND _parfilter_nanobind_result EQUAL 0)
      set(nanobind_ROOT "${_parfilter_nanobind_dir}")
      find_package(nanobind CONFIG)
    endif()
    if(nanobind_FOUND)
      set(PARFILTER_PYTHON_ENABLED ON)
      set(CMAKE_POSITION_INDEPENDENT_CODE ON)
      message(STATUS "parfilter python: built (Python ${Python_VERSION}, nanobind ${nanobind_VERSION})")
    elseif(PARFILTER_WITH_PYTHON STREQUAL "ON")
      message(FATAL_ERROR "PARFILTER_WITH_PYTHON=ON needs Python's development files and nanobind "
                          "(pip install nanobind into the environment of -DPython_EXECUTABLE=...)")
    else()
      message(STATUS "parfilter python: not built (no nanobind for ${Python_EXECUTABLE})")
    endif()
  endif()
endmacro()
