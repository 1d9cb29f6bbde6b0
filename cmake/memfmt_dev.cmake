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

# MEMFMT_COVERAGE: coverage counters in everything CTest runs: with clang, source-based
# coverage (llvm-cov; cheap enough for the asan configuration of CI), with GCC, gcov
# counters (gcovr; atomic, as reorders run on several threads: much slower).
# Whether the target being compiled takes coverage counters and sanitizer checks: every
# target that links memfmt_dev_options, unless it says MEMFMT_UNINSTRUMENTED (see
# memfmt_uninstrumented). Linking stays the same, for the objects that have them.
set(_memfmt_instrumented "$<NOT:$<BOOL:$<TARGET_PROPERTY:MEMFMT_UNINSTRUMENTED>>>")

option(MEMFMT_COVERAGE "Build tests, examples and tools with coverage counters (clang: llvm-cov, GCC: gcov)" OFF)
if(MEMFMT_COVERAGE)
  if(CMAKE_CXX_COMPILER_ID STREQUAL "Clang")
    target_compile_options(memfmt_dev_options INTERFACE "$<${_memfmt_instrumented}:-fprofile-instr-generate;-fcoverage-mapping>")
    target_link_options(memfmt_dev_options INTERFACE -fprofile-instr-generate)
  elseif(CMAKE_CXX_COMPILER_ID STREQUAL "GNU")
    target_compile_options(memfmt_dev_options INTERFACE "$<${_memfmt_instrumented}:--coverage;-fprofile-update=atomic>")
    target_link_options(memfmt_dev_options INTERFACE --coverage)
  else()
    message(FATAL_ERROR "MEMFMT_COVERAGE needs clang or GCC")
  endif()
endif()

# memfmt_uninstrumented(TARGET): compiles TARGET without coverage counters or sanitizer
# checks (it still links their runtimes). For the units that compile the kernels once
# more only to prove something of the build (header-only dispatch, other baselines):
# the kernels' lines are counted, and their memory checked, through memfmt_dev_kernels,
# and instrumenting every kernel again would triple those units' compile time.
function(memfmt_uninstrumented target)
  set_property(TARGET ${target} PROPERTY MEMFMT_UNINSTRUMENTED ON)
endfunction()

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
  target_compile_options(memfmt_dev_options INTERFACE "$<${_memfmt_instrumented}:${MEMFMT_SANITIZER_FLAGS}>")
  target_link_options(memfmt_dev_options INTERFACE ${MEMFMT_SANITIZER_FLAGS})
  message(STATUS "memfmt: tests and examples built with ${MEMFMT_SANITIZER_FLAGS}")
endif()

# memfmt_dev_kernels: the reorder kernels and the reorder's planning compiled once
# for the project's own programs, in two units. Linking it defines
# MEMFMT_KERNELS_EXTERN, so a program's units only declare run_nest and reorder's
# members (see memfmt/reorder/kernel/run.hpp); compiling them is the costliest step
# of the build, and paying it once per build instead of once per unit keeps CI fast. Header-only use is proven by the units that do not link it
# (reorder.kernel.dispatch, the install checks).
add_library(memfmt_dev_kernels STATIC "${CMAKE_CURRENT_LIST_DIR}/memfmt_dev_kernels.cpp"
  "${CMAKE_CURRENT_LIST_DIR}/memfmt_dev_planning.cpp")
target_link_libraries(memfmt_dev_kernels PUBLIC ${MEMFMT_DEV_LIBRARY} memfmt_dev_options)
# (memfmt_dev_kernel_paths.hpp: the kernel tests record the paths the kernels take)
target_include_directories(memfmt_dev_kernels PUBLIC "${CMAKE_CURRENT_LIST_DIR}")
# (each unit defines what it implements: MEMFMT_KERNELS_IMPLEMENTATION or
# MEMFMT_REORDER_IMPLEMENTATION)
target_compile_definitions(memfmt_dev_kernels PUBLIC MEMFMT_KERNELS_EXTERN)
if(MEMFMT_SANITIZE_THREAD)
  # Races do not depend on the SIMD target: under ThreadSanitizer, the kernels of AVX3
  # and the fallback only (the configuration's longest step is compiling them).
  target_compile_definitions(memfmt_dev_kernels PUBLIC "MEMFMT_KERNEL_TARGETS=HWY_AVX3")
