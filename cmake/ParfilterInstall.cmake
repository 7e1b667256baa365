# install() rules: libraries, executables and headers, exported as parfilter::<name> with a
# package config, so that find_package(parfilter) works after cmake --install.
include(CMakePackageConfigHelpers)

get_property(_parfilter_targets GLOBAL PROPERTY PARFILTER_INSTALL_TARGETS)
install(TARGETS ${_parfilter_targets}
  EXPORT parfilterTargets
  RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR}
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
  ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
  INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})

# Public headers of the core and of every built backend.
install(DIRECTORY ${PROJECT_SOURCE_DIR}/common/include/parfilter
        DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
get_property(_parfilter_backends GLOBAL PROPERTY PARFILTER_BACKENDS)
set(PARFILTER_INSTALLED_BACKENDS "")
foreach(_entry IN LISTS _parfilter_backends)
  string(REPLACE "|" ";" _fields "${_entry}")
  list(GET _fields 0 _name)
  list(APPEND PARFILTER_INSTALLED_BACKENDS ${_name})
  install(DIRECTORY ${PROJECT_SOURCE_DIR}/backend_${_name}/include/parfilter
          DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
endforeach()

set(PARFILTER_CMAKE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/parfilter)
install(EXPORT parfilterTargets NAMESPACE parfilter:: DESTINATION ${PARFILTER_CMAKE_DIR})
configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/parfilterConfig.cmake.in
  ${PROJECT_BINARY_DIR}/parfilterConfig.cmake INSTALL_DESTINATION ${PARFILTER_CMAKE_DIR})
write_basic_package_version_file(${PROJECT_BINARY_DIR}/parfilterConfigVersion.cmake
  COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/parfilterConfig.cmake
              ${PROJECT_BINARY_DIR}/parfilterConfigVersion.cmake
        DESTINATION ${PARFILTER_CMAKE_DIR})
