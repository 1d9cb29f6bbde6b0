# Runs `conan create` of memfmt's recipe and its test_package/ in a fresh Conan home
# (MEMFMT_WORK_DIR/home) with no remote, then checks the package it made.
#   MEMFMT_CONAN, MEMFMT_SOURCE_DIR, MEMFMT_WORK_DIR, MEMFMT_GENERATOR, MEMFMT_CXX_COMPILER

cmake_minimum_required(VERSION 3.21)

set(home "${MEMFMT_WORK_DIR}/home")
file(REMOVE_RECURSE "${MEMFMT_WORK_DIR}")
file(MAKE_DIRECTORY "${home}")
# A .conanrc takes precedence over CONAN_HOME and is looked up from the working
# directory upwards: this one keeps any other out.
file(WRITE "${MEMFMT_WORK_DIR}/.conanrc" "conan_home=${home}\n")
file(WRITE "${home}/global.conf" "core:non_interactive=True\n")
set(ENV{CONAN_HOME} "${home}")

function(conan step)
  execute_process(COMMAND "${MEMFMT_CONAN}" ${ARGN}
    WORKING_DIRECTORY "${MEMFMT_WORK_DIR}"
    RESULT_VARIABLE result OUTPUT_VARIABLE out ERROR_VARIABLE err)
  message("${err}")
  if(NOT result EQUAL 0)
    list(JOIN ARGN " " args)
    message(FATAL_ERROR "${step} failed (${result}): conan ${args}")
  endif()
  set(conan_out "${out}" PARENT_SCOPE)
  set(conan_err "${err}" PARENT_SCOPE)
endfunction()

# Nothing may come from a remote: Boost and Highway are the system's.
conan(remotes remote remove "*")
conan(remotes remote list)
if(NOT conan_out STREQUAL "" OR NOT conan_err MATCHES "^[ \t\r\n]*$")
  message(FATAL_ERROR "Conan remotes left: ${conan_out}${conan_err}")
endif()

set(profile "${MEMFMT_SOURCE_DIR}/conan/profiles/debian12")
conan(create create "${MEMFMT_SOURCE_DIR}"
  -pr:a "${profile}"
  -c "tools.build:compiler_executables={'cpp': '${MEMFMT_CXX_COMPILER}'}"
  -c "tools.cmake:cmake_program=${CMAKE_COMMAND}"
  -c "tools.cmake.cmaketoolchain:generator=${MEMFMT_GENERATOR}"
  # the test_package's build in this tree, and no CMakeUserPresets.json in the sources
  -c "tools.cmake.cmake_layout:test_folder=${MEMFMT_WORK_DIR}/test_package"
  -c "tools.cmake.cmaketoolchain:user_presets="
  --format=json)

# test_package's test() ran the consumer (it skips it where it cannot run it), and
# Conan failed above if the consumer did.
if(NOT conan_err MATCHES "\\(test package\\): RUN: [^\n]*test_package")
  message(FATAL_ERROR "test_package's program did not run")
endif()

# The graph: Boost and Highway are the platform ones the profile declares.
file(STRINGS "${profile}" profile_lines)
set(section "")
set(declared "")
foreach(line IN LISTS profile_lines)
  string(STRIP "${line}" line)
  if(line MATCHES "^\\[(.*)\\]$")
    set(section "${CMAKE_MATCH_1}")
  elseif(section STREQUAL "platform_requires" AND NOT line STREQUAL "")
    list(APPEND declared "${line}")
  endif()
endforeach()
list(SORT declared)
set(package_folder "")
set(platform "")
string(JSON nodes GET "${conan_out}" graph nodes)
string(JSON n LENGTH "${nodes}")
math(EXPR last "${n} - 1")
foreach(i RANGE ${last})
  string(JSON key MEMBER "${nodes}" ${i})
  string(JSON ref GET "${nodes}" ${key} ref)
  string(JSON recipe GET "${nodes}" ${key} recipe)
  if(ref MATCHES "^memfmt/")
    string(JSON package_folder GET "${nodes}" ${key} package_folder)
  elseif(recipe STREQUAL "Platform")
    string(REGEX REPLACE "#.*" "" ref "${ref}")
    list(APPEND platform "${ref}")
  endif()
endforeach()
list(SORT platform)
if(NOT platform STREQUAL declared OR NOT declared MATCHES "^boost/[^;]*;highway/[^;]*$")
  message(FATAL_ERROR "Boost and Highway should come from the platform as ${profile} "
    "declares them (${declared}); the graph took these from it: ${platform}")
endif()

# The package: the headers as in the sources, the license, the CMake module.
if(NOT IS_DIRECTORY "${package_folder}")
  message(FATAL_ERROR "no package folder for memfmt in the graph")
endif()
file(GLOB_RECURSE expected RELATIVE "${MEMFMT_SOURCE_DIR}" "${MEMFMT_SOURCE_DIR}/include/*")
list(APPEND expected licenses/LICENSE lib/cmake/memfmt/system_deps.cmake)
file(GLOB_RECURSE packaged RELATIVE "${package_folder}" "${package_folder}/*")
list(REMOVE_ITEM packaged conaninfo.txt conanmanifest.txt)
list(SORT expected)
list(SORT packaged)
if(NOT packaged STREQUAL expected)
  set(missing "")
  foreach(file IN LISTS expected)
    if(NOT file IN_LIST packaged)
      list(APPEND missing "${file}")
    endif()
  endforeach()
  set(extra "")
  foreach(file IN LISTS packaged)
    if(NOT file IN_LIST expected)
      list(APPEND extra "${file}")
    endif()
  endforeach()
  message(FATAL_ERROR "the package's files differ from the expected ones\n"
    "  missing: ${missing}\n  unexpected: ${extra}")
endif()
list(LENGTH packaged files)
message(STATUS "memfmt package: ${files} files in ${package_folder}")
