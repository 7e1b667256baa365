# parfilter_op_table(<sources-var> FOLDER <dir> TYPE <C++ type> TEMPLATE <file.in> OUTPUT <file>
#                    [EXTENSIONS <ext>...])
#
# A backend's ops defined one file per op, <dir>/<op>.<ext> (EXTENSIONS, default cpp; CUDA adds
# cu for an op whose kernels live in its file), each defining `const <type> <op>_op`
# (ArrayFire's same stem per op). Sets <sources-var> to those files plus OUTPUT, generated from
# TEMPLATE with @PARFILTER_OP_DECLARATIONS@ (an extern declaration per file) and
# @PARFILTER_OP_ENTRIES@ (their addresses, for index_by_op in common/spec/per_op_table.hpp),
# followed by a static_assert (defines_every_op) that the stems are kAllOps, each once: a
# missing op's file stops the build, not only a run that reaches index_by_op (the CUDA suite
# runs on a GPU alone). A new op's file is found at the next configure (CONFIGURE_DEPENDS): no
# list to edit.
function(parfilter_op_table sources_var)
  cmake_parse_arguments(PARSE_ARGV 1 arg "" "FOLDER;TYPE;TEMPLATE;OUTPUT" "EXTENSIONS")
  if(NOT arg_EXTENSIONS)
    set(arg_EXTENSIONS cpp)
  endif()
  set(_globs "")
  foreach(_ext IN LISTS arg_EXTENSIONS)
    list(APPEND _globs ${arg_FOLDER}/*.${_ext})
  endforeach()
  file(GLOB _files CONFIGURE_DEPENDS ${_globs})
  set(PARFILTER_OP_DECLARATIONS "")
  set(PARFILTER_OP_ENTRIES "")
  set(_enumerators "")
  set(_stems "")
  foreach(_file IN LISTS _files)
    get_filename_component(_stem ${_file} NAME_WE)
    string(APPEND PARFILTER_OP_DECLARATIONS "extern const ${arg_TYPE} ${_stem}_op;\n")
    string(APPEND PARFILTER_OP_ENTRIES "&${_stem}_op, ")
    string(APPEND _enumerators "::parfilter::Op::${_stem}, ")
    string(APPEND _stems " ${_stem}")
  endforeach()
  file(RELATIVE_PATH _folder ${PROJECT_SOURCE_DIR} ${arg_FOLDER})
  string(REPLACE ";" "|" _exts "${arg_EXTENSIONS}")
  # The template, then the check; a stem that is no op fails as "Op::<stem> is not a member".
  file(READ ${arg_TEMPLATE} _template)
  string(APPEND _template "
static_assert(::parfilter::defines_every_op(std::array{${_enumerators}}),
              \"${_folder} (${_stems} ) lacks an op of kAllOps: each needs its file <op>.${_exts}\");
")
  file(CONFIGURE OUTPUT ${arg_OUTPUT} CONTENT "${_template}" @ONLY)
  set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${arg_TEMPLATE})
  set(${sources_var} ${_files} ${arg_OUTPUT} PARENT_SCOPE)
endfunction()
