# Settings shared by memfmt's own tests, examples, benchmarks and tools.
# Nothing here is part of the installed package.

# The library flavour the project's own programs use: threaded when possible.
# MEMFMT_DEV_OPENMP=OFF keeps OpenMP out (the tsan configuration: ThreadSanitizer
# does not see into an uninstrumented OpenMP runtime).
option(MEMFMT_DEV_OPENMP "Build memfmt's own programs with memfmt::openmp where OpenMP is found" ON)
if(TARGET memfmt::openmp AND MEMFMT_DEV_OPENMP)
  set(MEMFMT_DEV_LIBRARY memfmt::openmp)
else()
  set(MEMFMT_DEV_LIBRARY memfmt::memfmt)
endif()

# memfmt_dev_options: warnings, and the sanitizers when MEMFMT_SANITIZE is ON.
# Linked by everything that CTest runs (tests, examples, fuzz targets).
add_library(memfmt_dev_options INTERFACE)
if(CMAKE_CXX_COMPILER_ID MATCHES "GNU|Clang")
  target_compile_options(memfmt_dev_options INTERFACE -Wall -Wextra)
  if(MEMFMT_WARNINGS_AS_ERRORS)
    target_compile_options(memfmt_dev_options INTERFACE -Werror)
  endif()
elseif(MSVC)
  target_compile_options(memfmt_dev_options INTERFACE /W4 /permissive-)
  if(MEMFMT_WARNINGS_AS_ERRORS)
    target_compile_options(memfmt_dev_options INTERFACE /WX)
  endif()
endif()

# MEMFMT_COVERAGE: gcov counters in everything CTest runs, for gcovr (scripts/coverage).
option(MEMFMT_COVERAGE "Build tests, examples and tools with --coverage (GCC)" OFF)
if(MEMFMT_COVERAGE)
  if(NOT CMAKE_CXX_COMPILER_ID STREQUAL "GNU")
    message(FATAL_ERROR "MEMFMT_COVERAGE needs GCC (gcov)")
  endif()
  # atomic counters: reorders run on several threads
  target_compile_options(memfmt_dev_options INTERFACE --coverage -fprofile-update=atomic)
  target_link_options(memfmt_dev_options INTERFACE --coverage)
endif()

option(MEMFMT_SANITIZE_THREAD "Build tests with ThreadSanitizer (not with MEMFMT_SANITIZE)" OFF)
set(MEMFMT_SANITIZER_FLAGS "")
if(MEMFMT_SANITIZE AND MEMFMT_SANITIZE_THREAD)
  message(FATAL_ERROR "MEMFMT_SANITIZE and MEMFMT_SANITIZE_THREAD exclude each other")
elseif(MEMFMT_SANITIZE)
  set(MEMFMT_SANITIZER_FLAGS
    -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all)
elseif(MEMFMT_SANITIZE_THREAD)
  set(MEMFMT_SANITIZER_FLAGS -fsanitize=thread -fno-omit-frame-pointer)
endif()
if(MEMFMT_SANITIZER_FLAGS)
  if(NOT CMAKE_CXX_COMPILER_ID MATCHES "GNU|Clang")
    message(FATAL_ERROR "the sanitizer options need GCC or clang")
  endif()
  target_compile_options(memfmt_dev_options INTERFACE ${MEMFMT_SANITIZER_FLAGS})
  target_link_options(memfmt_dev_options INTERFACE ${MEMFMT_SANITIZER_FLAGS})
  message(STATUS "memfmt: tests and examples built with ${MEMFMT_SANITIZER_FLAGS}")
endif()

# memfmt_dev_kernels: the reorder kernels compiled once for the project's own
# programs. Linking it defines MEMFMT_KERNELS_EXTERN, so a program's units only
# declare run_nest (see memfmt/reorder/kernel/run.hpp); compiling every kernel is
# the costliest step of the build, and paying it once per build instead of once per
# program keeps CI fast. Header-only use is proven by the units that do not link it
# (reorder.kernel.kernels, reorder.kernel.dispatch, the install checks).
add_library(memfmt_dev_kernels STATIC "${CMAKE_CURRENT_LIST_DIR}/memfmt_dev_kernels.cpp")
target_link_libraries(memfmt_dev_kernels PUBLIC ${MEMFMT_DEV_LIBRARY} memfmt_dev_options)
target_compile_definitions(memfmt_dev_kernels PUBLIC MEMFMT_KERNELS_EXTERN
  PRIVATE MEMFMT_KERNELS_IMPLEMENTATION)

# Environment for every test that CTest runs in a sanitizer build.
set(MEMFMT_TEST_ENVIRONMENT "")
if(MEMFMT_SANITIZE_THREAD)
  set(MEMFMT_TEST_ENVIRONMENT "TSAN_OPTIONS=halt_on_error=1:second_deadlock_stack=1")
endif()
if(MEMFMT_SANITIZE)
  set(MEMFMT_TEST_ENVIRONMENT
    "ASAN_OPTIONS=detect_leaks=1:detect_stack_use_after_return=1:check_initialization_order=1:strict_init_order=1"
    "UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1"
    "LSAN_OPTIONS=suppressions=${PROJECT_SOURCE_DIR}/tests/sanitizers/lsan.supp")
endif()

# oneDNN (optional): a test oracle and a benchmark peer, never a dependency of
# the library. Debian's dnnl-config.cmake needs OpenCL (its GPU runtime), so it
# is only tried when OpenCL is there; otherwise the library and header are
# looked up directly.
set(MEMFMT_HAVE_ONEDNN OFF)
if(MEMFMT_WITH_ONEDNN AND (MEMFMT_BUILD_TESTS OR MEMFMT_BUILD_BENCHMARKS))
  find_package(OpenCL QUIET)
  if(OpenCL_FOUND)
    find_package(dnnl CONFIG QUIET)
  endif()
  add_library(memfmt_onednn INTERFACE)
  if(TARGET DNNL::dnnl)
    target_link_libraries(memfmt_onednn INTERFACE DNNL::dnnl)
    set(MEMFMT_HAVE_ONEDNN ON)
    message(STATUS "memfmt: oneDNN ${dnnl_VERSION} found at ${dnnl_DIR}")
  else()
    find_path(MEMFMT_ONEDNN_INCLUDE_DIR oneapi/dnnl/dnnl.hpp)
    find_library(MEMFMT_ONEDNN_LIBRARY dnnl)
    if(MEMFMT_ONEDNN_INCLUDE_DIR AND MEMFMT_ONEDNN_LIBRARY)
      target_include_directories(memfmt_onednn SYSTEM INTERFACE "${MEMFMT_ONEDNN_INCLUDE_DIR}")
      target_link_libraries(memfmt_onednn INTERFACE "${MEMFMT_ONEDNN_LIBRARY}")
      set(MEMFMT_HAVE_ONEDNN ON)
      message(STATUS "memfmt: oneDNN found at ${MEMFMT_ONEDNN_LIBRARY}")
    endif()
  endif()
endif()
option(MEMFMT_REQUIRE_ONEDNN
  "Stop at configure time when oneDNN, the oracle of the differential tests, is not found" OFF)
if(NOT MEMFMT_HAVE_ONEDNN)
  if(MEMFMT_REQUIRE_ONEDNN)
    message(FATAL_ERROR "memfmt: MEMFMT_REQUIRE_ONEDNN is ON but oneDNN was not found "
      "(no oneapi/dnnl/dnnl.hpp and libdnnl; Debian: apt-get install libdnnl-dev). "
      "The differential tests need it as their oracle.")
  endif()
  message(STATUS "memfmt: oneDNN not used; tests that need it report SKIPPED")
endif()
