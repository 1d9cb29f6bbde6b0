# install.stage: a fresh `cmake --install` into MEMFMT_PREFIX, then checks
# the installed tree: headers, CMake package, pkg-config file, licence, and
# nothing architecture-specific (memfmt is header-only).

cmake_minimum_required(VERSION 3.21)

file(REMOVE_RECURSE "${MEMFMT_PREFIX}")
set(config_args "")
if(MEMFMT_BUILD_TYPE)
  set(config_args --config "${MEMFMT_BUILD_TYPE}")
endif()
execute_process(
  COMMAND "${CMAKE_COMMAND}" --install "${MEMFMT_BUILD_DIR}" --prefix "${MEMFMT_PREFIX}" ${config_args}
  RESULT_VARIABLE result)
if(NOT result EQUAL 0)
  message(FATAL_ERROR "cmake --install failed (${result})")
endif()

set(missing "")
set(expected
  share/cmake/memfmt/memfmtConfig.cmake
  share/cmake/memfmt/memfmtConfigVersion.cmake
  share/cmake/memfmt/memfmtTargets.cmake
  share/pkgconfig/memfmt.pc
  share/doc/memfmt/LICENSE)
if(MEMFMT_HAS_OPENMP)
  list(APPEND expected share/cmake/memfmt/memfmtOpenMPTargets.cmake)
endif()

# Every public header of the source tree is installed.
file(GLOB_RECURSE source_headers RELATIVE "${MEMFMT_SOURCE_DIR}/include"
  "${MEMFMT_SOURCE_DIR}/include/memfmt/*")
foreach(header IN LISTS source_headers)
  if(header MATCHES "\\.(hpp|h|ipp|inc)$")
    list(APPEND expected "include/${header}")
  endif()
endforeach()

foreach(file IN LISTS expected)
  if(NOT EXISTS "${MEMFMT_PREFIX}/${file}")
    list(APPEND missing "${file}")
  endif()
endforeach()
if(missing)
  list(JOIN missing "\n  " missing)
  message(FATAL_ERROR "not installed:\n  ${missing}")
endif()

# Header-only: no libraries, nothing architecture-specific.
file(GLOB_RECURSE lib_files "${MEMFMT_PREFIX}/lib/*" "${MEMFMT_PREFIX}/lib64/*")
if(lib_files)
  message(FATAL_ERROR "a header-only install must not put files under lib/: ${lib_files}")
endif()

# The pkg-config file names the prefix it was installed to.
file(READ "${MEMFMT_PREFIX}/share/pkgconfig/memfmt.pc" pc)
string(FIND "${pc}" "prefix=${MEMFMT_PREFIX}\n" at_prefix)
string(FIND "${pc}" "Version: ${MEMFMT_VERSION}\n" at_version)
if(at_prefix EQUAL -1 OR at_version EQUAL -1)
  message(FATAL_ERROR "unexpected memfmt.pc:\n${pc}")
endif()

list(LENGTH expected count)
message(STATUS "memfmt installed into ${MEMFMT_PREFIX}: ${count} expected files present")
