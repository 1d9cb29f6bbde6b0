# Runs one compile check (see memfmt_add_compile_fail_test in
# tests/CMakeLists.txt):
#   cmake -DMEMFMT_CC_ARGS=<args.cmake> -DMEMFMT_CC_TARGET=<target.cmake> -P compile_check.cmake
# <args.cmake> sets the compiler, flags, source, MEMFMT_CC_EXPECT and
# MEMFMT_CC_REGEX; <target.cmake> the include dirs and definitions of the
# target the source belongs to.
#   MEMFMT_CC_EXPECT=fail: passes only if the source does NOT compile AND the
#                          compiler's output matches MEMFMT_CC_REGEX.
#   MEMFMT_CC_EXPECT=pass: passes only if the source compiles.

cmake_minimum_required(VERSION 3.21)

foreach(var MEMFMT_CC_ARGS MEMFMT_CC_TARGET)
  if(NOT EXISTS "${${var}}")
    message(FATAL_ERROR "compile_check.cmake: ${var}='${${var}}' does not exist")
  endif()
  include("${${var}}")
endforeach()

set(command "${MEMFMT_CC_COMPILER}" ${MEMFMT_CC_FLAGS})
list(REMOVE_DUPLICATES MEMFMT_CC_INCLUDES)
foreach(dir IN LISTS MEMFMT_CC_INCLUDES)
  # The compiler's own include dirs stay where the compiler puts them.
  if(NOT dir IN_LIST MEMFMT_CC_IMPLICIT_INCLUDES)
    list(APPEND command "-I${dir}")
  endif()
endforeach()
foreach(def IN LISTS MEMFMT_CC_DEFINITIONS)
  list(APPEND command "-D${def}")
endforeach()
list(APPEND command "${MEMFMT_CC_SOURCE}")

execute_process(COMMAND ${command}
  RESULT_VARIABLE result
  OUTPUT_VARIABLE output
  ERROR_VARIABLE output)
list(JOIN command " " command_line)

if(MEMFMT_CC_EXPECT STREQUAL "pass")
  if(NOT result EQUAL 0)
    message(FATAL_ERROR "${MEMFMT_CC_NAME}: ${MEMFMT_CC_SOURCE} does not compile.\n"
      "command: ${command_line}\n${output}")
  endif()
  message(STATUS "${MEMFMT_CC_NAME}: compiles")
  return()
endif()

if(result EQUAL 0)
  message(STATUS "MEMFMT_CC_RESULT=compiled")
  message(FATAL_ERROR "${MEMFMT_CC_NAME}: ${MEMFMT_CC_SOURCE} compiled, but it must not.\n"
    "command: ${command_line}\n${output}")
endif()
if(NOT output MATCHES "${MEMFMT_CC_REGEX}")
  message(STATUS "MEMFMT_CC_RESULT=wrong-diagnostic")
  message(FATAL_ERROR "${MEMFMT_CC_NAME}: ${MEMFMT_CC_SOURCE} failed to compile as it "
    "should, but no diagnostic matches the expected regular expression\n"
    "  ${MEMFMT_CC_REGEX}\n"
    "command: ${command_line}\n"
    "compiler output:\n${output}")
endif()
string(REGEX MATCH "${MEMFMT_CC_REGEX}" matched "${output}")
message(STATUS "${MEMFMT_CC_NAME}: does not compile, as expected; diagnostic matched: ${matched}")
