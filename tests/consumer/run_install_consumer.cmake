# cmake -DBUILD_DIR=... -DWORK_DIR=... -DCONSUMER_SRC=... [-DGENERATOR=...] -P run_install_consumer.cmake
# Installs the parfilter build in BUILD_DIR into WORK_DIR/prefix, then configures, builds and
# runs the consumer project in CONSUMER_SRC against it with find_package(parfilter).
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
  message("${out}")
endfunction()

set(generator_args "")
if(DEFINED GENERATOR AND NOT GENERATOR STREQUAL "")
  set(generator_args -G ${GENERATOR})
endif()

step("install into ${prefix}" ${CMAKE_COMMAND} --install ${BUILD_DIR} --prefix ${prefix})
if(NOT EXISTS ${prefix}/bin/parfilter-serial)
  message(FATAL_ERROR "install_consumer: ${prefix}/bin/parfilter-serial was not installed")
endif()
step("configure the consumer" ${CMAKE_COMMAND} -S ${CONSUMER_SRC} -B ${consumer_build}
     ${generator_args} -DCMAKE_PREFIX_PATH=${prefix} -DCMAKE_BUILD_TYPE=Release)
step("build the consumer" ${CMAKE_COMMAND} --build ${consumer_build})
step("run the consumer" ${consumer_build}/consumer)
step("run the installed executable" ${prefix}/bin/parfilter-serial --version)