elseif(MEMFMT_SANITIZE)
  # Under AddressSanitizer, on a CPU without AVX-512, not the AVX-512 kernels: they
  # cannot run here, so they can show no memory error (the gcc configuration still
  # compiles and type-checks them), and they are the largest part of the
  # configuration's longest step. (`+`: the targets are distinct bits.)
  set(memfmt_cpu_flags "")
  if(EXISTS /proc/cpuinfo)
    file(STRINGS /proc/cpuinfo memfmt_cpu_flags REGEX "^flags" LIMIT_COUNT 1)
  endif()
  if(memfmt_cpu_flags AND NOT memfmt_cpu_flags MATCHES "avx512bw")
    target_compile_definitions(memfmt_dev_kernels PUBLIC "MEMFMT_KERNEL_TARGETS=HWY_AVX2+HWY_SSE4")
    message(STATUS "memfmt: no AVX-512 on this CPU: the sanitized kernels are AVX2's and SSE4's")
  endif()
  # Nor the fallback (EMU128, for x86 CPUs without SSE4.2, AES and PCLMUL) in every
  # program: with SSE4 as their baseline, Highway compiles no target below it, which
  # spares compiling every kernel a third time and running every real plan on it. The
  # fallback's kernels are checked by reorder.kernel.kernels_fallback, the kernel tests
  # built for the baseline of x86-64 (a target with MEMFMT_FALLBACK_KERNELS).
  set(MEMFMT_SANITIZE_SSE4_BASELINE OFF)
  if(CMAKE_SYSTEM_PROCESSOR MATCHES "x86_64|AMD64" AND memfmt_cpu_flags MATCHES " sse4_2 "
     AND memfmt_cpu_flags MATCHES " pclmulqdq " AND memfmt_cpu_flags MATCHES " aes ")
    set(MEMFMT_SANITIZE_SSE4_BASELINE ON)
    target_compile_options(memfmt_dev_options INTERFACE
      "$<$<NOT:$<BOOL:$<TARGET_PROPERTY:MEMFMT_FALLBACK_KERNELS>>>:-msse4.2;-mpclmul;-maes>")
    message(STATUS "memfmt: sanitized programs built for an SSE4 baseline; the fallback kernels in their own test")
  endif()
endif()

# Environment for every test that CTest runs. OpenMP threads sleep when their region
# ends instead of spinning a while: CTest runs as many tests as there are cores, and a
# spinning thread takes the core of another test.
set(MEMFMT_TEST_ENVIRONMENT "OMP_WAIT_POLICY=passive")
if(MEMFMT_SANITIZE_THREAD)
  list(APPEND MEMFMT_TEST_ENVIRONMENT "TSAN_OPTIONS=halt_on_error=1:second_deadlock_stack=1")
endif()
if(MEMFMT_SANITIZE)
  list(APPEND MEMFMT_TEST_ENVIRONMENT
    "ASAN_OPTIONS=detect_leaks=1:detect_stack_use_after_return=1:check_initialization_order=1:strict_init_order=1"
    "UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1"
    "LSAN_OPTIONS=suppressions=${PROJECT_SOURCE_DIR}/tests/sanitizers/lsan.supp")
endif()

# oneDNN (optional): a test oracle, a benchmark peer and the library of the
# examples/onednn_*.cpp, never a dependency of the library. Debian's dnnl-config.cmake needs OpenCL (its GPU runtime), so it
# is only tried when OpenCL is there; otherwise the library and header are
# looked up directly.
set(MEMFMT_HAVE_ONEDNN OFF)
if(MEMFMT_WITH_ONEDNN AND (MEMFMT_BUILD_TESTS OR MEMFMT_BUILD_BENCHMARKS OR MEMFMT_BUILD_EXAMPLES))
  find_package(OpenCL QUIET)
  if(OpenCL_FOUND)
    find_package(dnnl CONFIG QUIET)
  endif()
  add_library(memfmt_onednn INTERFACE)
  # memfmt's descriptors and attributes in oneDNN's terms
  target_include_directories(memfmt_onednn INTERFACE "${PROJECT_SOURCE_DIR}/tests/support")
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

# oneDNN 3.x (optional): the second oracle, from PyPI (onednn and onednn-devel, which
# scripts/lib.sh installs into a virtual environment). It exports the same C symbols
# as 2.6, so the programs that use it link it alone (the tests with ONEDNN3).
# MEMFMT_ONEDNN3_ROOT is the prefix the packages install into (include/oneapi/dnnl,
# lib/libdnnl.so.3).
set(MEMFMT_ONEDNN3_ROOT "" CACHE PATH
  "Prefix of oneDNN 3.x, the second oracle (PyPI's onednn and onednn-devel; scripts/test: build/venv)")
option(MEMFMT_REQUIRE_ONEDNN3
  "Stop at configure time when oneDNN 3.x is not found at MEMFMT_ONEDNN3_ROOT" OFF)
