// The one translation unit of extern_test_a.cpp's program that compiles the kernels.

#define MEMFMT_KERNELS_EXTERN
#define MEMFMT_KERNELS_IMPLEMENTATION
#include <memfmt/reorder/kernel/run.hpp>
