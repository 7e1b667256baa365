# A man page per executable, made by help2man from its --help and --version (Debian: help2man),
# and bash completion, installed under share/man/man1 and share/bash-completion/completions.
find_program(PARFILTER_HELP2MAN help2man)
get_property(_parfilter_doc_backends GLOBAL PROPERTY PARFILTER_BACKENDS)
foreach(_entry IN LISTS _parfilter_doc_backends)
  string(REPLACE "|" ";" _fields "${_entry}")
  list(GET _fields 0 _name)
  set(_exe parfilter-${_name})
  install(FILES ${PROJECT_SOURCE_DIR}/scripts/parfilter-completion.bash
          DESTINATION ${CMAKE_INSTALL_DATADIR}/bash-completion/completions RENAME ${_exe})
  if(PARFILTER_HELP2MAN)
    set(_man ${PROJECT_BINARY_DIR}/man/${_exe}.1)
    add_custom_command(OUTPUT ${_man}
      COMMAND ${CMAKE_COMMAND} -E make_directory ${PROJECT_BINARY_DIR}/man
      COMMAND ${PARFILTER_HELP2MAN} --no-info --no-discard-stderr
              --name "one image-filter set on the ${_name} backend" --output ${_man}
              $<TARGET_FILE:${_exe}>
      DEPENDS ${_exe}
      COMMENT "Generating the man page of ${_exe}"
      VERBATIM)
    add_custom_target(${_exe}-man ALL DEPENDS ${_man})
    install(FILES ${_man} DESTINATION ${CMAKE_INSTALL_MANDIR}/man1)
  endif()
endforeach()
if(NOT PARFILTER_HELP2MAN)
  message(STATUS "parfilter: help2man not found, no man pages (Debian: help2man)")
endif()