set(MEMFMT_HAVE_ONEDNN3 OFF)
set(onednn3_header "${MEMFMT_ONEDNN3_ROOT}/include/oneapi/dnnl/dnnl_version.h")
set(onednn3_library "${MEMFMT_ONEDNN3_ROOT}/lib/libdnnl.so.3")
set(onednn3_problem "")
if(NOT MEMFMT_ONEDNN3_ROOT)
  set(onednn3_problem "MEMFMT_ONEDNN3_ROOT is not set")
elseif(NOT EXISTS "${onednn3_header}" OR NOT EXISTS "${onednn3_library}")
  set(onednn3_problem "no include/oneapi/dnnl/dnnl_version.h and lib/libdnnl.so.3 under ${MEMFMT_ONEDNN3_ROOT}")
else()
  file(STRINGS "${onednn3_header}" onednn3_major REGEX "#define DNNL_VERSION_MAJOR ")
  string(REGEX REPLACE ".*DNNL_VERSION_MAJOR ([0-9]+).*" "\\1" onednn3_major "${onednn3_major}")
  if(NOT onednn3_major EQUAL 3)
    set(onednn3_problem "${onednn3_header} is of oneDNN ${onednn3_major}, not 3")
  endif()
endif()
if(onednn3_problem STREQUAL "" AND NOT (MEMFMT_WITH_ONEDNN AND (MEMFMT_BUILD_TESTS OR MEMFMT_BUILD_BENCHMARKS)))
  set(onednn3_problem "neither tests nor benchmarks are built, or MEMFMT_WITH_ONEDNN is OFF")
endif()
if(onednn3_problem STREQUAL "")
  add_library(memfmt_onednn3 SHARED IMPORTED)
  set_target_properties(memfmt_onednn3 PROPERTIES
    IMPORTED_LOCATION "${onednn3_library}"
    IMPORTED_SONAME libdnnl.so.3
    INTERFACE_INCLUDE_DIRECTORIES "${MEMFMT_ONEDNN3_ROOT}/include"
    INTERFACE_SYSTEM_INCLUDE_DIRECTORIES "${MEMFMT_ONEDNN3_ROOT}/include")
  # memfmt's descriptors and attributes in oneDNN's terms
  target_include_directories(memfmt_onednn3 INTERFACE "${PROJECT_SOURCE_DIR}/tests/support")
  # libdnnl.so.3 finds its own libraries (TBB, SYCL, the Intel runtimes) through the
  # program's run path: with the linker's default RUNPATH only the program's own
  # libraries would be searched there, so the run path is an RPATH, which also
  # serves the libraries' dependencies.
  set_property(TARGET memfmt_onednn3 PROPERTY INTERFACE_LINK_OPTIONS "LINKER:--disable-new-dtags")
  # the CPU engine runs on SYCL, whose CPU device is this OpenCL runtime (see
  # tests/support/onednn_bridge.hpp)
  if(EXISTS "${MEMFMT_ONEDNN3_ROOT}/lib/libintelocl.so")
    set_property(TARGET memfmt_onednn3 PROPERTY INTERFACE_COMPILE_DEFINITIONS
      "MEMFMT_ONEDNN_OPENCL_CPU_RUNTIME=\"${MEMFMT_ONEDNN3_ROOT}/lib/libintelocl.so\"")
  endif()
  set(MEMFMT_HAVE_ONEDNN3 ON)
  message(STATUS "memfmt: oneDNN 3.x (second oracle) found at ${onednn3_library}")
elseif(MEMFMT_REQUIRE_ONEDNN3)
  message(FATAL_ERROR "memfmt: MEMFMT_REQUIRE_ONEDNN3 is ON but oneDNN 3.x was not found: "
    "${onednn3_problem}. It comes from PyPI: `source scripts/lib.sh && "
    "memfmt_ensure_pip_packages onednn onednn-devel` installs it into build/venv; "
    "then configure with -DMEMFMT_ONEDNN3_ROOT=<that prefix>.")
else()
  message(STATUS "memfmt: oneDNN 3.x not used (${onednn3_problem}); its tests are not built")
endif()

# DLPack (optional): memfmt/interop/dlpack.hpp's one dependency, a header (Debian:
# libdlpack-dev, which ships dlpackConfig.cmake; otherwise the header is looked up).
# memfmt_dlpack: what the DLPack tests and checks link.
option(MEMFMT_REQUIRE_DLPACK
  "Stop at configure time when DLPack (dlpack/dlpack.h), which the DLPack bridge's tests need, is not found" OFF)
