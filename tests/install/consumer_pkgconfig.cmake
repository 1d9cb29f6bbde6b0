# install.pkg_config: builds the one-file consumer with the flags that
# `pkg-config --cflags --libs memfmt` gives for the installed prefix, and runs it.

cmake_minimum_required(VERSION 3.21)

set(ENV{PKG_CONFIG_PATH} "${MEMFMT_PREFIX}/share/pkgconfig")

function(pkg_config out)
  execute_process(COMMAND "${MEMFMT_PKG_CONFIG}" ${ARGN} memfmt
    RESULT_VARIABLE result OUTPUT_VARIABLE output ERROR_VARIABLE error
    OUTPUT_STRIP_TRAILING_WHITESPACE)
  if(NOT result EQUAL 0)
    message(FATAL_ERROR "pkg-config ${ARGN} memfmt failed: ${error}")
  endif()
  set(${out} "${output}" PARENT_SCOPE)
endfunction()

pkg_config(version --modversion)
pkg_config(cflags --cflags)
pkg_config(libs --libs)
message(STATUS "pkg-config memfmt: version ${version}\n  cflags: ${cflags}\n  libs:   ${libs}")
if(NOT version STREQUAL MEMFMT_VERSION)
  message(FATAL_ERROR "pkg-config reports memfmt ${version}, expected ${MEMFMT_VERSION}")
endif()
string(FIND " ${cflags} " " -I${MEMFMT_PREFIX}/include " at)
if(at EQUAL -1)
  message(FATAL_ERROR "`pkg-config --cflags memfmt` lacks -I${MEMFMT_PREFIX}/include")
endif()

separate_arguments(cflags UNIX_COMMAND "${cflags}")
separate_arguments(libs UNIX_COMMAND "${libs}")
file(REMOVE_RECURSE "${MEMFMT_CONSUMER_BINARY_DIR}")
file(MAKE_DIRECTORY "${MEMFMT_CONSUMER_BINARY_DIR}")
set(exe "${MEMFMT_CONSUMER_BINARY_DIR}/memfmt_consumer")
set(command "${MEMFMT_CXX_COMPILER}" ${MEMFMT_CXX20_FLAG} ${cflags}
  "${MEMFMT_CONSUMER_SOURCE}" -o "${exe}" ${libs})
list(JOIN command " " command_line)
message(STATUS "${command_line}")
execute_process(COMMAND ${command} RESULT_VARIABLE result)
if(NOT result EQUAL 0)
  message(FATAL_ERROR "compiling with pkg-config's flags failed")
endif()
execute_process(COMMAND "${exe}" RESULT_VARIABLE result)
if(NOT result EQUAL 0)
  message(FATAL_ERROR "${exe} failed (${result})")
endif()
