// Compiled, not run: a program compiled with OpenMP gets OpenMP threads unless it says
// MEMFMT_USE_OPENMP=0, and one compiled without OpenMP does not (see reorder.hpp).
// The build compiles this unit three ways, each with the answer it must give in
// MEMFMT_EXPECT_OPENMP.
#include <memfmt/reorder/reorder.hpp>

static_assert(memfmt::uses_openmp == (MEMFMT_EXPECT_OPENMP != 0),
              "memfmt::uses_openmp does not follow -fopenmp and MEMFMT_USE_OPENMP");