set(MEMFMT_HAVE_DLPACK OFF)
if(MEMFMT_BUILD_TESTS)
  find_package(dlpack CONFIG QUIET)
  add_library(memfmt_dlpack INTERFACE)
  if(TARGET dlpack::dlpack)
    target_link_libraries(memfmt_dlpack INTERFACE dlpack::dlpack)
    set(MEMFMT_HAVE_DLPACK ON)
    message(STATUS "memfmt: DLPack found at ${dlpack_DIR}")
  else()
    find_path(MEMFMT_DLPACK_INCLUDE_DIR dlpack/dlpack.h)
    if(MEMFMT_DLPACK_INCLUDE_DIR)
      target_include_directories(memfmt_dlpack SYSTEM INTERFACE "${MEMFMT_DLPACK_INCLUDE_DIR}")
      set(MEMFMT_HAVE_DLPACK ON)
      message(STATUS "memfmt: DLPack found at ${MEMFMT_DLPACK_INCLUDE_DIR}")
    endif()
  endif()
  if(NOT MEMFMT_HAVE_DLPACK)
    if(MEMFMT_REQUIRE_DLPACK)
      message(FATAL_ERROR "memfmt: MEMFMT_REQUIRE_DLPACK is ON but DLPack was not found "
        "(no dlpack/dlpack.h; Debian: apt-get install libdlpack-dev).")
    endif()
    message(STATUS "memfmt: DLPack not found; the tests of memfmt/interop/dlpack.hpp report SKIPPED")
  endif()
endif()

# The Python checks (optional): a pybind11 module of the interop tests (Debian:
# pybind11-dev, python3-dev) that NumPy (python3-numpy) reads and feeds, in a test CTest
# runs with the interpreter of Python3_EXECUTABLE (scripts/test: /usr/bin/python3, the one
# Debian's NumPy belongs to). Not under the sanitizers: a sanitized module cannot be
# loaded into an uninstrumented Python. Where MEMFMT_PYTHON_TESTS is ON and something is
# missing, the checks are left out, unless MEMFMT_REQUIRE_PYTHON stops the configuration;
# once registered, a test whose module or NumPy cannot be imported fails, it never skips.
option(MEMFMT_PYTHON_TESTS "Build the pybind11 module of the interop tests and run its NumPy checks" ON)
option(MEMFMT_REQUIRE_PYTHON
  "Stop at configure time when the Python checks cannot be built (Python 3 with NumPy, pybind11, DLPack)" OFF)
set(MEMFMT_HAVE_PYTHON OFF)
set(python_problem "")
if(NOT MEMFMT_BUILD_TESTS)
  set(python_problem "tests are not built")
elseif(NOT MEMFMT_PYTHON_TESTS)
  set(python_problem "MEMFMT_PYTHON_TESTS is OFF")
elseif(MEMFMT_SANITIZER_FLAGS)
  set(python_problem "a sanitized module cannot be loaded into an uninstrumented Python")
elseif(NOT MEMFMT_HAVE_DLPACK)
  set(python_problem "DLPack was not found (Debian: libdlpack-dev)")
else()
  find_package(Python3 COMPONENTS Interpreter Development.Module QUIET)
  if(NOT Python3_Interpreter_FOUND OR NOT Python3_Development.Module_FOUND)
    set(python_problem "no Python 3 interpreter with its development files (Debian: python3-dev, and Python3_EXECUTABLE chooses the interpreter)")
  else()
    find_package(pybind11 CONFIG QUIET)
    if(NOT pybind11_FOUND)
      set(python_problem "pybind11 was not found (Debian: pybind11-dev)")
    else()
      execute_process(COMMAND "${Python3_EXECUTABLE}" -c "import numpy; print(numpy.__version__)"
        RESULT_VARIABLE numpy_status OUTPUT_VARIABLE numpy_version ERROR_QUIET OUTPUT_STRIP_TRAILING_WHITESPACE)
      if(NOT numpy_status EQUAL 0)
        set(python_problem "${Python3_EXECUTABLE} cannot import numpy (Debian: python3-numpy, for /usr/bin/python3, and Python3_EXECUTABLE chooses the interpreter)")
      else()
        set(MEMFMT_HAVE_PYTHON ON)
        message(STATUS "memfmt: Python checks with ${Python3_EXECUTABLE} (Python ${Python3_VERSION}, "
          "NumPy ${numpy_version}, pybind11 ${pybind11_VERSION})")
      endif()
    endif()
  endif()
endif()
if(NOT MEMFMT_HAVE_PYTHON)
  if(MEMFMT_REQUIRE_PYTHON)
    message(FATAL_ERROR "memfmt: MEMFMT_REQUIRE_PYTHON is ON but the Python checks cannot be built: ${python_problem}")
  endif()
  message(STATUS "memfmt: Python checks not built (${python_problem})")
endif()
