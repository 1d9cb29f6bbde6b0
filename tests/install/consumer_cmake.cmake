# Configures, builds and runs a consumer CMake project in a fresh binary dir.
#   MEMFMT_CONSUMER_SOURCE_DIR / MEMFMT_CONSUMER_BINARY_DIR / MEMFMT_CONSUMER_EXECUTABLE
#   MEMFMT_CONSUMER_USES_PREFIX=ON: memfmt must be found in MEMFMT_PREFIX
#     (through CMAKE_PREFIX_PATH), and nowhere else.
#   MEMFMT_SOURCE_DIR + MEMFMT_SUBPROJECT_MODE: passed on to the consumer.

cmake_minimum_required(VERSION 3.21)

file(REMOVE_RECURSE "${MEMFMT_CONSUMER_BINARY_DIR}")

set(configure_args
  -S "${MEMFMT_CONSUMER_SOURCE_DIR}"
  -B "${MEMFMT_CONSUMER_BINARY_DIR}"
  -G "${MEMFMT_GENERATOR}"
  "-DCMAKE_CXX_COMPILER=${MEMFMT_CXX_COMPILER}"
  -DCMAKE_FIND_USE_PACKAGE_REGISTRY=OFF)
if(MEMFMT_MAKE_PROGRAM)
  list(APPEND configure_args "-DCMAKE_MAKE_PROGRAM=${MEMFMT_MAKE_PROGRAM}")
endif()
if(MEMFMT_BUILD_TYPE)
  list(APPEND configure_args "-DCMAKE_BUILD_TYPE=${MEMFMT_BUILD_TYPE}")
endif()
if(MEMFMT_CONSUMER_USES_PREFIX)
  list(APPEND configure_args "-DCMAKE_PREFIX_PATH=${MEMFMT_PREFIX}")
endif()
if(DEFINED MEMFMT_SUBPROJECT_MODE)
  list(APPEND configure_args
    "-DMEMFMT_SOURCE_DIR=${MEMFMT_SOURCE_DIR}"
    "-DMEMFMT_SUBPROJECT_MODE=${MEMFMT_SUBPROJECT_MODE}")
endif()

function(run step)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE result)
  if(NOT result EQUAL 0)
    list(JOIN ARGN " " command_line)
    message(FATAL_ERROR "${step} failed (${result}): ${command_line}")
  endif()
endfunction()

run(configure "${CMAKE_COMMAND}" ${configure_args})

if(MEMFMT_CONSUMER_USES_PREFIX)
  file(STRINGS "${MEMFMT_CONSUMER_BINARY_DIR}/CMakeCache.txt" memfmt_dir_line
    REGEX "^memfmt_DIR:")
  string(REGEX REPLACE "^memfmt_DIR:[A-Z]+=" "" memfmt_dir "${memfmt_dir_line}")
  file(REAL_PATH "${MEMFMT_PREFIX}" real_prefix)
  file(REAL_PATH "${memfmt_dir}" real_memfmt_dir)
  string(FIND "${real_memfmt_dir}/" "${real_prefix}/" at)
  if(NOT at EQUAL 0)
    message(FATAL_ERROR "memfmt was found at '${memfmt_dir}', not in ${MEMFMT_PREFIX}")
  endif()
  message(STATUS "memfmt found at ${memfmt_dir}")
endif()

set(build_args --build "${MEMFMT_CONSUMER_BINARY_DIR}")
if(MEMFMT_BUILD_TYPE)
  list(APPEND build_args --config "${MEMFMT_BUILD_TYPE}")
endif()
run(build "${CMAKE_COMMAND}" ${build_args})

set(exe "${MEMFMT_CONSUMER_BINARY_DIR}/${MEMFMT_CONSUMER_EXECUTABLE}")
if(NOT EXISTS "${exe}" AND MEMFMT_BUILD_TYPE)
  set(exe "${MEMFMT_CONSUMER_BINARY_DIR}/${MEMFMT_BUILD_TYPE}/${MEMFMT_CONSUMER_EXECUTABLE}")
endif()
run(run "${exe}")
