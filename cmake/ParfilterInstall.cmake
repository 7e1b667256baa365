# install() rules: libraries, executables, the public headers (common/include/parfilter and each
# backend's include/parfilter; internal headers live next to their sources and are never
# installed), a CMake package with one component per backend, pkg-config files, the man pages
# and bash completion.
#
#   find_package(parfilter CONFIG COMPONENTS serial openmp)   # only what is asked for is found
#
# Each component has its own export file, so a consumer of the serial backend needs neither MPI
# nor CUDA nor OpenCL on its machine. "registry" (registered_backends over every installed
# backend) pulls in every backend.
include(CMakePackageConfigHelpers)

set(PARFILTER_CMAKE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/parfilter)

install(TARGETS parfilter_core parfilter_cpu_kernels parfilter_cli
  EXPORT parfilterCoreTargets
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
  ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
  INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(EXPORT parfilterCoreTargets NAMESPACE parfilter:: DESTINATION ${PARFILTER_CMAKE_DIR}
        FILE parfilter-core-targets.cmake)
install(DIRECTORY ${PROJECT_SOURCE_DIR}/common/include/parfilter
        DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})

get_property(_parfilter_backends GLOBAL PROPERTY PARFILTER_BACKENDS)
set(PARFILTER_INSTALLED_BACKENDS "")
foreach(_entry IN LISTS _parfilter_backends)
  string(REPLACE "|" ";" _fields "${_entry}")
  list(GET _fields 0 _name)
  list(GET _fields 1 _target)
  list(APPEND PARFILTER_INSTALLED_BACKENDS ${_name})
  install(TARGETS ${_target} parfilter-${_name}
    EXPORT parfilter_${_name}Targets
    RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR}
    LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
    ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
    INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
  install(EXPORT parfilter_${_name}Targets NAMESPACE parfilter:: DESTINATION ${PARFILTER_CMAKE_DIR}
          FILE parfilter-${_name}-targets.cmake)
  install(DIRECTORY ${PROJECT_SOURCE_DIR}/backend_${_name}/include/parfilter
          DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
endforeach()
install(TARGETS parfilter_registry EXPORT parfilterRegistryTargets
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
  ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR})
install(EXPORT parfilterRegistryTargets NAMESPACE parfilter:: DESTINATION ${PARFILTER_CMAKE_DIR}
        FILE parfilter-registry-targets.cmake)

configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/parfilterConfig.cmake.in
  ${PROJECT_BINARY_DIR}/parfilterConfig.cmake INSTALL_DESTINATION ${PARFILTER_CMAKE_DIR})
write_basic_package_version_file(${PROJECT_BINARY_DIR}/parfilterConfigVersion.cmake
  COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/parfilterConfig.cmake
              ${PROJECT_BINARY_DIR}/parfilterConfigVersion.cmake
        DESTINATION ${PARFILTER_CMAKE_DIR})

# ---- pkg-config: parfilter (the core and the serial backend), parfilter-<backend> ----------
set(PARFILTER_PC_REQUIRES_PRIVATE "")
foreach(_codec _module IN ZIP_LISTS PARFILTER_CODEC_LIBRARIES PARFILTER_CODEC_PC_MODULES)
  if(PARFILTER_HAVE_${_codec})
    string(APPEND PARFILTER_PC_REQUIRES_PRIVATE " ${_module}")
  endif()
endforeach()
# Relocatable: the prefix is found from the .pc file's own place (pkg-config's pcfiledir), so an
# installation moved, or made with cmake --install --prefix, still works.
file(RELATIVE_PATH PARFILTER_PC_TO_PREFIX /root/${CMAKE_INSTALL_LIBDIR}/pkgconfig /root)
set(_parfilter_pc_dir ${PROJECT_BINARY_DIR}/pkgconfig)
configure_file(${PROJECT_SOURCE_DIR}/cmake/parfilter.pc.in ${_parfilter_pc_dir}/parfilter.pc @ONLY)
foreach(_name IN LISTS PARFILTER_INSTALLED_BACKENDS)
  if(_name STREQUAL "serial")
    continue()
  endif()
  set(PARFILTER_PC_BACKEND ${_name})
  set(PARFILTER_PC_BACKEND_LIBS "")
  if(_name STREQUAL "openmp")
    set(PARFILTER_PC_BACKEND_LIBS "-fopenmp")
  elseif(_name STREQUAL "cuda")
    set(PARFILTER_PC_BACKEND_LIBS "-lcudart")
  elseif(_name STREQUAL "opencl")
    set(PARFILTER_PC_BACKEND_LIBS "-lOpenCL")
  elseif(_name STREQUAL "mpi")
    set(PARFILTER_PC_BACKEND_LIBS "-lmpi_cxx -lmpi")
  endif()
  configure_file(${PROJECT_SOURCE_DIR}/cmake/parfilter-backend.pc.in
                 ${_parfilter_pc_dir}/parfilter-${_name}.pc @ONLY)
endforeach()
install(DIRECTORY ${_parfilter_pc_dir}/ DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)

# ---- the man page and bash completion (scripts/make-man.sh, scripts/parfilter-completion.bash)
include(ParfilterDocs OPTIONAL)
