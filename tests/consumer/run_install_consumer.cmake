# cmake -DBUILD_DIR=... -DWORK_DIR=... -DCONSUMER_SRC=... [-DGENERATOR=...] -P run_install_consumer.cmake
# Installs the parfilter build in BUILD_DIR into WORK_DIR/prefix, then checks the installation
# as a user of the library would meet it:
#   - only public headers are installed (the list below; internal ones live next to sources);
#   - no stb symbol leaves the libraries (nm), so a program with its own stb links;
#   - the consumer project in CONSUMER_SRC configures with find_package(parfilter COMPONENTS
#     serial) while MPI, CUDA and OpenCL are hidden from find_package, builds and runs;
#   - pkg-config's parfilter.pc builds a program against the installation.
cmake_minimum_required(VERSION 3.25)  # the policies of a script: IN_LIST
foreach(var BUILD_DIR WORK_DIR CONSUMER_SRC)
  if(NOT DEFINED ${var})
    message(FATAL_ERROR "run_install_consumer.cmake needs -D${var}=...")
  endif()
endforeach()

set(prefix ${WORK_DIR}/prefix)
set(consumer_build ${WORK_DIR}/build)
file(REMOVE_RECURSE ${prefix} ${consumer_build})

# step(<description> <command>...): runs a command, failing loudly with its output.
function(step description)
  message(STATUS "install_consumer: ${description}")
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE result OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT result EQUAL 0)
    message(FATAL_ERROR "install_consumer: ${description} failed (${result})\n${out}\n${err}")
  endif()
  set(step_output "${out}" PARENT_SCOPE)
endfunction()

set(generator_args "")
if(DEFINED GENERATOR AND NOT GENERATOR STREQUAL "")
  set(generator_args -G ${GENERATOR})
endif()

step("install into ${prefix}" ${CMAKE_COMMAND} --install ${BUILD_DIR} --prefix ${prefix})
if(NOT EXISTS ${prefix}/bin/parfilter-serial)
  message(FATAL_ERROR "install_consumer: ${prefix}/bin/parfilter-serial was not installed")
endif()

# ---- only public headers
set(public_headers backend.hpp cli.hpp error.hpp histogram_output.hpp host_buffer_pool.hpp image.hpp
    in_flight_ring.hpp
    image_io.hpp image_rows.hpp op_set.hpp pipeline.hpp row_stream.hpp strip_pipeline.hpp
    strip_plan.hpp)
file(GLOB_RECURSE installed RELATIVE ${prefix}/include/parfilter ${prefix}/include/parfilter/*)
foreach(header IN LISTS installed)
  if(header MATCHES "^backends/[a-z]+\\.hpp$")
    continue()
  endif()
  if(NOT header IN_LIST public_headers)
    message(FATAL_ERROR "install_consumer: ${header} is installed but is not a public header")
  endif()
endforeach()

# ---- no stb symbol defined with external linkage in any installed library
find_program(NM nm REQUIRED)
file(GLOB libraries ${prefix}/lib*/libparfilter_*)
foreach(library IN LISTS libraries)
  if(IS_SYMLINK ${library})
    continue()
  endif()
  set(nm_args -g --defined-only)
  if(library MATCHES "\\.so")
    list(APPEND nm_args -D)
  endif()
  step("nm ${library}" ${NM} ${nm_args} ${library})
  if(step_output MATCHES "stbi|stbiw")
    message(FATAL_ERROR "install_consumer: ${library} exports stb symbols")
  endif()
endforeach()

# ---- the consumer, serial only, with MPI, CUDA and OpenCL out of find_package's reach
if(DEPS_PREFIX_PATH)  # where the build found parfilter's own dependencies (Highway, ...)
  set(ENV{CMAKE_PREFIX_PATH} "${DEPS_PREFIX_PATH}")
  string(REPLACE ":" ";" deps_prefixes "${DEPS_PREFIX_PATH}")
  foreach(deps_prefix IN LISTS deps_prefixes)  # and their shared libraries, for the runs below
    file(GLOB deps_libdirs LIST_DIRECTORIES true "${deps_prefix}/lib" "${deps_prefix}/lib/*-linux-gnu")
    foreach(libdir IN LISTS deps_libdirs)
      set(ENV{LD_LIBRARY_PATH} "${libdir}:$ENV{LD_LIBRARY_PATH}")
    endforeach()
  endforeach()
endif()
step("configure the consumer" ${CMAKE_COMMAND} -S ${CONSUMER_SRC} -B ${consumer_build}
     ${generator_args} -DCMAKE_PREFIX_PATH=${prefix} -DCMAKE_BUILD_TYPE=Release
     -DCMAKE_DISABLE_FIND_PACKAGE_MPI=ON -DCMAKE_DISABLE_FIND_PACKAGE_CUDAToolkit=ON
     -DCMAKE_DISABLE_FIND_PACKAGE_OpenCL=ON)
step("build the consumer" ${CMAKE_COMMAND} --build ${consumer_build})
step("run the consumer" ${consumer_build}/consumer)
message(STATUS "${step_output}")
if(EXISTS ${consumer_build}/consumer_own_stb)
  step("run the consumer with its own stb" ${consumer_build}/consumer_own_stb)
  message(STATUS "${step_output}")
endif()
step("run the installed executable" ${prefix}/bin/parfilter-serial --version)

# ---- pkg-config
find_program(PKG_CONFIG pkg-config)
find_program(CXX_COMPILER NAMES c++ g++ clang++)
if(PKG_CONFIG AND CXX_COMPILER)
  file(GLOB_RECURSE pc_files ${prefix}/*/parfilter.pc)
  list(GET pc_files 0 pc_file)
  get_filename_component(pc_dir ${pc_file} DIRECTORY)
  set(ENV{PKG_CONFIG_PATH} "${pc_dir}:$ENV{PKG_CONFIG_PATH}")
  step("pkg-config parfilter" ${PKG_CONFIG} --cflags --libs --static parfilter)
  string(STRIP "${step_output}" flags)
  separate_arguments(flags UNIX_COMMAND "${flags}")
  step("build with pkg-config" ${CXX_COMPILER} -std=c++20 ${CONSUMER_SRC}/main.cpp -o
       ${WORK_DIR}/pkgconfig_consumer ${flags})
  step("run the pkg-config build" ${WORK_DIR}/pkgconfig_consumer)
endif()
