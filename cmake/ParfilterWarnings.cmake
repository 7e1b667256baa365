# parfilter_set_warnings(<target>): the project's warning flags on one target.
# parfilter_set_library_properties(<target>): the soname version of a library (shared builds).
function(parfilter_set_warnings target)
  # A switch over the project's enums lists every value and has no default (a new op, border
  # or format is then a compile error where it is not handled), in every build.
  target_compile_options(${target} PRIVATE
    $<$<COMPILE_LANGUAGE:CXX>:-Wall -Wextra -Wpedantic -Werror=switch>)
  # GCC 12 at -O2/-O3 reports false -Wrestrict errors inside libstdc++ for
  # `"literal" + std::string` (GCC bug 105329, fixed in GCC 13).
  if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU" AND CMAKE_CXX_COMPILER_VERSION VERSION_GREATER_EQUAL 12
     AND CMAKE_CXX_COMPILER_VERSION VERSION_LESS 13)
    target_compile_options(${target} PRIVATE $<$<COMPILE_LANGUAGE:CXX>:-Wno-restrict>)
  endif()
  if(PARFILTER_WARNINGS_AS_ERRORS)
    target_compile_options(${target} PRIVATE $<$<COMPILE_LANGUAGE:CXX>:-Werror>)
  endif()
endfunction()

# Shared libraries (BUILD_SHARED_LIBS=ON) carry the project's version, and an soname of its
# major and minor numbers: before 1.0 a minor release may change the ABI.
function(parfilter_set_library_properties target)
  set_target_properties(${target} PROPERTIES
    VERSION ${PROJECT_VERSION}
    SOVERSION ${PROJECT_VERSION_MAJOR}.${PROJECT_VERSION_MINOR})
endfunction()
