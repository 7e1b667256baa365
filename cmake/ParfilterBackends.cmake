# Backend selection, registration and the configure summary.
#
# Each optional backend has PARFILTER_WITH_<NAME> = AUTO (build it when its toolchain is
# found), ON (build it or fail configure saying why) or OFF. A backend directory registers
# itself with parfilter_add_backend(); the registry of built backends and the per-backend
# executables are generated from those registrations.

set(PARFILTER_OPTIONAL_BACKENDS PTHREAD OPENMP MPI CUDA OPENCL)
foreach(_b IN LISTS PARFILTER_OPTIONAL_BACKENDS)
  set(PARFILTER_WITH_${_b} AUTO CACHE STRING "Build the ${_b} backend (AUTO/ON/OFF)")
  set_property(CACHE PARFILTER_WITH_${_b} PROPERTY STRINGS AUTO ON OFF)
endforeach()

define_property(GLOBAL PROPERTY PARFILTER_BACKENDS BRIEF_DOCS "name|target|factory|header|threaded")
define_property(GLOBAL PROPERTY PARFILTER_BACKEND_SUMMARY BRIEF_DOCS "one line per backend")

function(_parfilter_summary line)
  set_property(GLOBAL APPEND PROPERTY PARFILTER_BACKEND_SUMMARY "${line}")
endfunction()

# In _parfilter_detect: found where the condition (the arguments after the first two) holds,
# and the reason, <what> it found or <why_not>.
macro(_parfilter_found_if what why_not)
  if(${ARGN})
    set(found TRUE)
    set(reason "${what}")
  else()
    set(reason "${why_not}")
  endif()
endmacro()

# Sets <found_var> and <reason_var> (why not, or what was found) for one backend.
function(_parfilter_detect name found_var reason_var)
  set(found FALSE)
  if(name STREQUAL "PTHREAD")
    set(THREADS_PREFER_PTHREAD_FLAG ON)
    find_package(Threads QUIET)
    _parfilter_found_if("POSIX threads"
      "no POSIX threads library found"
      Threads_FOUND AND CMAKE_USE_PTHREADS_INIT)
  elseif(name STREQUAL "OPENMP")
    find_package(OpenMP QUIET COMPONENTS CXX)
    _parfilter_found_if("OpenMP ${OpenMP_CXX_VERSION}"
      "the C++ compiler has no OpenMP support"
      OpenMP_CXX_FOUND)
  elseif(name STREQUAL "MPI")
    find_package(MPI QUIET COMPONENTS CXX)
    _parfilter_found_if("MPI ${MPI_CXX_VERSION}"
      "no MPI found (Debian: libopenmpi-dev openmpi-bin)"
      MPI_CXX_FOUND)
  elseif(name STREQUAL "CUDA")
    if(NOT CMAKE_CUDA_COMPILER AND EXISTS /usr/local/cuda/bin/nvcc)
      set(CMAKE_CUDA_COMPILER /usr/local/cuda/bin/nvcc CACHE FILEPATH "CUDA compiler")
    endif()
    include(CheckLanguage)
    check_language(CUDA)
    _parfilter_found_if("nvcc at ${CMAKE_CUDA_COMPILER}"
      "no CUDA compiler (nvcc) found"
      CMAKE_CUDA_COMPILER)
  elseif(name STREQUAL "OPENCL")
    find_package(OpenCL QUIET)
    _parfilter_found_if("OpenCL ${OpenCL_VERSION_STRING}"
      "no OpenCL headers and ICD loader found (Debian: ocl-icd-opencl-dev)"
      OpenCL_FOUND)
  endif()
  set(${found_var} ${found} PARENT_SCOPE)
  set(${reason_var} "${reason}" PARENT_SCOPE)
endfunction()

# Adds backend_<name>/ for every optional backend its option and toolchain allow.
macro(parfilter_add_optional_backends)
  foreach(_b IN LISTS PARFILTER_OPTIONAL_BACKENDS)
    string(TOLOWER "${_b}" _lower)
    set(_mode "${PARFILTER_WITH_${_b}}")
    if(NOT _mode MATCHES "^(AUTO|ON|OFF)$")
      message(FATAL_ERROR "PARFILTER_WITH_${_b} must be AUTO, ON or OFF, not '${_mode}'")
    endif()
    if(_mode STREQUAL "OFF")
      _parfilter_summary("${_lower}: skipped (PARFILTER_WITH_${_b}=OFF)")
      continue()
    endif()
    _parfilter_detect(${_b} _found _reason)
    set(_dir "${CMAKE_CURRENT_SOURCE_DIR}/backend_${_lower}")
    if(NOT _found)
      if(_mode STREQUAL "ON")
        message(FATAL_ERROR "PARFILTER_WITH_${_b}=ON but ${_reason}")
      endif()
      message(WARNING "parfilter: ${_lower} backend turned off: ${_reason}")
      _parfilter_summary("${_lower}: skipped (${_reason})")
    elseif(NOT EXISTS "${_dir}/CMakeLists.txt")
      if(_mode STREQUAL "ON")
        message(FATAL_ERROR "PARFILTER_WITH_${_b}=ON but backend_${_lower}/ is not in this source tree")
      endif()
      _parfilter_summary("${_lower}: skipped (${_reason} found, but backend_${_lower}/ is not in this source tree yet)")
    else()
      add_subdirectory(${_dir})
      _parfilter_summary("${_lower}: built (${_reason})")
    endif()
  endforeach()
endmacro()

