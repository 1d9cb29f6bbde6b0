// The implementation unit of extern_program_test.cpp's program: MEMFMT_KERNELS_EXTERN
// (every unit) and MEMFMT_KERNELS_IMPLEMENTATION with memfmt.hpp define the kernels
// and the reorder's planning here, once for the program.
#define MEMFMT_KERNELS_IMPLEMENTATION 1
#include <memfmt/memfmt.hpp>

#if !defined(MEMFMT_REORDER_COMPILED) || !defined(MEMFMT_KERNEL_COMPILED)
#error "MEMFMT_KERNELS_IMPLEMENTATION with memfmt.hpp compiles the kernels and the reorder's planning"
#endif