# parfilter_add_backend(NAME <name> TARGET <library> FACTORY <function> HEADER <include>
#                       [THREADED] [DISTRIBUTED] [MAIN <source>...])
# Registers a backend library and builds its executable parfilter-<name>. THREADED: the
# backend's worker count follows BackendOptions::threads (BackendInfo::threaded). DISTRIBUTED:
# it runs only in processes started by mpirun (BackendInfo::distributed). MAIN: the
# executable's own main (which calls parfilter::cli_main, e.g. inside MPI_Init/Finalize with a
# JobDriver) instead of the generated one.
function(parfilter_add_backend)
  cmake_parse_arguments(PARSE_ARGV 0 arg "THREADED;DISTRIBUTED" "NAME;TARGET;FACTORY;HEADER"
                        "MAIN")
  set(threaded false)
  set(distributed false)
  if(arg_THREADED)
    set(threaded true)
  endif()
  if(arg_DISTRIBUTED)
    set(distributed true)
  endif()
  set_property(GLOBAL APPEND PROPERTY PARFILTER_BACKENDS
               "${arg_NAME}|${arg_TARGET}|${arg_FACTORY}|${arg_HEADER}|${threaded}|${distributed}")
  set_target_properties(${arg_TARGET} PROPERTIES EXPORT_NAME ${arg_NAME})
  parfilter_set_library_properties(${arg_TARGET})
  add_library(parfilter::${arg_NAME} ALIAS ${arg_TARGET})

  set(PARFILTER_BACKEND_NAME ${arg_NAME})
  set(PARFILTER_BACKEND_FACTORY ${arg_FACTORY})
  set(PARFILTER_BACKEND_HEADER ${arg_HEADER})
  if(arg_MAIN)
    set(main_cpp ${arg_MAIN})
  else()
    set(main_cpp ${CMAKE_CURRENT_BINARY_DIR}/parfilter-${arg_NAME}-main.cpp)
    configure_file(${PROJECT_SOURCE_DIR}/common/backend/backend_main.cpp.in ${main_cpp} @ONLY)
  endif()
  add_executable(parfilter-${arg_NAME} ${main_cpp})
  target_link_libraries(parfilter-${arg_NAME} PRIVATE parfilter::cli ${arg_TARGET})
  parfilter_set_warnings(parfilter-${arg_NAME})
  set_property(GLOBAL APPEND PROPERTY PARFILTER_INSTALL_TARGETS ${arg_TARGET} parfilter-${arg_NAME})
endfunction()

# parfilter_add_threaded_cpu_backend(NAME <name> SOURCE <file> RUNTIME <target>)
# A CPU backend whose worker count follows BackendOptions::threads: the library
# parfilter_<name> of SOURCE over the shared row kernels, with its folder's include/ (its
# public header, parfilter/backends/<name>.hpp, declaring parfilter::make_<name>_backend) and
# the folder itself (its scheduler's header, for MPI, tests and bench); RUNTIME, the threading
# library, is linked privately. Registered by parfilter_add_backend.
function(parfilter_add_threaded_cpu_backend)
  cmake_parse_arguments(PARSE_ARGV 0 arg "" "NAME;SOURCE;RUNTIME" "")
  set(target parfilter_${arg_NAME})
  add_library(${target} ${arg_SOURCE})
  target_include_directories(${target} PUBLIC
    $<BUILD_INTERFACE:${CMAKE_CURRENT_SOURCE_DIR}/include>
    $<BUILD_INTERFACE:${CMAKE_CURRENT_SOURCE_DIR}>
    $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}>)
  target_link_libraries(${target} PUBLIC parfilter::core PRIVATE parfilter::cpu_kernels
                        ${arg_RUNTIME})
  parfilter_set_warnings(${target})
  parfilter_add_backend(NAME ${arg_NAME} TARGET ${target}
                        FACTORY parfilter::make_${arg_NAME}_backend
                        HEADER parfilter/backends/${arg_NAME}.hpp THREADED)
endfunction()

# Generates parfilter::registry: registered_backends() over every backend added above.
function(parfilter_generate_registry)
  get_property(backends GLOBAL PROPERTY PARFILTER_BACKENDS)
  set(includes "")
  set(entries "")
  set(targets "")
  foreach(entry IN LISTS backends)
    string(REPLACE "|" ";" fields "${entry}")
    list(GET fields 0 name)
    list(GET fields 1 target)
    list(GET fields 2 factory)
    list(GET fields 3 header)
    list(GET fields 4 threaded)
    list(GET fields 5 distributed)
    string(APPEND includes "#include \"${header}\"\n")
    string(APPEND entries
           "    BackendInfo{\"${name}\", &${factory}, ${threaded}, ${distributed}},\n")
    list(APPEND targets ${target})
  endforeach()
  set(PARFILTER_REGISTRY_INCLUDES "${includes}")
  set(PARFILTER_REGISTRY_ENTRIES "${entries}")
  set(registry_cpp ${PROJECT_BINARY_DIR}/generated/registry.cpp)
  configure_file(${PROJECT_SOURCE_DIR}/common/backend/registry.cpp.in ${registry_cpp} @ONLY)
  add_library(parfilter_registry ${registry_cpp})
  add_library(parfilter::registry ALIAS parfilter_registry)
  set_target_properties(parfilter_registry PROPERTIES EXPORT_NAME registry)
  target_link_libraries(parfilter_registry PUBLIC parfilter::core ${targets})
  parfilter_set_warnings(parfilter_registry)
  parfilter_set_library_properties(parfilter_registry)
  set_property(GLOBAL APPEND PROPERTY PARFILTER_INSTALL_TARGETS parfilter_registry)
endfunction()

function(parfilter_print_backend_summary)
  get_property(lines GLOBAL PROPERTY PARFILTER_BACKEND_SUMMARY)
  message(STATUS "parfilter backends:")
  message(STATUS "  serial: built (always)")
  foreach(line IN LISTS lines)
    message(STATUS "  ${line}")
  endforeach()
endfunction()
